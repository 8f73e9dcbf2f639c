import type { Static } from 'typebox';
import { assertSavedCardsEnabled, SavedCardService, UNKNOWN_CARD_TOKEN } from '../cards/service.ts';
import type { SavedCardRow } from '../cards/view.ts';
import {
  APM_METHODS,
  hasFeature,
  type Integrator,
  type PaymentMethod,
  WALLET_METHODS,
} from '../integrators/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { ApiError, FieldValidationError } from '../platform/http/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueueJob } from '../platform/jobs/queue.ts';
import { formatPence } from '../platform/money.ts';
import {
  type CardDetails,
  type PaymentProcessor,
  type PaymentStatus,
  type ProcessorOutcome,
  paymentStatusFor,
  type RefundOutcome,
} from '../processors/processor.ts';
import { type ClientContext, checkSessionAmount } from '../sessions/service.ts';
import type { PaymentEventData, RefundEventView } from '../webhooks/event-schemas.ts';
import { type EventType, recordEvent } from '../webhooks/record-event.ts';
import {
  assertCardAttemptsLeft,
  declineOwner,
  isIssuerDecline,
  reserveCardAttempt,
  settleCardAttempt,
} from './card-testing.ts';
import { checkPureAmount, type PaymentAmounts, paymentAmounts } from './fees.ts';
import { type PaymentRow, paymentView } from './view.ts';

/** Payload `{payment_id}`: re-asks the processor about a payment left `processing` (a crash, a timeout). */
export const PAYMENT_RECONCILE_JOB = 'payment.reconcile';
/** Payload `{payment_id}`: at its session's expiry, withdraws a payment still waiting for the customer. */
export const PAYMENT_EXPIRE_JOB = 'payment.expire';
/** How long a payment may stay `processing` before the reconciliation job asks the processor again. */
export const RECONCILE_AFTER_MS = 2 * 60_000;
/** Payload `{refund_id}`: finishes a refund left `pending` (the processor's answer was lost, or the process died). */
export const PAYMENT_REFUND_JOB = 'payment.refund';
/** How long a refund may stay `pending` before its job asks the processor again (with the same key). */
export const REFUND_RETRY_AFTER_MS = 2 * 60_000;

const FINAL: readonly PaymentStatus[] = ['succeeded', 'failed', 'canceled'];

/**
 * What pays: a new card's token or a saved card (method card), a wallet sheet's token (apple_pay,
 * google_pay), or nothing (APMs: the customer approves at the provider).
 */
export type PaymentSource =
  | { type: 'card_token'; token: string }
  | { type: 'saved_card'; cardId: string }
  | { type: 'wallet_token'; token: string }
  | { type: 'confirmation_token'; token: string }
  | { type: 'none' };

export interface CreatePaymentInput {
  client: ClientContext;
  purePence: number;
  method: PaymentMethod;
  source: PaymentSource;
  reference: string | undefined;
  idempotencyKey: string;
  /** The total (pure amount plus the method's fee) the customer was shown; another total is 409 amount_changed. */
  expectedAmountPence?: number;
}

/** A payment source resolved at the processor: its token, the card's display details, the saved card. */
interface ResolvedSource {
  processorToken: string | null;
  card: CardDetails | null;
  savedCardId: string | null;
}

/** The outcome of an acquirer notification: the payment, or the saved card whose check it was about. */
export type NotificationResult =
  | { kind: 'payment'; payment: PaymentRow }
  | { kind: 'saved_card'; card: SavedCardRow }
  | undefined;

export interface CreatePaymentResult {
  payment: PaymentRow;
  /** True when the idempotency key named a payment made before: nothing was charged this time. */
  replayed: boolean;
}

export type RefundStatus = 'pending' | 'succeeded' | 'failed';

