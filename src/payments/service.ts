import { type EventType, recordEvent } from '../events/record.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { ApiError, FieldValidationError } from '../platform/http/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueueJob } from '../platform/jobs/queue.ts';
import { formatPence } from '../platform/money.ts';
import {
  type PaymentProcessor,
  type PaymentStatus,
  type ProcessorOutcome,
  paymentStatusFor,
} from '../processors/processor.ts';
import type { ClientContext } from '../sessions/service.ts';
import { MAX_PURE_AMOUNT_PENCE, MIN_PURE_AMOUNT_PENCE, paymentAmounts } from './fees.ts';
import { type PaymentRow, paymentView } from './view.ts';

/** Payload `{payment_id}`: re-asks the processor about a payment left `processing` (a crash, a timeout). */
export const PAYMENT_RECONCILE_JOB = 'payment.reconcile';
/** Payload `{payment_id}`: at its session's expiry, withdraws a payment still waiting for the customer. */
export const PAYMENT_EXPIRE_JOB = 'payment.expire';
/** How long a payment may stay `processing` before the reconciliation job asks the processor again. */
export const RECONCILE_AFTER_MS = 2 * 60_000;

const FINAL: readonly PaymentStatus[] = ['succeeded', 'failed', 'canceled'];

export interface CreatePaymentInput {
  client: ClientContext;
  purePence: number;
  method: 'card';
  cardToken: string;
  reference: string | undefined;
  idempotencyKey: string;
}

export interface CreatePaymentResult {
  payment: PaymentRow;
  /** True when the idempotency key named a payment made before: nothing was charged this time. */
  replayed: boolean;
}

export interface RefundRow {
  id: string;
  payment_id: string;
  amount_pence: number;
  status: 'succeeded' | 'failed';
  created_at: Date | string;
}

