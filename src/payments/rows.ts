import { qb } from '../platform/db/query-builder.ts';
import type { PaymentRowNarrowing } from './view.ts';

/** Payments, every column, typed as PaymentRow: add the where (and the lock) you need. */
export function paymentRows() {
  return qb.selectFrom('payments').selectAll().$narrowType<PaymentRowNarrowing>();
}

/** An update of payments returning every column, typed as PaymentRow: set what changes and add the where. */
export function paymentUpdate() {
  return qb.updateTable('payments').returningAll().$narrowType<PaymentRowNarrowing>();
}
