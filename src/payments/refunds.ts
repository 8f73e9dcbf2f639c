import type { NotNull, Selectable } from 'kysely';
import type { Static } from 'typebox';
import { type Actor, actsForOperator, requirePermission } from '../audit/actor.ts';
import { recordAudit } from '../audit/log.ts';
import { paidOutHeld } from '../payouts/paid-out.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import type { RefundsTable } from '../platform/db/tables.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueue } from '../platform/jobs/define.ts';
import type { PaymentProcessor, ProcessorRefundUpdate, RefundOutcome } from '../processors/processor.ts';
import { formatPence } from '../shared/money.ts';
import type { RefundEventView } from './events.ts';
import { recordPaymentEvent } from './events.ts';
import { paymentRefundJob, REFUND_RETRY_AFTER_MS } from './jobs/payment-refund.ts';
import { paymentRows, paymentUpdate } from './rows.ts';
import type { PaymentRow } from './view.ts';

export type RefundStatus = RefundsTable['status'];

/**
 * A refunds row. `idempotency_key`: the operator's Idempotency-Key, if the request sent one; `requested_pence`: what
 * the request asked for, null for "everything left".
 */
export type RefundRow = Selectable<RefundsTable>;

export interface RefundResult {
  refund: RefundRow;
  payment: PaymentRow;
  /** True when the idempotency key named a refund asked for before: nothing new was refunded. */
  replayed: boolean;
}

