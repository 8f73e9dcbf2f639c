/**
 * The sentence a tenant agrees to when setting up recurring rent: who charges which card, how much (the fee
 * included), when, until when, for what and to whom. Written by the server from the schedule's terms, shown by the
 * page, sent back on set-up and stored with the schedule, so what was agreed is what is charged.
 */
import type { MethodFee } from '../integrators/service.ts';
import { paymentAmounts } from '../payments/fees.ts';
import {
  addDays,
  type DueCharge,
  dueThrough,
  FREQUENCY_MONTHS,
  type ScheduleTerms,
} from '../shared/dates.ts';
import { longDate, money, ordinal } from '../shared/display.ts';

/** Changes whenever the wording does; stored with each schedule beside the text itself. */
export const AUTHORIZATION_VERSION = 'recurring-card-2026-11';

/** How many upcoming charges a preview lists. */
export const LISTED_CHARGES = 3;

export interface AuthorizationParties {
  /** The platform that charges (the integrator's name). */
  platform: string;
  /** Whom the rent is for: the tenancy's recipient account name. */
  payee: string;
  address: string;
  card: { brand: string; last4: string };
  cardFee: MethodFee | undefined;
}

export interface PricedCharge extends DueCharge {
  fee_pence: number;
  amount_pence: number;
}

/** What a schedule set up now would charge, and the sentence the tenant agrees to. */
export interface ScheduleAgreement {
  /** Every charge from the first due date to the tenancy's end, with today's card fee. */
  charges: PricedCharge[];
  text: string;
  version: string;
}

function brandName(brand: string): string {
  const names: Record<string, string> = { visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express' };
  return names[brand] ?? brand.charAt(0).toUpperCase() + brand.slice(1);
}

function every(terms: Extract<ScheduleTerms, { kind: 'rent' }>): string {
  const months = FREQUENCY_MONTHS[terms.frequency];
  const period = months === 1 ? 'every month' : months === 12 ? 'every year' : `every ${months} months`;
  const shortMonths = terms.rentDueDay > 28 ? ' (or the month’s last day when it is shorter)' : '';
  return `${period} on the ${ordinal(terms.rentDueDay)}${shortMonths}`;
}

function list(items: string[]): string {
  return items.length <= 1 ? (items[0] ?? '') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}

/** The charges from `first` through the tenancy's end and the sentence agreeing to them. */
export function scheduleAgreement(
  terms: ScheduleTerms,
  first: string,
  parties: AuthorizationParties,
): ScheduleAgreement {
  const charges = dueThrough(terms, first, addDays(terms.endRentDate, 1)).due.map((charge) => {
    const { feePence, amountPence } = paymentAmounts(charge.pure_amount_pence, parties.cardFee);
    return { ...charge, fee_pence: feePence, amount_pence: amountPence };
  });
  const card = `my ${brandName(parties.card.brand)} card ending ${parties.card.last4}`;
  const purpose = `for the rent of ${parties.address} paid to ${parties.payee}`;
  const count = charges.length === 1 ? 'one payment' : `${charges.length} payments`;
  let what: string;
  if (terms.kind === 'rent') {
    const [one] = charges;
    const fee =
      one && one.fee_pence > 0
        ? ` (${money(one.pure_amount_pence)} rent plus a ${money(one.fee_pence)} card fee)`
        : '';
    const last = charges.at(-1)?.due_date ?? first;
    what = `${money(one?.amount_pence ?? 0)}${fee} ${every(terms)}, from ${longDate(first)} to ${longDate(last)} (${count})`;
  } else {
    const dated = charges.map((c) => `${money(c.amount_pence)} on ${longDate(c.due_date)}`);
    const withFee = charges.some((c) => c.fee_pence > 0) ? ', each with its card fee' : '';
    what = `the installments of my payment plan${withFee}: ${list(dated)} (${count})`;
  }
  const text =
    `I authorise ${parties.platform} to charge ${card} ${what}, ${purpose}. ` +
    'I can pause or cancel these payments at any time before a due date.';
  return { charges, text, version: AUTHORIZATION_VERSION };
}
