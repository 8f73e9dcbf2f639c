import type { Static } from 'typebox';
import { Col } from '../platform/db/checked-sql.ts';
import { INSTALLMENT_PLAN_COLUMN } from '../shared/installment-plan-schema.ts';
import { numberToPence } from '../shared/money.ts';
import type { InstallmentPlan } from '../shared/vocabulary.ts';
import type { Installment, InstallmentPayment, TenancyInput } from './schemas.ts';

/** What is stored of an existing tenancy, for comparing with what onboarding sends for it. */
export const STORED_TENANCY = Col.row({
  post_code: Col.text,
  address_1: Col.text,
  city: Col.text,
  country: Col.text,
  is_primary: Col.bool,
  start_rent_date: Col.text,
  rent_due_day: Col.int,
  is_active: Col.bool,
  payment_reference: Col.text,
  recipient_bank_sort_code: Col.text,
  recipient_bank_account_number: Col.text,
  recipient_bank_account_name: Col.text,
  agreement_url: Col.text,
  installment_plan: INSTALLMENT_PLAN_COLUMN,
});
export type StoredTenancy = Static<typeof STORED_TENANCY>;

/** The only fields an existing tenancy takes from onboarding: they are never listed. */
type Changeable = 'end_rent_date' | 'amount' | 'frequency';

/**
 * How one sent leaf compares with what is stored: `sent` turns the request's value into the form onboarding stores
 * (pounds -> pence), `stored` reads the stored value in that form (undefined where nothing is stored).
 */
interface Leaf<Stored> {
  sent?: (value: unknown) => unknown;
  stored: (stored: Stored) => unknown;
}

const pence = (value: unknown) => (typeof value === 'number' ? numberToPence(value) : value);
/** A leaf sent in the form it is stored in. */
const asStored = <Stored>(read: (stored: Stored) => unknown): Leaf<Stored> => ({ stored: read });

/**
 * Every tenancy field that may not change on an existing tenancy (the type makes a new Tenancy field a compile error
 * until it is placed here or made changeable). Strings, booleans and dates are stored as sent (dates as YYYY-MM-DD,
 * text case-sensitively), so they compare as they are.
 */
const FIXED_FIELDS: Record<
  Exclude<keyof TenancyInput, Changeable | 'installment_payment'>,
  Leaf<StoredTenancy>
> = {
  post_code: asStored((t) => t.post_code),
  address_1: asStored((t) => t.address_1),
  city: asStored((t) => t.city),
  country: asStored((t) => t.country),
  is_primary: asStored((t) => t.is_primary),
  start_rent_date: asStored((t) => t.start_rent_date),
  rent_due_day: asStored((t) => Number(t.rent_due_day)),
  is_active: asStored((t) => t.is_active),
  payment_reference: asStored((t) => t.payment_reference),
  recipient_bank_sort_code: asStored((t) => t.recipient_bank_sort_code),
  recipient_bank_account_number: asStored((t) => t.recipient_bank_account_number),
  recipient_bank_account_name: asStored((t) => t.recipient_bank_account_name),
  agreement: asStored((t) => t.agreement_url),
};

type StoredInstallment = InstallmentPlan['installments'][number];

const PLAN_FIELDS: Record<'total_amount', Leaf<InstallmentPlan | null>> = {
  total_amount: {
    sent: pence,
    stored: (plan) => (plan?.total_amount_pence == null ? undefined : Number(plan.total_amount_pence)),
  },
};

const INSTALLMENT_FIELDS: Record<keyof Static<typeof Installment>, Leaf<StoredInstallment | undefined>> = {
  installment_number: asStored((i) => (i === undefined ? undefined : Number(i.installment_number))),
  due_date: asStored((i) => i?.due_date),
  amount: { sent: pence, stored: (i) => (i === undefined ? undefined : Number(i.amount_pence)) },
};

/** The comparison for `field` when it is one of `fields`' own keys; none for an unknown field ("constructor" too). */
function leafOf<Stored>(fields: Record<string, Leaf<Stored>>, field: string): Leaf<Stored> | undefined {
  return Object.hasOwn(fields, field) ? fields[field] : undefined;
}

/** Appends `path.field` when `field` is one of `fields` and its sent value differs from the stored one. */
function compareLeaf<Stored>(
  fields: Record<string, Leaf<Stored>>,
  field: string,
  value: unknown,
  storedValue: Stored,
  path: string,
  ignored: string[],
): void {
  const leaf = leafOf(fields, field);
  if (!leaf) return;
  const normalised = leaf.sent ? leaf.sent(value) : value;
  if (normalised !== leaf.stored(storedValue)) ignored.push(`${path}.${field}`);
}

/**
 * An existing tenancy's installment plan may not change. Each sent leaf is compared with the stored plan: the
 * installment at the same position (stored installments are numbered 1..n in order) and total_amount. A leaf with
 * nothing stored to equal it (an installment beyond the stored ones, any leaf of a plan sent where none is stored,
 * total_amount where none is stored) is listed. What is not sent is not listed: an omitted total_amount, fewer
 * installments than stored or no plan at all leave the stored plan as it is, as everything does.
 */
function comparePlan(
  sent: Static<typeof InstallmentPayment>,
  plan: InstallmentPlan | null,
  path: string,
  ignored: string[],
): void {
  for (const [field, value] of Object.entries(sent)) {
    if (field === 'installments' && Array.isArray(value)) {
      value.forEach((installment: object, i) => {
        for (const [key, leaf] of Object.entries(installment)) {
          compareLeaf(
            INSTALLMENT_FIELDS,
            key,
            leaf,
            plan?.installments[i],
            `${path}.installments.${i}`,
            ignored,
          );
        }
      });
    } else {
      compareLeaf(PLAN_FIELDS, field, value, plan, path, ignored);
    }
  }
}

/**
 * The dotted paths (under `path`, e.g. "0.tenant.1") of the leaf fields sent for an existing tenancy whose value,
 * in the form onboarding stores it, differs from the stored one although it may not change, in the order they were
 * sent. Equal values, the changeable fields (end_rent_date, amount, frequency) and unknown fields are not listed;
 * every listed path is one present in the request.
 */
export function ignoredTenancyFields(sent: TenancyInput, stored: StoredTenancy, path: string): string[] {
  const ignored: string[] = [];
  for (const [field, value] of Object.entries(sent)) {
    if (field === 'installment_payment') {
      if (value !== null && typeof value === 'object') {
        comparePlan(value, stored.installment_plan, `${path}.${field}`, ignored);
      }
    } else {
      compareLeaf(FIXED_FIELDS, field, value, stored, path, ignored);
    }
  }
  return ignored;
}