/** Refunds of succeeded payments: the operator's and integrator's, and those made in the processor's dashboard. */
export class RefundService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
  ) {}

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
    idempotencyKey: string | undefined,
    actor: Actor,
  ): Promise<RefundResult> {
    const { refund, replayed } = await this.beginRefund(paymentId, amountPence, idempotencyKey, actor);
    const finished = await this.finishRefund(refund.id, false);
    return { ...finished, replayed };
  }

  /**
   * The first step of a refund, in one transaction: the payment row locked, what is left checked, the refund
   * inserted as `pending` and its job enqueued. A known idempotency key answers its refund instead. An integrator's
   * refund of a payment in a confirmed payout is refused (`paid_out`): the rent has reached the landlord, and only
   * the operator, who carries the negative into the next payout, may take it back. The refund is audited as the
   * actor's, in the same transaction.
   */
  async beginRefund(
    paymentId: string,
    amountPence: number | undefined,
    idempotencyKey: string | undefined,
    actor: Actor,
  ): Promise<{ refund: RefundRow; replayed: boolean }> {
    requirePermission(actor, 'refunds.create');
    return this.db.transaction(async (tx) => {
      const paidOut = !actsForOperator(actor) && (await paidOutHeld(tx, paymentId));
      // Refunds of one payment queue on its row, so each sees every refund committed before it.
      const payment = await firstRow(tx, paymentRows().where('id', '=', paymentId).forUpdate());
      if (!payment) throw new ServiceError('not_found', `No payment ${paymentId}.`);
      if (idempotencyKey !== undefined) {
        const earlier = await firstRow(
          tx,
          refunds().where('payment_id', '=', paymentId).where('idempotency_key', '=', idempotencyKey),
        );
        if (earlier)
          return { refund: checkRefundReplay(earlier, amountPence, idempotencyKey), replayed: true };
      }
      assertSucceeded(payment);
      if (paidOut) throw paidOutRefusal(paymentId, actor);
      const { refundPence } = refundAmount(payment, await pendingRefundPence(tx, paymentId), amountPence);
      const id = newId('ref');
      const now = this.clock.now();
      const refund = await insertRefund(tx, {
        id,
        payment_id: paymentId,
        amount_pence: refundPence,
        status: 'pending',
        idempotency_key: idempotencyKey ?? null,
        requested_pence: amountPence ?? null,
        created_at: now,
      });
      await enqueue(
        tx,
        this.clock,
        paymentRefundJob,
        { refund_id: id },
        { runAt: new Date(now.getTime() + REFUND_RETRY_AFTER_MS) },
      );
      await recordAudit(tx, this.clock, actor, {
        scope: payment.integrator_id,
        action: 'payment.refund',
        target: { type: 'payment', id: paymentId },
        before: { refunded: formatPence(Number(payment.refunded_pence)) },
        after: { refund_id: id, amount: formatPence(refundPence) },
      });
      return { refund, replayed: false };
    });
  }

  /**
   * Asks the processor about a `pending` refund (again, with the refund id as the key: it never refunds twice)
   * and applies the answer. A finished refund is answered as it is. When the processor cannot be reached, the
   * refund stays `pending` (or, with `rethrow`, the error goes up, so the job is retried).
   */
  async finishRefund(refundId: string, rethrow = true): Promise<{ refund: RefundRow; payment: PaymentRow }> {
    const row = await firstRow(
      this.db,
      qb
        .selectFrom('refunds as r')
        .innerJoin('payments as p', 'p.id', 'r.payment_id')
        .selectAll('r')
        .select('p.processor_payment_id')
        .where('r.id', '=', refundId)
        // Only a payment the processor took is refunded (beginRefund checks it), so it has the processor's id.
        .$narrowType<{ processor_payment_id: NotNull }>(),
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
    // Asked by the job, the refund's request was answered `pending` long ago: a failure now is announced.
    return this.applyRefundOutcome(refundId, outcome, rethrow);
  }

  /**
   * Moves a `pending` refund to where the processor says it is, once: `succeeded` adds to the payment's refunded
   * total and records `payment_refunded` in the same transaction; `failed` keeps the processor's reason (and with
   * `announceFailure`, for a refund whose request was answered `pending`, records `refund_failed`); `pending` (the
   * processor accepted it and its event will say how it ends) only keeps the processor's id of it.
   */
  async applyRefundOutcome(
    refundId: string,
    outcome: RefundOutcome,
    announceFailure = false,
  ): Promise<{ refund: RefundRow; payment: PaymentRow }> {
    return this.db.transaction(async (tx) => {
      const current = await lockRefund(tx, refundId);
      if (!current) throw new Error(`No refund ${refundId}`);
      if (current.status !== 'pending') return this.#refundWithPayment(tx, refundId);
      const now = this.clock.now();
      if (outcome.status === 'pending') {
        await tx.query(
          'UPDATE refunds SET processor_refund_id = COALESCE(processor_refund_id, $2), updated_at = $3 WHERE id = $1',
          [refundId, outcome.processorRefundId, now],
        );
        return this.#refundWithPayment(tx, refundId);
      }
      if (outcome.status === 'refused') {
        const failed = await firstRow(
          tx,
          refundUpdate()
            .set({
              status: 'failed',
              failure_code: outcome.code,
              failure_message: outcome.message,
              updated_at: now,
            })
            .where('id', '=', refundId),
        );
        const done = await this.#refundWithPayment(tx, refundId);
        if (announceFailure) {
          await recordPaymentEvent(tx, this.clock, 'refund_failed', done.payment, {
            refund: refundEventView(failed!),
          });
        }
        return done;
      }
      const refund = await firstRow(
        tx,
        refundUpdate()
          .set((eb) => ({
            status: 'succeeded',
            processor_refund_id: eb.fn.coalesce(
              'processor_refund_id',
              eb.val(outcome.processorRefundId ?? null),
            ),
            updated_at: now,
          }))
          .where('id', '=', refundId),
      );
      const payment = await changeRefunded(tx, current.payment_id, '+', current.amount_pence, now);
      await recordPaymentEvent(tx, this.clock, 'payment_refunded', payment, {
        refund: refundEventView(refund!),
      });
      return { refund: refund!, payment };
    });
  }

  /**
   * The processor's event about one of our refunds (found by the processor's id, or by ours it echoes back): a
   * pending one finishes or fails (`refund_failed`); a succeeded one that failed after all (the card was closed) is
   * reversed: `failed`, the payment's refunded total lowered again, `refund_failed` recorded, and a payout that had
   * deducted its rent gives it back in the next run. Anything else changes nothing. Returns the payment when the
   * refund is ours.
   */
  async applyProcessorRefund(
    update: ProcessorRefundUpdate,
    paymentId: string | undefined,
  ): Promise<PaymentRow | undefined> {
    const refund = await firstRow(
      this.db,
      refunds().where((eb) =>
        eb.or([
          eb('processor_refund_id', '=', update.processorRefundId),
          eb.and([
            eb('processor_refund_id', 'is', null),
            eb('id', '=', eb.val(update.refundId ?? null)),
            eb('payment_id', '=', eb.val(paymentId ?? null)),
          ]),
        ]),
      ),
    );
    if (!refund) return undefined;
    if (refund.status === 'pending') {
      const outcome: RefundOutcome =
        update.status === 'succeeded'
          ? { status: 'refunded', processorRefundId: update.processorRefundId }
          : update.status === 'failed'
            ? {
                status: 'refused',
                code: update.failureCode ?? 'refund_failed',
                message: refundFailedMessage(update),
              }
            : { status: 'pending', processorRefundId: update.processorRefundId };
      return (await this.applyRefundOutcome(refund.id, outcome, true)).payment;
    }
    if (refund.status === 'succeeded' && update.status === 'failed') return this.#reverse(refund.id, update);
    return (await this.#refundWithPayment(this.db, refund.id)).payment;
  }

  async #reverse(refundId: string, update: ProcessorRefundUpdate): Promise<PaymentRow> {
    return this.db.transaction(async (tx) => {
      const current = await lockRefund(tx, refundId);
      if (current?.status !== 'succeeded') return (await this.#refundWithPayment(tx, refundId)).payment;
      const now = this.clock.now();
      const refund = await firstRow(
        tx,
        refundUpdate()
          .set((eb) => ({
            status: 'failed',
            failure_code: update.failureCode ?? 'refund_failed',
            failure_message: refundFailedMessage(update),
            reversed_at: now,
            processor_refund_id: eb.fn.coalesce('processor_refund_id', eb.val(update.processorRefundId)),
            updated_at: now,
          }))
          .where('id', '=', refundId),
      );
      const payment = await changeRefunded(tx, current.payment_id, '-', current.amount_pence, now);
      await recordPaymentEvent(tx, this.clock, 'refund_failed', payment, {
        refund: refundEventView(refund!),
      });
      return payment;
    });
  }

  /** A payment's refunds, oldest first (every status: pending, succeeded, failed). */
  forPayment(paymentId: string): Promise<RefundRow[]> {
    return rows(this.db, refunds().where('payment_id', '=', paymentId).orderBy('created_at').orderBy('id'));
  }

  async #refundWithPayment(
    db: Queryable,
    refundId: string,
  ): Promise<{ refund: RefundRow; payment: PaymentRow }> {
    const refund = await firstRow(db, refunds().where('id', '=', refundId));
    const payment = await firstRow(db, paymentRows().where('id', '=', refund!.payment_id));
    return { refund: refund!, payment: payment! };
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
      const payment = await firstRow(tx, paymentRows().where('id', '=', paymentId).forUpdate());
      const known = Number(payment!.refunded_pence) + (await pendingRefundPence(tx, paymentId));
      const outside = Math.min(
        notification.refundedTotalPence - known,
        Number(payment!.amount_pence) - Number(payment!.refunded_pence),
      );
      if (outside < 1) return payment!;
      const now = this.clock.now();
      const refund = await insertRefund(tx, {
        id: newId('ref'),
        payment_id: paymentId,
        amount_pence: outside,
        status: 'succeeded',
        idempotency_key: null,
        requested_pence: outside,
        created_at: now,
      });
      const updated = await changeRefunded(tx, paymentId, '+', outside, now);
      await recordPaymentEvent(tx, this.clock, 'payment_refunded', updated, {
        refund: refundEventView(refund),
      });
      return updated;
    });
  }
}