export class PaymentService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
  ) {}

  /**
   * A payment from the Client API. The row is written (as `processing`) before the processor is called,
   * with the payment id as the processor's idempotency key, so a crash in between is healed by the
   * reconciliation job asking again with the same key instead of charging a second time.
   */
  async create(input: CreatePaymentInput): Promise<CreatePaymentResult> {
    const { session, integrator } = input.client;
    if (input.purePence < MIN_PURE_AMOUNT_PENCE || input.purePence > MAX_PURE_AMOUNT_PENCE) {
      throw new FieldValidationError({
        pure_amount: [
          `Enter an amount from ${formatPence(MIN_PURE_AMOUNT_PENCE)} to ${formatPence(MAX_PURE_AMOUNT_PENCE)}.`,
        ],
      });
    }
    const amounts = paymentAmounts(input.purePence, integrator.fees[input.method]);
    const earlier = await this.#byKey(session.id, input.idempotencyKey);
    if (earlier) return { payment: checkReplay(earlier, input), replayed: true };

    const card = await this.processor.describeToken(input.cardToken);
    if (!card)
      throw new FieldValidationError({ card_token: ['Unknown card token; tokenise the card again.'] });

    const id = newId('pay');
    const now = this.clock.now();
    const attempt = await this.db.transaction<{ raced: PaymentRow } | { inserted: PaymentRow }>(
      async (tx) => {
        // Attempts in one session queue on its row, so each check below sees every attempt committed before it.
        await tx.query('SELECT id FROM sessions WHERE id = $1 FOR UPDATE', [session.id]);
        const raced = await this.#byKey(session.id, input.idempotencyKey, tx);
        if (raced) return { raced };
        const [state] = await tx.query<{ completed: boolean; in_flight: string | null }>(
          `SELECT s.completed_at IS NOT NULL AS completed,
                (SELECT p.id FROM payments p
                  WHERE p.session_id = s.id AND p.status IN ('processing', 'requires_action') LIMIT 1) AS in_flight
           FROM sessions s WHERE s.id = $1`,
          [session.id],
        );
        if (state?.completed) {
          throw new ApiError(
            'conflict',
            'This session has already been paid; log in again for another payment.',
          );
        }
        // A second attempt under another key while one is with the processor, or waiting for 3DS that may
        // still be completed, could become a second charge.
        if (state?.in_flight) {
          throw new ApiError(
            'conflict',
            `Payment ${state.in_flight} of this session is waiting for authentication or being processed; ` +
              'complete it, or wait for its outcome, before paying again.',
          );
        }
        const [row] = await tx.query<PaymentRow>(
          `INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                               amount_pence, method, card_brand, card_last4, card_exp_month, card_exp_year, reference,
                               idempotency_key, processor, processor_token, created_at, updated_at)
         SELECT $1, s.integrator_id, s.id, s.user_id, s.tenancy_id, 'processing', $3, $4, $5, $6, $7, $8, $9, $10,
                COALESCE($11, t.payment_reference), $12, $13, $14, $15, $15
           FROM sessions s JOIN tenancies t ON t.id = s.tenancy_id
          WHERE s.id = $2
         RETURNING *`,
          [
            id,
            session.id,
            amounts.purePence,
            amounts.feePence,
            amounts.amountPence,
            input.method,
            card.brand,
            card.last4,
            card.exp_month,
            card.exp_year,
            input.reference ?? null,
            input.idempotencyKey,
            this.processor.name,
            input.cardToken,
            now,
          ],
        );
        await enqueueJob(
          tx,
          this.clock,
          PAYMENT_RECONCILE_JOB,
          { payment_id: id },
          { runAt: new Date(now.getTime() + RECONCILE_AFTER_MS), dedupeKey: `payment-reconcile:${id}` },
        );
        // A 3DS challenge nobody answers must not stay open past its session: a late answer would charge.
        await enqueueJob(
          tx,
          this.clock,
          PAYMENT_EXPIRE_JOB,
          { payment_id: id },
          { runAt: new Date(session.expires_at), dedupeKey: `payment-expire:${id}` },
        );
        return { inserted: row! };
      },
    );
    // Another request with the same key got in while we were looking up the card.
    if ('raced' in attempt) return { payment: checkReplay(attempt.raced, input), replayed: true };
    return { payment: await this.#authorise(attempt.inserted), replayed: false };
  }

  /**
   * Withdraws a payment waiting for the customer (the page's "cancel", or its session's expiry): the processor
   * first, so a late Authorise cannot charge, then our row. If the customer answered first, that outcome wins.
   */
  async cancel(paymentId: string): Promise<PaymentRow | undefined> {
    const [payment] = await this.db.query<PaymentRow>('SELECT * FROM payments WHERE id = $1', [paymentId]);
    if (payment?.status !== 'requires_action' || !payment.processor_payment_id) return payment;
    return this.applyOutcome(paymentId, await this.processor.cancel(payment.processor_payment_id));
  }

  async get(sessionId: string, paymentId: string): Promise<PaymentRow | undefined> {
    const [row] = await this.db.query<PaymentRow>(
      'SELECT * FROM payments WHERE id = $1 AND session_id = $2',
      [paymentId, sessionId],
    );
    return row;
  }

  /**
   * Moves a payment to where the processor says it is, with its event, in one transaction. Final states
   * stay final: a late or repeated notification changes nothing and records nothing.
   */
  async applyOutcome(paymentId: string, outcome: ProcessorOutcome): Promise<PaymentRow> {
    const status = paymentStatusFor(outcome);
    return this.db.transaction(async (tx) => {
      const [current] = await tx.query<PaymentRow>('SELECT * FROM payments WHERE id = $1 FOR UPDATE', [
        paymentId,
      ]);
      if (!current) throw new Error(`No payment ${paymentId}`);
      if (FINAL.includes(current.status)) return current;
      const now = this.clock.now();
      const [updated] = await tx.query<PaymentRow>(
        `UPDATE payments SET status = $2, processor_payment_id = COALESCE($3, processor_payment_id),
                next_action = $4::jsonb, failure_code = $5, failure_message = $6, updated_at = $7
          WHERE id = $1 RETURNING *`,
        [
          paymentId,
          status,
          outcome.processorPaymentId,
          outcome.status === 'action_required' ? { ...outcome.action } : null,
          outcome.status === 'refused' ? outcome.code : null,
          outcome.status === 'refused' ? outcome.message : null,
          now,
        ],
      );
      const payment = updated!;
      if (status === 'succeeded') {
        await tx.query('UPDATE sessions SET completed_at = COALESCE(completed_at, $2) WHERE id = $1', [
          payment.session_id,
          now,
        ]);
        await this.#recordPaymentEvent(tx, 'payment_success', payment);
      } else if (status === 'failed') {
        await this.#recordPaymentEvent(tx, 'payment_failed', payment);
      }
      return payment;
    });
  }

  /**
   * Operator refund, full (no amount) or partial, up to what is not refunded yet. The refund id is the
   * processor's idempotency key; the refund row, the payment's refunded total and `payment_refunded` commit together.
   */
  async refund(
    paymentId: string,
    amountPence: number | undefined,
  ): Promise<{ refund: RefundRow; payment: PaymentRow }> {
    const [payment] = await this.db.query<PaymentRow>('SELECT * FROM payments WHERE id = $1', [paymentId]);
    if (!payment) throw new ApiError('not_found', `No payment ${paymentId}.`);
    if (payment.status !== 'succeeded' || !payment.processor_payment_id) {
      throw new ApiError(
        'conflict',
        `Only a succeeded payment can be refunded; this one is ${payment.status}.`,
      );
    }
    const remaining = Number(payment.amount_pence) - Number(payment.refunded_pence);
    if (remaining <= 0) throw new ApiError('conflict', 'This payment has been refunded in full already.');
    const refundPence = amountPence ?? remaining;
    if (refundPence < 1 || refundPence > remaining) {
      throw new FieldValidationError({ amount: [`Enter an amount from 0.01 to ${formatPence(remaining)}.`] });
    }
    const refundId = newId('ref');
    const outcome = await this.processor.refund({
      idempotencyKey: refundId,
      processorPaymentId: payment.processor_payment_id,
      amountPence: refundPence,
    });
    if (outcome.status === 'refused') {
      throw new ApiError('conflict', `The processor refused the refund: ${outcome.message}`);
    }
    return this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const [refund] = await tx.query<RefundRow>(
        `INSERT INTO refunds (id, payment_id, amount_pence, status, created_at)
         VALUES ($1, $2, $3, 'succeeded', $4) RETURNING *`,
        [refundId, paymentId, refundPence, now],
      );
      const [updated] = await tx.query<PaymentRow>(
        'UPDATE payments SET refunded_pence = refunded_pence + $2, updated_at = $3 WHERE id = $1 RETURNING *',
        [paymentId, refundPence, now],
      );
      await this.#recordPaymentEvent(tx, 'payment_refunded', updated!);
      return { refund: refund!, payment: updated! };
    });
  }

  /** An acquirer's asynchronous notification, delivered through the job system. */
  async applyNotification(processorName: string, body: unknown): Promise<PaymentRow | undefined> {
    if (processorName !== this.processor.name)
      throw new Error(`Notification for unknown processor ${processorName}`);
    const notification = this.processor.parseNotification(body);
    if (!notification) return undefined;
    const [payment] = await this.db.query<{ id: string }>(
      'SELECT id FROM payments WHERE processor = $1 AND processor_payment_id = $2',
      [processorName, notification.processorPaymentId],
    );
    if (!payment) return undefined;
    return this.applyOutcome(payment.id, notification.outcome);
  }

  /** Asks the processor again about a payment still `processing`; the same idempotency key never charges twice. */
  async reconcile(paymentId: string): Promise<PaymentRow | undefined> {
    const [payment] = await this.db.query<PaymentRow>('SELECT * FROM payments WHERE id = $1', [paymentId]);
    if (payment?.status !== 'processing') return payment;
    return this.#authorise(payment, true);
  }

  async #authorise(payment: PaymentRow, rethrow = false): Promise<PaymentRow> {
    let outcome: ProcessorOutcome;
    try {
      outcome = await this.processor.authorise({
        idempotencyKey: payment.id,
        amountPence: Number(payment.amount_pence),
        currency: 'GBP',
        paymentToken: payment.processor_token,
        reference: payment.reference,
      });
    } catch (error) {
      // The payment stays `processing`; the reconciliation job asks again.
      if (rethrow) throw error;
      return payment;
    }
    return this.applyOutcome(payment.id, outcome);
  }

  async #byKey(
    sessionId: string,
    idempotencyKey: string,
    db: Queryable = this.db,
  ): Promise<PaymentRow | undefined> {
    const [row] = await db.query<PaymentRow>(
      'SELECT * FROM payments WHERE session_id = $1 AND idempotency_key = $2',
      [sessionId, idempotencyKey],
    );
    return row;
  }

  async #recordPaymentEvent(tx: Queryable, type: EventType, payment: PaymentRow): Promise<void> {
    const [who] = await tx.query<{ external_id: number; email: string; payment_reference: string }>(
      `SELECT u.external_id, u.email, t.payment_reference
         FROM users u JOIN tenancies t ON t.id = $2
        WHERE u.id = $1`,
      [payment.user_id, payment.tenancy_id],
    );
    await recordEvent(tx, this.clock, payment.integrator_id, type, {
      payment: paymentView(payment),
      user_id: Number(who!.external_id),
      email: who!.email,
      payment_reference: who!.payment_reference,
    });
  }
}

function checkReplay(earlier: PaymentRow, input: CreatePaymentInput): PaymentRow {
  if (Number(earlier.pure_amount_pence) !== input.purePence || earlier.method !== input.method) {
    throw new ApiError(
      'idempotency_mismatch',
      `Idempotency key "${input.idempotencyKey}" was used for payment ${earlier.id} of ${formatPence(
        Number(earlier.pure_amount_pence),
      )} by ${earlier.method}; use a new key for a different payment.`,
    );
  }
  return earlier;
}
