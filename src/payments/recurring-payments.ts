import { sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';
import { PAYMENT_ROW, type PaymentRow } from './view.ts';

const INSERT_RECURRING_PAYMENTS = sqlStatement(
  PAYMENT_ROW,
  `INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                         amount_pence, method, card_brand, card_last4, card_exp_month, card_exp_year, reference,
                         schedule_id, installment_number, failure_code, failure_message, idempotency_key, processor,
                         processor_token, processor_payment_id, saved_card_id, created_at, updated_at,
                         funds_available_at, action_required_at)
   SELECT x.id, x.integrator_id, x.session_id, x.user_id, x.tenancy_id, x.status, x.pure_amount_pence, x.fee_pence,
          x.pure_amount_pence + x.fee_pence, 'card', x.card_brand, x.card_last4, x.card_exp_month, x.card_exp_year,
          x.reference, x.schedule_id, x.installment_number, x.failure_code, x.failure_message, x.idempotency_key, $2,
          x.processor_token, x.processor_payment_id, x.saved_card_id, $3, $3,
          CASE WHEN $4 AND x.status = 'succeeded' THEN $3::timestamptz END,
          CASE WHEN x.status = 'requires_action' THEN $3::timestamptz END
     FROM jsonb_to_recordset($1::jsonb) AS x(id text, integrator_id text, session_id text, user_id text,
          tenancy_id text, status text, pure_amount_pence bigint, fee_pence bigint, card_brand text,
          card_last4 text, card_exp_month integer, card_exp_year integer, reference text, schedule_id text,
          installment_number integer, failure_code text, failure_message text, idempotency_key text,
          processor_token text, processor_payment_id text, saved_card_id text)
   ON CONFLICT (session_id, idempotency_key) DO NOTHING
   RETURNING *`,
);

/**
 * Inserts scheduled payments; one whose key its session holds already is left out (not in the answer). A succeeded
 * one's funds are available now when the processor settles at once.
 */
export function insertRecurringPayments(
  tx: Queryable,
  payments: Record<string, unknown>[],
  processor: string,
  now: Date,
  settlesAtOnce: boolean,
): Promise<PaymentRow[]> {
  return INSERT_RECURRING_PAYMENTS.rows(tx, [payments, processor, now, settlesAtOnce]);
}