/** What is left to refund of a payment: neither refunded nor being refunded (pending). */
function leftToRefund(payment: PaymentRow, pendingPence: number): number {
  return Number(payment.amount_pence) - Number(payment.refunded_pence) - pendingPence;
}

/** What can still be refunded of a payment with these refunds: 0 unless it succeeded. */
export function refundablePence(payment: PaymentRow, refunds: readonly RefundRow[]): number {
  if (payment.status !== 'succeeded') return 0;
  const pending = refunds
    .filter((r) => r.status === 'pending')
    .reduce((sum, r) => sum + Number(r.amount_pence), 0);
  return Math.max(0, leftToRefund(payment, pending));
}

/** Refuses (409 conflict) a refund of a payment that did not succeed. */
export function assertSucceeded(payment: PaymentRow): void {
  if (payment.status !== 'succeeded' || !payment.processor_payment_id) {
    throw new ServiceError(
      'conflict',
      `Only a succeeded payment can be refunded; this one is ${payment.status}.`,
    );
  }
}

/** The refusal of a refund by an integrator (its token or its people) once the rent is in a confirmed payout. */
export function paidOutRefusal(paymentId: string, actor: Actor): ServiceError {
  const by = actor.kind === 'dashboard_user' ? 'from your platform’s dashboard' : 'with a server token';
  return new ServiceError(
    'paid_out',
    `The rent of payment ${paymentId} has been paid out to the landlord in a confirmed payout, so it cannot ` +
      `be refunded ${by}. Ask the operator: an operator refund is still possible, and what it ` +
      "takes back is deducted from the landlord's next payout.",
  );
}

/**
 * What a refund of `amountPence` (undefined: everything left) of a succeeded payment would take back, and what is
 * left before it: refused (409) when nothing is left, 400 on `amount` when it asks for more than is left.
 */
