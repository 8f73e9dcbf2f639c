import { Type } from 'typebox';
import { PAYMENT_STATUSES, type PaymentFilter } from '../payments/list.ts';
import { ServiceError } from '../platform/errors.ts';
import { ERROR_MESSAGE } from '../platform/http/validation.ts';
import { addDays } from '../shared/dates.ts';
import { AMOUNT_FORMAT_MESSAGE, AMOUNT_PATTERN, parsePence } from '../shared/money.ts';
import { ukDayStart } from '../shared/uk-days.ts';
import { PAYMENT_METHODS } from '../shared/vocabulary.ts';

const UkDay = (description: string) =>
  Type.Optional(Type.String({ format: 'date', description: `${description} (YYYY-MM-DD, a UK day).` }));

/** The filters of the dashboard's payment search and its CSV export; every filter given must match. */
export const PAYMENT_SEARCH_FILTERS = {
  email: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 254,
      description:
        'The tenant’s email, or its beginning (`ada@` finds ada@example.com), in any case. The whole address finds it too.',
    }),
  ),
  payment_reference: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 100,
      description: 'Exactly the payment’s `reference`, or its tenancy’s payment_reference.',
    }),
  ),
  last4: Type.Optional(
    Type.String({
      pattern: '^\\d{4}$',
      [ERROR_MESSAGE]: 'Enter the last 4 digits of the card, e.g. "4242".',
      description: 'The card’s last 4 digits.',
    }),
  ),
  amount: Type.Optional(
    Type.String({
      pattern: AMOUNT_PATTERN,
      [ERROR_MESSAGE]: AMOUNT_FORMAT_MESSAGE,
      description:
        'Exactly what was charged (`amount`, fee included) or its rent (`pure_amount`), e.g. "1200.00".',
    }),
  ),
  status: Type.Optional(Type.Enum([...PAYMENT_STATUSES])),
  method: Type.Optional(Type.Enum([...PAYMENT_METHODS])),
  from: UkDay('Made on or after this day'),
  to: UkDay('Made on or before this day'),
};

type SearchQuery = {
  email?: string | undefined;
  payment_reference?: string | undefined;
  last4?: string | undefined;
  amount?: string | undefined;
  status?: PaymentFilter['status'];
  method?: PaymentFilter['method'];
  from?: string | undefined;
  to?: string | undefined;
};

/** The payments service's filter for a search of the integrator's payments; `from` after `to` is refused (400). */
export function paymentSearchFilter(
  integratorId: string,
  query: SearchQuery,
): Omit<PaymentFilter, 'limit' | 'startingAfter'> {
  if (query.from !== undefined && query.to !== undefined && query.from > query.to) {
    throw new ServiceError(
      'invalid_request',
      `Invalid querystring: to: Enter a day on or after from (${query.from}); both days are included.`,
    );
  }
  const filter: Omit<PaymentFilter, 'limit' | 'startingAfter'> = { integratorId };
  if (query.email !== undefined) filter.emailPrefix = query.email;
  if (query.payment_reference !== undefined) filter.reference = query.payment_reference;
  if (query.last4 !== undefined) filter.last4 = query.last4;
  if (query.amount !== undefined) filter.amountPence = parsePence(query.amount)!;
  if (query.status !== undefined) filter.status = query.status;
  if (query.method !== undefined) filter.method = query.method;
  if (query.from !== undefined) filter.createdFrom = ukDayStart(query.from);
  if (query.to !== undefined) filter.createdBefore = ukDayStart(addDays(query.to, 1));
  return filter;
}

/** The search's query string for a set of filters, as the home's figures link to it. */
export function paymentSearchLink(
  filters: Partial<Record<keyof typeof PAYMENT_SEARCH_FILTERS, string>>,
): string {
  const query = new URLSearchParams(
    Object.entries(filters).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return `/api/dashboard/payments/${query.size > 0 ? `?${query}` : ''}`;
}
