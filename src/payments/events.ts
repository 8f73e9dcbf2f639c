import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import type { PaymentEventData } from '../webhooks/event-schemas.ts';
import { type EventType, recordEvent } from '../webhooks/record-event.ts';
import { type PaymentRow, paymentView } from './view.ts';

/** Whom a payment's event names: the integrator's user id, the email and the tenancy's payment reference. */
export interface PaymentEventUser {
  external_id: number;
  email: string;
  payment_reference: string;
}

/** A payment event's data: `{payment, user_id, email, payment_reference}`, plus `refund` or `retry_on`. */
export function paymentEventData(
  payment: PaymentRow,
  who: PaymentEventUser,
  extra: Pick<PaymentEventData, 'refund' | 'retry_on'> = {},
): PaymentEventData {
  return {
    payment: paymentView(payment),
    user_id: Number(who.external_id),
    email: who.email,
    payment_reference: who.payment_reference,
    ...extra,
  };
}

/** Records a payment's event, with `extra` beside the contract's keys. */
export async function recordPaymentEvent(
  tx: Queryable,
  clock: Clock,
  type: EventType,
  payment: PaymentRow,
  extra: Pick<PaymentEventData, 'refund' | 'retry_on'> = {},
): Promise<void> {
  const [who] = await tx.query<PaymentEventUser>(
    `SELECT u.external_id, u.email, t.payment_reference
       FROM users u JOIN tenancies t ON t.id = $2
      WHERE u.id = $1`,
    [payment.user_id, payment.tenancy_id],
  );
  await recordEvent(tx, clock, payment.integrator_id, type, paymentEventData(payment, who!, extra));
}