export function refundAmount(
  payment: PaymentRow,
  pendingPence: number,
  amountPence: number | undefined,
): { refundPence: number; remainingPence: number } {
  const remainingPence = leftToRefund(payment, pendingPence);
  if (remainingPence <= 0) {
    throw new ServiceError(
      'conflict',
      pendingPence > 0
        ? 'The rest of this payment is being refunded already; see its pending refund.'
        : 'This payment has been refunded in full already.',
    );
  }
  const refundPence = amountPence ?? remainingPence;
  if (refundPence < 1 || refundPence > remainingPence) {
    throw new FieldValidationError({
      amount: [`Enter an amount from 0.01 to ${formatPence(remainingPence)}.`],
    });
  }
  return { refundPence, remainingPence };
}

/** Locks a refund for a change: its payment first, then the refund, the order beginRefund takes them in. */
async function lockRefund(tx: Queryable, refundId: string): Promise<RefundRow | undefined> {
  await tx.query(
    'SELECT p.id FROM payments p JOIN refunds r ON r.payment_id = p.id WHERE r.id = $1 FOR UPDATE OF p',
    [refundId],
  );
  return firstRow(tx, refunds().where('id', '=', refundId).forUpdate());
}

/** Refunds, every column: add the where (and the lock) you need. */
function refunds() {
  return qb.selectFrom('refunds').selectAll();
}

/** An update of refunds returning every column: set what changes and add the where. */
function refundUpdate() {
  return qb.updateTable('refunds').returningAll();
}

/** A new refund, as written. */
async function insertRefund(
  tx: Queryable,
  refund: Pick<
    RefundRow,
    'id' | 'payment_id' | 'amount_pence' | 'status' | 'idempotency_key' | 'requested_pence' | 'created_at'
  >,
): Promise<RefundRow> {
  const inserted = await firstRow(
    tx,
    qb
      .insertInto('refunds')
      .values({ ...refund, updated_at: refund.created_at })
      .returningAll(),
  );
  return inserted!;
}

/** What the payment's pending refunds are taking back, in pence. */
export async function pendingRefundPence(tx: Queryable, paymentId: string): Promise<number> {
  const pending = await firstRow(
    tx,
    qb
      .selectFrom('refunds')
      .select((eb) => eb.fn.coalesce(eb.fn.sum<number | string>('amount_pence'), eb.lit(0)).as('pence'))
      .where('payment_id', '=', paymentId)
      .where('status', '=', 'pending'),
  );
  return Number(pending?.pence ?? 0);
}

/** Adds refunded pence to the payment's refunded total (`+`), or takes them back from it (`-`). */
async function changeRefunded(
  tx: Queryable,
  paymentId: string,
  change: '+' | '-',
  pence: number,
  now: Date,
): Promise<PaymentRow> {
  const payment = await firstRow(
    tx,
    paymentUpdate()
      .set((eb) => ({ refunded_pence: eb('refunded_pence', change, pence), updated_at: now }))
      .where('id', '=', paymentId),
  );
  return payment!;
}

/** A replay of a refund request: the same key must ask for the same amount (or again for "everything left"). */
function checkRefundReplay(earlier: RefundRow, amountPence: number | undefined, key: string): RefundRow {
  const same =
    amountPence === undefined
      ? earlier.requested_pence === null
      : amountPence === Number(earlier.amount_pence);
  if (!same) {
    throw new ServiceError(
      'idempotency_mismatch',
      `Idempotency key "${key}" was used for refund ${earlier.id} of ${formatPence(
        Number(earlier.amount_pence),
      )}${earlier.requested_pence === null ? ' (everything left)' : ''}; use a new key for a different refund.`,
    );
  }
  return earlier;
}

/** The refund as `payment_refunded` and `refund_failed` carry it, beside the payment's keys. */
export function refundEventView(refund: RefundRow): Static<typeof RefundEventView> {
  return {
    refund_id: refund.id,
    amount: formatPence(Number(refund.amount_pence)),
    status: refund.status,
    created_at: new Date(refund.created_at).toISOString(),
    ...(refund.status === 'failed'
      ? { failure_code: refund.failure_code, failure_message: refund.failure_message }
      : {}),
  };
}

/** What a refund that failed at the processor after it was accepted says. */
function refundFailedMessage(update: ProcessorRefundUpdate): string {
  return (
    `The card processor could not complete this refund${update.failureCode ? ` (${update.failureCode})` : ''}: ` +
    'the money did not go back to the cardholder.'
  );
}