export interface RefundRow {
  id: string;
  payment_id: string;
  amount_pence: number;
  status: RefundStatus;
  /** The operator's Idempotency-Key, if the request sent one. */
  idempotency_key: string | null;
  /** What the request asked for; null for "everything left". */
  requested_pence: number | null;
  failure_code: string | null;
  failure_message: string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

export interface RefundResult {
  refund: RefundRow;
  payment: PaymentRow;
  /** True when the idempotency key named a refund asked for before: nothing new was refunded. */
  replayed: boolean;
}

export class PaymentService {
  /** The user's saved cards: paid with here, and their 3DS checks end through the same notifications. */
  readonly cards: SavedCardService;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
  ) {
    this.cards = new SavedCardService(db, clock, processor);
  }

  /**
   * A payment from the Client API. The row is written (as `processing`) before the processor is called,
   * with the payment id as the processor's idempotency key, so a crash in between is healed by the
   * reconciliation job asking again with the same key instead of charging a second time.
   */
  async create(input: CreatePaymentInput): Promise<CreatePaymentResult> {
    const { session, integrator } = input.client;
    checkPureAmount(input.purePence);
    checkSessionAmount(session, input.purePence);
    const amounts = paymentAmounts(input.purePence, integrator.fees[input.method]);
    const earlier = await this.#byKey(session.id, input.idempotencyKey);
    if (earlier) return { payment: checkReplay(earlier, input), replayed: true };
    if (input.expectedAmountPence !== undefined && input.expectedAmountPence !== amounts.amountPence) {
      throw amountChanged(input.expectedAmountPence, amounts);
    }
    await assertCardAttemptsLeft(this.db, declineOwner(input.client), session, this.clock.now());

    checkFeatures(integrator, input);
    const source = await this.#resolve(input);

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
        // Checked again with the user's attempts queued, and this one counted until the issuer has answered.
        if (isCardAttempt(input.method, source.card)) {
          await reserveCardAttempt(tx, declineOwner(input.client), session, id, now);
        }
        const [row] = await tx.query<PaymentRow>(
          `INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                               amount_pence, method, card_brand, card_last4, card_exp_month, card_exp_year, reference,
                               idempotency_key, processor, processor_token, saved_card_id, created_at, updated_at)
         SELECT $1, s.integrator_id, s.id, s.user_id, s.tenancy_id, 'processing', $3, $4, $5, $6, $7, $8, $9, $10,
                COALESCE($11, t.payment_reference), $12, $13, $14, $15, $16, $16
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
            source.card?.brand ?? null,
            source.card?.last4 ?? null,
            source.card?.exp_month ?? null,
            source.card?.exp_year ?? null,
            input.reference ?? null,
            input.idempotencyKey,
            this.processor.name,
            source.processorToken,
            source.savedCardId,
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
        // A 3DS challenge or APM page nobody answers must not stay open past its session: a late answer would charge.
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

  /**
   * A payment still waiting (3DS, an APM, processing) as the processor has it now, when the processor can say
   * (readsOutcomeOnPoll); otherwise, or when it cannot be reached, as stored.
   */
  async refreshWaiting(payment: PaymentRow): Promise<PaymentRow> {
    if (
      !this.processor.readsOutcomeOnPoll ||
      FINAL.includes(payment.status) ||
      !payment.processor_payment_id
    ) {
      return payment;
    }
    let outcome: ProcessorOutcome;
    try {
      outcome = await this.processor.complete(payment.processor_payment_id);
    } catch {
      return payment;
    }
    return this.applyOutcome(payment.id, outcome);
  }

  /** The payment that completed the session, if one has. */
  async succeededInSession(sessionId: string): Promise<PaymentRow | undefined> {
    const [row] = await this.db.query<PaymentRow>(
      "SELECT * FROM payments WHERE session_id = $1 AND status = 'succeeded' ORDER BY created_at LIMIT 1",
      [sessionId],
    );
    return row;
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
      // A card attempt of the Client API was counted as pending: an issuer decline keeps it, any end removes it.
      const card = payment.card_last4 === null ? null : { brand: payment.card_brand };
      if (isCardAttempt(payment.method, card) && payment.schedule_id === null && FINAL.includes(status)) {
        const declined = outcome.status === 'refused' && isIssuerDecline('card', outcome.code);
        await settleCardAttempt(tx, payment.id, declined, now);
      }
      return payment;
    });
  }

  /**
   * Operator refund, full (no amount) or partial, up to what is neither refunded nor being refunded. The refund
   * is written `pending` with its job before the processor is asked (the refund id is the processor's
   * idempotency key), so a crash in between is healed by the job asking again instead of being lost; the
   * answer is applied once, with the payment's refunded total and `payment_refunded`. With an idempotency key,
   * a retried request is the same refund. If the processor cannot be reached, the refund stays `pending`.
   */
  async refund(
    paymentId: string,
    amountPence: number | undefined,
    idempotencyKey?: string,
  ): Promise<RefundResult> {
    const { refund, replayed } = await this.beginRefund(paymentId, amountPence, idempotencyKey);
    const finished = await this.finishRefund(refund.id, false);
    return { ...finished, replayed };
  }

  /**
   * The first step of a refund, in one transaction: the payment row locked, what is left checked, the refund
   * inserted as `pending` and its job enqueued. A known idempotency key answers its refund instead.
   */
  async beginRefund(
    paymentId: string,
    amountPence: number | undefined,
    idempotencyKey?: string,
  ): Promise<{ refund: RefundRow; replayed: boolean }> {
    return this.db.transaction(async (tx) => {
      // Refunds of one payment queue on its row, so each sees every refund committed before it.
      const [payment] = await tx.query<PaymentRow>('SELECT * FROM payments WHERE id = $1 FOR UPDATE', [
        paymentId,
      ]);
      if (!payment) throw new ApiError('not_found', `No payment ${paymentId}.`);
      if (idempotencyKey !== undefined) {
        const [earlier] = await tx.query<RefundRow>(
          'SELECT * FROM refunds WHERE payment_id = $1 AND idempotency_key = $2',
          [paymentId, idempotencyKey],
        );
        if (earlier)
          return { refund: checkRefundReplay(earlier, amountPence, idempotencyKey), replayed: true };
      }
      if (payment.status !== 'succeeded' || !payment.processor_payment_id) {
        throw new ApiError(
          'conflict',
          `Only a succeeded payment can be refunded; this one is ${payment.status}.`,
        );
      }
      const [pending] = await tx.query<{ pence: string | number }>(
        "SELECT COALESCE(sum(amount_pence), 0) AS pence FROM refunds WHERE payment_id = $1 AND status = 'pending'",
        [paymentId],
      );
      const pendingPence = Number(pending?.pence ?? 0);
      const remaining = Number(payment.amount_pence) - Number(payment.refunded_pence) - pendingPence;
      if (remaining <= 0) {
        throw new ApiError(
          'conflict',
          pendingPence > 0
            ? 'The rest of this payment is being refunded already; see its pending refund.'
            : 'This payment has been refunded in full already.',
        );
      }
      const refundPence = amountPence ?? remaining;
      if (refundPence < 1 || refundPence > remaining) {
        throw new FieldValidationError({
          amount: [`Enter an amount from 0.01 to ${formatPence(remaining)}.`],
        });
      }
      const id = newId('ref');
      const now = this.clock.now();
      const [refund] = await tx.query<RefundRow>(
        `INSERT INTO refunds (id, payment_id, amount_pence, status, idempotency_key, requested_pence, created_at,
                              updated_at)
         VALUES ($1, $2, $3, 'pending', $4, $5, $6, $6) RETURNING *`,
        [id, paymentId, refundPence, idempotencyKey ?? null, amountPence ?? null, now],
      );
      await enqueueJob(
        tx,
        this.clock,
        PAYMENT_REFUND_JOB,
        { refund_id: id },
        { runAt: new Date(now.getTime() + REFUND_RETRY_AFTER_MS), dedupeKey: `payment-refund:${id}` },
      );
      return { refund: refund!, replayed: false };
    });
  }

  /**
   * Asks the processor about a `pending` refund (again, with the refund id as the key: it never refunds twice)
   * and applies the answer. A finished refund is answered as it is. When the processor cannot be reached, the
   * refund stays `pending` (or, with `rethrow`, the error goes up, so the job is retried).
   */
  async finishRefund(refundId: string, rethrow = true): Promise<{ refund: RefundRow; payment: PaymentRow }> {
    const [row] = await this.db.query<RefundRow & { processor_payment_id: string }>(
      `SELECT r.*, p.processor_payment_id FROM refunds r JOIN payments p ON p.id = r.payment_id
        WHERE r.id = $1`,
      [refundId],
    );
    if (!row) throw new Error(`No refund ${refundId}`);
    if (row.status !== 'pending') return this.#refundWithPayment(this.db, refundId);
    let outcome: RefundOutcome;
    try {
      outcome = await this.processor.refund({
        idempotencyKey: row.id,
        processorPaymentId: row.processor_payment_id,
        amountPence: Number(row.amount_pence),
      });
    } catch (error) {
      if (rethrow) throw error;
      return this.#refundWithPayment(this.db, refundId);
    }
    return this.applyRefundOutcome(refundId, outcome);
  }

  /**
   * Moves a `pending` refund to where the processor says it is, once: `succeeded` adds to the payment's refunded
   * total and records `payment_refunded` in the same transaction; `failed` keeps the processor's reason.
   */
  async applyRefundOutcome(
    refundId: string,
    outcome: RefundOutcome,
  ): Promise<{ refund: RefundRow; payment: PaymentRow }> {
    return this.db.transaction(async (tx) => {
      // The payment first, then the refund: the order beginRefund takes them in.
      await tx.query(
        'SELECT p.id FROM payments p JOIN refunds r ON r.payment_id = p.id WHERE r.id = $1 FOR UPDATE OF p',
        [refundId],
      );
      const [current] = await tx.query<RefundRow>('SELECT * FROM refunds WHERE id = $1 FOR UPDATE', [
        refundId,
      ]);
      if (!current) throw new Error(`No refund ${refundId}`);
      if (current.status !== 'pending') return this.#refundWithPayment(tx, refundId);
      const now = this.clock.now();
      if (outcome.status === 'refused') {
        await tx.query(
          `UPDATE refunds SET status = 'failed', failure_code = $2, failure_message = $3, updated_at = $4
            WHERE id = $1`,
          [refundId, outcome.code, outcome.message, now],
        );
        return this.#refundWithPayment(tx, refundId);
      }
      const [refund] = await tx.query<RefundRow>(
        "UPDATE refunds SET status = 'succeeded', updated_at = $2 WHERE id = $1 RETURNING *",
        [refundId, now],
      );
      const [payment] = await tx.query<PaymentRow>(
        'UPDATE payments SET refunded_pence = refunded_pence + $2, updated_at = $3 WHERE id = $1 RETURNING *',
        [current.payment_id, current.amount_pence, now],
      );
      await this.#recordPaymentEvent(tx, 'payment_refunded', payment!, { refund: refundEventView(refund!) });
      return { refund: refund!, payment: payment! };
    });
  }

  async #refundWithPayment(
    db: Queryable,
    refundId: string,
  ): Promise<{ refund: RefundRow; payment: PaymentRow }> {
    const [refund] = await db.query<RefundRow>('SELECT * FROM refunds WHERE id = $1', [refundId]);
    const [payment] = await db.query<PaymentRow>('SELECT * FROM payments WHERE id = $1', [
      refund!.payment_id,
    ]);
    return { refund: refund!, payment: payment! };
  }

  /**
   * An acquirer's asynchronous notification, delivered through the job system: about a payment (3DS, an
   * APM), or else about the check of a card being saved.
   */
  async applyNotification(processorName: string, body: unknown): Promise<NotificationResult> {
    if (processorName !== this.processor.name)
      throw new Error(`Notification for unknown processor ${processorName}`);
    const notification = this.processor.parseNotification(body);
    if (!notification) return undefined;
    const [payment] = await this.db.query<{ id: string }>(
      'SELECT id FROM payments WHERE processor = $1 AND processor_payment_id = $2',
      [processorName, notification.processorPaymentId],
    );
    if ('refundedTotalPence' in notification) {
      return (
        payment && { kind: 'payment', payment: await this.recordProcessorRefunds(payment.id, notification) }
      );
    }
    if (payment) {
      const applied = await this.applyOutcome(payment.id, notification.outcome);
      if (notification.outcome.status === 'refused') {
        await this.processor.discardFailed?.(notification.processorPaymentId);
      }
      return { kind: 'payment', payment: applied };
    }
    const card = await this.cards.applySetupOutcome(notification.processorPaymentId, notification.outcome);
    return card && { kind: 'saved_card', card };
  }

  /**
   * The processor says it has refunded `refundedTotalPence` of the payment in all. What rentpay neither recorded
   * nor is still asking for (a refund made in the processor's dashboard) is recorded once, as a `succeeded`
   * refund with its `payment_refunded`; our own refunds' notifications change nothing.
   */
  async recordProcessorRefunds(
    paymentId: string,
    notification: { refundedTotalPence: number },
  ): Promise<PaymentRow> {
    return this.db.transaction(async (tx) => {
      const [payment] = await tx.query<PaymentRow>('SELECT * FROM payments WHERE id = $1 FOR UPDATE', [
        paymentId,
      ]);
      const [pending] = await tx.query<{ pence: string }>(
        "SELECT COALESCE(sum(amount_pence), 0) AS pence FROM refunds WHERE payment_id = $1 AND status = 'pending'",
        [paymentId],
      );
      const known = Number(payment!.refunded_pence) + Number(pending!.pence);
      const outside = Math.min(
        notification.refundedTotalPence - known,
        Number(payment!.amount_pence) - Number(payment!.refunded_pence),
      );
      if (outside < 1) return payment!;
      const now = this.clock.now();
      const [refund] = await tx.query<RefundRow>(
        `INSERT INTO refunds (id, payment_id, amount_pence, status, idempotency_key, requested_pence, created_at,
                              updated_at)
         VALUES ($1, $2, $3, 'succeeded', NULL, $3, $4, $4) RETURNING *`,
        [newId('ref'), paymentId, outside, now],
      );
      const [updated] = await tx.query<PaymentRow>(
        'UPDATE payments SET refunded_pence = refunded_pence + $2, updated_at = $3 WHERE id = $1 RETURNING *',
        [paymentId, outside, now],
      );
      await this.#recordPaymentEvent(tx, 'payment_refunded', updated!, { refund: refundEventView(refund!) });
      return updated!;
    });
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
        userId: payment.user_id,
        metadata: {
          payment_id: payment.id,
          session_id: payment.session_id,
          integrator_id: payment.integrator_id,
        },
        amountPence: Number(payment.amount_pence),
        currency: 'GBP',
        method: payment.method,
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

  async #resolve({ client, method, source }: CreatePaymentInput): Promise<ResolvedSource> {
    switch (source.type) {
      case 'none':
        return { processorToken: null, card: null, savedCardId: null };
      case 'saved_card': {
        const saved = await this.cards.payable(client, source.cardId);
        if (!saved) throw new FieldValidationError({ saved_card_id: ['Unknown saved card.'] });
        return {
          processorToken: saved.processor_token,
          card: {
            brand: saved.brand,
            last4: saved.last4,
            exp_month: saved.exp_month,
            exp_year: saved.exp_year,
          },
          savedCardId: saved.id,
        };
      }
      case 'confirmation_token': {
        const preview = await this.processor.previewConfirmationToken?.(source.token, method);
        if (!preview) {
          throw new FieldValidationError({
            confirmation_token: ['Unknown confirmation token; collect the payment details again.'],
          });
        }
        if (!preview.ok) throw new FieldValidationError({ method: [preview.message] });
        return { processorToken: source.token, card: preview.card, savedCardId: null };
      }
      case 'card_token':
      case 'wallet_token': {
        const card = await this.processor.describeToken(source.token, method);
        if (card) return { processorToken: source.token, card, savedCardId: null };
        throw new FieldValidationError(
          source.type === 'card_token'
            ? { card_token: [UNKNOWN_CARD_TOKEN] }
            : { wallet_token: ['Unknown wallet token; open the wallet sheet again.'] },
        );
      }
    }
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

  #recordPaymentEvent(
    tx: Queryable,
    type: EventType,
    payment: PaymentRow,
    extra: Record<string, unknown> = {},
  ): Promise<void> {
    return recordPaymentEvent(tx, this.clock, type, payment, extra);
  }
}

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

/**
 * Whether an attempt counts against the card-testing limits: a card (new or saved), or with Stripe a UnionPay
 * card (`unionpay` there is a card brand; in the sandbox it is a provider's page and has no card).
 */
function isCardAttempt(method: PaymentMethod, card: { brand: string | null } | null): boolean {
  return method === 'card' || (method === 'unionpay' && card !== null);
}

/** The integrator's features (operator setting) decide which methods and sources a payment may use. */
function checkFeatures(integrator: Integrator, input: CreatePaymentInput): void {
  const method: string = input.method;
  if (
    ((APM_METHODS as readonly string[]).includes(method) && !hasFeature(integrator, 'apms')) ||
    ((WALLET_METHODS as readonly string[]).includes(method) && !hasFeature(integrator, 'wallets'))
  ) {
    throw new FieldValidationError({ method: ['This payment method is not enabled for this integration.'] });
  }
  if (input.source.type === 'saved_card') assertSavedCardsEnabled(integrator);
}

/** 409 amount_changed with a fresh quote: the total shown to the customer is not the one that would be charged. */
function amountChanged(expectedPence: number, amounts: PaymentAmounts): ApiError {
  return new ApiError(
    'amount_changed',
    `The total is now ${formatPence(amounts.amountPence)}, not ${formatPence(expectedPence)} (the fee changed); ` +
      'nothing was charged. Show the new total to the customer and pay again with it as expected_amount.',
    {},
    {
      quote: {
        pure_amount: formatPence(amounts.purePence),
        fee: formatPence(amounts.feePence),
        amount: formatPence(amounts.amountPence),
      },
    },
  );
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

/** A replay of a refund request: the same key must ask for the same amount (or again for "everything left"). */
function checkRefundReplay(earlier: RefundRow, amountPence: number | undefined, key: string): RefundRow {
  const same =
    amountPence === undefined
      ? earlier.requested_pence === null
      : amountPence === Number(earlier.amount_pence);
  if (!same) {
    throw new ApiError(
      'idempotency_mismatch',
      `Idempotency key "${key}" was used for refund ${earlier.id} of ${formatPence(
        Number(earlier.amount_pence),
      )}${earlier.requested_pence === null ? ' (everything left)' : ''}; use a new key for a different refund.`,
    );
  }
  return earlier;
}

/** The refund as `payment_refunded` carries it, beside the payment's keys. */
export function refundEventView(refund: RefundRow): Static<typeof RefundEventView> {
  return {
    refund_id: refund.id,
    amount: formatPence(Number(refund.amount_pence)),
    status: refund.status,
    created_at: new Date(refund.created_at).toISOString(),
  };
}
