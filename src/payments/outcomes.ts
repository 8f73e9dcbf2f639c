import { isCardAttempt, isIssuerDecline, settleCardAttempts } from '../cards/card-testing.ts';
import type { Clock } from '../platform/clock/clock.ts';
import { sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';
import { rows } from '../platform/db/query-builder.ts';
import { type PaymentProcessor, type ProcessorOutcome, paymentStatusFor } from '../processors/processor.ts';
import { completeSessions } from '../sessions/completion.ts';
import type { PaymentStatus } from '../shared/vocabulary.ts';
import { type PaymentEventRecord, type PaymentEventUser, recordPaymentEvents } from './events.ts';
import { paymentRows } from './rows.ts';
import { enqueueSettlement, settlesAtOnce } from './settlement.ts';
import { PAYMENT_ROW, type PaymentRow } from './view.ts';

export const FINAL: readonly PaymentStatus[] = ['succeeded', 'failed', 'canceled'];

/** A recurring charge in `requires_action`: waiting for its tenant, or brought back to them and being confirmed. */
export function awaitsTenant(payment: PaymentRow): boolean {
  return payment.status === 'requires_action' && payment.schedule_id !== null;
}

/** What the processor says of one payment; `expiring`: its tenant did not confirm it in time. */
export interface OutcomeToApply {
  paymentId: string;
  outcome: ProcessorOutcome;
  expiring?: boolean;
}

export interface OutcomeServices {
  clock: Clock;
  processor: PaymentProcessor;
  /** Ends the recurring charge a scheduled payment paid for, in the transaction that ends the payment. */
  settleScheduledCharge(tx: Queryable, payment: PaymentRow, now: Date): Promise<void>;
}

const UPDATE_PAYMENTS = sqlStatement(
  PAYMENT_ROW,
  `UPDATE payments p SET
          status = x.status,
          processor_payment_id = COALESCE(x.processor_payment_id, p.processor_payment_id),
          next_action = x.next_action,
          failure_code = x.failure_code,
          failure_message = x.failure_message,
          updated_at = $2,
          funds_available_at = CASE WHEN x.funds_now THEN $2::timestamptz END,
          -- The first time it waits for its tenant is kept, for its timeline.
          action_required_at = CASE WHEN x.status = 'requires_action' THEN COALESCE(p.action_required_at, $2)
                                    ELSE p.action_required_at END
     FROM jsonb_to_recordset($1::jsonb) AS x(id text, status text, processor_payment_id text, next_action jsonb,
                                            failure_code text, failure_message text, funds_now boolean,
                                            known_if_awaiting boolean)
    WHERE p.id = x.id
      -- Final states stay final.
      AND p.status NOT IN (${FINAL.map((status) => `'${status}'`).join(', ')})
      -- A recurring charge waiting for its tenant, or being confirmed by them: the off-session refusal that asked
      -- for them (Stripe's event of it, however late) is known and changes nothing.
      AND NOT (x.known_if_awaiting AND p.status = 'requires_action' AND p.schedule_id IS NOT NULL)
   RETURNING p.*`,
  { prepare: 'payment-outcomes' },
);

/** A payment's columns as an outcome sets them; `funds_now`: its funds are available from now on. */
export function outcomeColumns(outcome: ProcessorOutcome, processor: PaymentProcessor) {
  const status = paymentStatusFor(outcome);
  return {
    status,
    processor_payment_id: outcome.processorPaymentId ?? null,
    next_action: outcome.status === 'action_required' ? { ...outcome.action } : null,
    failure_code: outcome.status === 'refused' ? outcome.code : null,
    failure_message: outcome.status === 'refused' ? outcome.message : null,
    funds_now: status === 'succeeded' && settlesAtOnce(processor),
  };
}

/**
 * Moves payments to where the processor says they are, with their events, in the caller's transaction, a few
 * statements for all of them. Final states stay final: a late or repeated outcome changes nothing and records
 * nothing. The payments as they now stand, in the order given. Each payment at most once.
 */
export async function applyOutcomes(
  tx: Queryable,
  services: OutcomeServices,
  items: readonly OutcomeToApply[],
): Promise<PaymentRow[]> {
  const ids = items.map((item) => item.paymentId);
  if (new Set(ids).size !== ids.length) throw new Error('A payment is twice in one batch of outcomes');
  const outcomes = new Map(items.map((item) => [item.paymentId, item.outcome]));
  const now = services.clock.now();
  // The UPDATE locks each row and decides on it as it stands once locked: an outcome that arrived meanwhile is seen.
  const updated = await UPDATE_PAYMENTS.rows(tx, [
    items.map(({ paymentId, outcome, expiring }) => ({
      id: paymentId,
      ...outcomeColumns(outcome, services.processor),
      known_if_awaiting:
        !expiring && outcome.status === 'refused' && outcome.code === 'authentication_required',
    })),
    now,
  ]);
  const byId = new Map(updated.map((payment) => [payment.id, payment]));
  // The rest changed nothing (final already, or a refusal known): answered as they stand.
  const unchanged = ids.filter((id) => !byId.has(id));
  if (unchanged.length > 0) {
    for (const payment of await rows(tx, paymentRows().where('id', 'in', unchanged))) {
      byId.set(payment.id, payment);
    }
    for (const id of unchanged) if (!byId.has(id)) throw new Error(`No payment ${id}`);
  }

  await followOutcomes(tx, services, updated, now);
  const attempts: { source: string; declined: boolean }[] = [];
  for (const payment of updated) {
    const final = FINAL.includes(payment.status);
    // A card attempt of the Client API was counted as pending: an issuer decline keeps it, any end removes it.
    const card = payment.card_last4 === null ? null : { brand: payment.card_brand };
    if (isCardAttempt(payment.method, card) && payment.schedule_id === null && final) {
      const outcome = outcomes.get(payment.id)!;
      attempts.push({
        source: payment.id,
        declined: outcome.status === 'refused' && isIssuerDecline('card', outcome.code),
      });
    }
  }
  await settleCardAttempts(tx, attempts, now);
  return ids.map((id) => byId.get(id)!);
}

/**
 * What follows payments that have just reached their states, in the caller's transaction: a succeeded payment
 * completes its session, has its event and its settlement; a failed one its event; a scheduled payment that ended
 * ends its recurring charge. Card attempts are the caller's (how they were counted differs).
 */
export async function followOutcomes(
  tx: Queryable,
  services: OutcomeServices,
  changed: readonly PaymentRow[],
  now: Date,
  options: {
    /** A payment's tenant as the caller has them already, for its event; read when not given. */
    whoPaid?: (payment: PaymentRow) => PaymentEventUser | undefined;
    /** The caller's own statement completed the sessions of the payments that succeeded. */
    sessionsCompleted?: boolean;
  } = {},
): Promise<void> {
  const succeeded = changed.filter((payment) => payment.status === 'succeeded');
  const events: PaymentEventRecord[] = [];
  for (const payment of changed) {
    const who = options.whoPaid?.(payment);
    if (payment.status === 'succeeded') events.push({ type: 'payment_success', payment, who });
    // A recurring charge that waited for its tenant is not tried again.
    if (payment.status === 'failed') {
      events.push({
        type: 'payment_failed',
        payment,
        extra: payment.schedule_id ? { retry_on: null } : {},
        who,
      });
    }
  }
  if (!options.sessionsCompleted) {
    await completeSessions(
      tx,
      succeeded.map((payment) => payment.session_id),
      now,
    );
  }
  await recordPaymentEvents(tx, services.clock, events);
  await enqueueSettlement(
    tx,
    services.clock,
    services.processor,
    succeeded.map((payment) => payment.id),
  );
  for (const payment of changed) {
    if (payment.schedule_id && FINAL.includes(payment.status)) {
      await services.settleScheduledCharge(tx, payment, now);
    }
  }
}
