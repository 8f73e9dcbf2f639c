import type { Actor } from '../audit/actor.ts';
import { SavedCardService } from '../cards/service.ts';
import type { SavedCardRow } from '../cards/view.ts';
import type { Clock } from '../platform/clock/clock.ts';
import { StatementBatcher } from '../platform/db/batcher.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import { isDatabaseUnavailable } from '../platform/db/unavailable.ts';
import type { PaymentProcessor, ProcessorOutcome } from '../processors/processor.ts';
import type { SessionRow } from '../sessions/service.ts';
import { type Collection, collection } from './collection.ts';
import { type CreatePaymentInput, type CreatePaymentResult, NewPaymentWriter } from './create.ts';
import { allPayments, type ListedPayment, listedPayment, listPayments, type PaymentFilter } from './list.ts';
import { countedBatches } from './metrics.ts';
import { authoriseRequest } from './new-payments.ts';
import { applyOutcomes, awaitsTenant, FINAL, type OutcomeToApply } from './outcomes.ts';
import { previewRefund, type RefundPreview } from './refund-preview.ts';
import { RefundService } from './refunds.ts';
import { paymentRows } from './rows.ts';
import { SettlementService } from './settlement.ts';
import type { PaymentRow } from './view.ts';
import { type PaymentVolume, paymentVolumeByIntegrator } from './volume.ts';

export type { CreatePaymentInput, CreatePaymentResult, PaymentSource } from './create.ts';

/** What identifies a Client API session here: itself, its tenant and its integrator. */
type ClientSession = Pick<SessionRow, 'id' | 'user_id' | 'integrator_id'>;

/**
 * A recurring charge refused off session because the bank wants the tenant, not yet brought back to them: it waits
 * (`requires_action` without a next action) until they confirm it in a session or its confirm-by day passes.
 */
function waitsForTenant(payment: PaymentRow): boolean {
  return awaitsTenant(payment) && payment.next_action === null;
}

/**
 * The most transactions of outcomes running at once on this node; outcomes arriving meanwhile wait and then share
 * one. More would only queue for the database's connections and its commits.
 */
const OUTCOME_TRANSACTIONS = 4;

const OUTCOMES = countedBatches('outcome');

/**
 * How often a waiting payment may be read from the processor when pages poll it. Stripe allows 25 reads a second
 * per endpoint in test mode: once every 5 s per payment keeps well over a hundred waiting tenants under it.
 */
export const PROCESSOR_READ_INTERVAL_MS = 5_000;

/** The outcome of an acquirer notification: the payment, or the saved card whose check it was about. */
export type NotificationResult =
  | { kind: 'payment'; payment: PaymentRow }
  | { kind: 'saved_card'; card: SavedCardRow }
  | undefined;

export class PaymentService {
  /** The user's saved cards: paid with here, and their 3DS checks end through the same notifications. */
  readonly cards: SavedCardService;
  /** Refunds of these payments; applyNotification hands it the processor's refund notifications. */
  readonly refunds: RefundService;
  /** When succeeded payments' funds are available to pay out, and their disputes. */
  readonly settlement: SettlementService;
  readonly #newPayments: NewPaymentWriter;

  /**
   * `settleScheduledCharge`: ends the recurring charge a scheduled payment paid for (the schedules domain's,
   * wired by the composition root), in the transaction that ends the payment.
   */
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
    private readonly settleScheduledCharge: (
      tx: Queryable,
      payment: PaymentRow,
      now: Date,
    ) => Promise<void> = async () => undefined,
  ) {
    this.cards = new SavedCardService(db, clock, processor);
    this.refunds = new RefundService(db, clock, processor);
    this.settlement = new SettlementService(db, clock, processor);
    this.#newPayments = new NewPaymentWriter(db, { clock, processor, settleScheduledCharge }, this.cards);
  }

  /**
   * A payment from the Client API. The row is written (as `processing`) before the processor is called,
   * with the payment id as the processor's idempotency key, so a crash in between is healed by the
   * reconciliation job asking again with the same key instead of charging a second time. A processor that charges
   * inside our transaction (the sandbox) is asked in the one that writes the row, which then has its outcome.
   */
  async create(input: CreatePaymentInput): Promise<CreatePaymentResult> {
    const written = await this.#newPayments.write(input);
    // Replayed, or charged already in the transaction that wrote it (the sandbox).
    if (written.replayed || written.payment.status !== 'processing') return written;
    return { payment: await this.#authorise(written.payment), replayed: false };
  }

  /**
   * Withdraws a payment waiting for the customer (the page's "cancel", or its session's expiry): the processor
   * first, so a late Authorise cannot charge, then our row. If the customer answered first, that outcome wins.
   */
  /** Payments matching the filter, newest first, a page at a time (the Integration, Operator and Dashboard APIs' lists). */
  list(filter: PaymentFilter): Promise<{ rows: ListedPayment[]; has_more: boolean }> {
    return listPayments(this.db, filter);
  }

  /** Every integrator's payments since `since`: succeeded (count, amount) and failed, in one grouped query. */
  volumeByIntegrator(since: Date): Promise<Map<string, PaymentVolume>> {
    return paymentVolumeByIntegrator(this.db, since);
  }

  /** Every payment matching the filter, newest first, in batches (an export that never holds them all). */
  all(
    filter: Omit<PaymentFilter, 'limit' | 'startingAfter'>,
    batch?: number,
  ): AsyncGenerator<ListedPayment[]> {
    return allPayments(this.db, filter, batch);
  }

  /** One of the integrator's payments, with its tenant and tenancy as the lists show them. */
  listed(integratorId: string, paymentId: string): Promise<ListedPayment | undefined> {
    return listedPayment(this.db, integratorId, paymentId);
  }

  /** The dashboard home's figures of collection (see collection). */
  collection(
    integratorId: string,
    range: { from: Date; before: Date; failedFrom: Date },
  ): Promise<Collection> {
    return collection(this.db, integratorId, range);
  }

  /** What a refund would take back and do to the landlord's payouts, before it is made (see previewRefund). */
  previewRefund(paymentId: string, amountPence: number | undefined, actor: Actor): Promise<RefundPreview> {
    return previewRefund(this.db, paymentId, amountPence, actor);
  }

  /** Any payment by its id (the operator's view). */
  byId(paymentId: string): Promise<PaymentRow | undefined> {
    return firstRow(this.db, paymentRows().where('id', '=', paymentId));
  }

  /** Whether the payment is this integrator's (another integrator's payment is as unknown as a missing one). */
  async belongsTo(paymentId: string, integratorId: string): Promise<boolean> {
    const [owned] = await this.db.query('SELECT 1 FROM payments WHERE id = $1 AND integrator_id = $2', [
      paymentId,
      integratorId,
    ]);
    return owned !== undefined;
  }

  async cancel(paymentId: string): Promise<PaymentRow | undefined> {
    const payment = await this.byId(paymentId);
    if (payment?.status !== 'requires_action' || !payment.processor_payment_id) return payment;
    return this.applyOutcome(paymentId, await this.processor.cancel(payment.processor_payment_id));
  }

  /**
   * A payment still waiting (3DS, an APM, processing) as the processor has it now, when the processor can say
   * (readsOutcomeOnPoll) and was not asked about it in the last PROCESSOR_READ_INTERVAL_MS (by any node, for any
   * page); otherwise, or when it cannot be reached, as stored: the processor's events bring the outcome meanwhile.
   */
  async refreshWaiting(payment: PaymentRow): Promise<PaymentRow> {
    if (
      !this.processor.readsOutcomeOnPoll ||
      FINAL.includes(payment.status) ||
      !payment.processor_payment_id ||
      waitsForTenant(payment)
    ) {
      return payment;
    }
    const now = this.clock.now();
    const due = await firstRow(
      this.db,
      qb
        .updateTable('payments')
        .set({ processor_checked_at: now })
        .where('id', '=', payment.id)
        .where((eb) =>
          eb.or([
            eb('processor_checked_at', 'is', null),
            eb('processor_checked_at', '<=', new Date(now.getTime() - PROCESSOR_READ_INTERVAL_MS)),
          ]),
        )
        .returning('id'),
    );
    if (!due) return payment;
    let outcome: ProcessorOutcome;
    try {
      outcome = await this.processor.complete(payment.processor_payment_id);
    } catch {
      return payment;
    }
    return this.applyOutcome(payment.id, outcome);
  }

  /** The payment that completed the session, if one has. */
  succeededInSession(sessionId: string): Promise<PaymentRow | undefined> {
    return firstRow(
      this.db,
      paymentRows()
        .where('session_id', '=', sessionId)
        .where('status', '=', 'succeeded')
        .orderBy('created_at')
        .limit(1),
    );
  }

  /** Every payment made in a session, oldest first. */
  inSession(sessionId: string): Promise<PaymentRow[]> {
    return rows(
      this.db,
      paymentRows().where('session_id', '=', sessionId).orderBy('created_at').orderBy('id'),
    );
  }

  /**
   * A payment a session may see: one made in it, or a recurring charge of its tenant (at the same integrator), which
   * any of their sessions may confirm when their bank wants them to.
   */
  get(session: ClientSession, paymentId: string): Promise<PaymentRow | undefined> {
    return firstRow(
      this.db,
      paymentRows()
        .where('id', '=', paymentId)
        .where((eb) =>
          eb.or([
            eb('session_id', '=', session.id),
            eb.and([
              eb('schedule_id', 'is not', null),
              eb('user_id', '=', session.user_id),
              eb('integrator_id', '=', session.integrator_id),
            ]),
          ]),
        ),
    );
  }

  /**
   * The tenant confirms a recurring charge their bank wants authenticated: the processor confirms it on session with
   * the same card, and the payment's next action (3DS) is what the page shows. A payment not waiting for them is
   * answered as it stands.
   */
  async confirmWithTenant(payment: PaymentRow): Promise<PaymentRow> {
    if (!waitsForTenant(payment) || !this.processor.confirmWithCustomer) return payment;
    const outcome = await this.processor.confirmWithCustomer(
      payment.processor_payment_id!,
      payment.processor_token!,
    );
    return this.applyOutcome(payment.id, outcome);
  }

  /**
   * A recurring charge the tenant did not confirm by its confirm-by day: withdrawn at the processor and failed
   * (`authentication_required`, payment_failed without a retry), unless the tenant completed it meanwhile.
   */
  async expireWaiting(paymentId: string): Promise<PaymentRow | undefined> {
    const payment = await this.byId(paymentId);
    if (payment?.status !== 'requires_action' || !payment.schedule_id) return payment;
    const outcome = payment.processor_payment_id
      ? await this.processor.cancel(payment.processor_payment_id)
      : undefined;
    if (outcome?.status === 'authorised') return this.applyOutcome(paymentId, outcome);
    return this.applyOutcome(
      paymentId,
      {
        status: 'refused',
        processorPaymentId: payment.processor_payment_id,
        code: 'authentication_required',
        message: 'The tenant did not confirm this payment with their bank in time.',
      },
      { expiring: true },
    );
  }

  /**
   * Moves a payment to where the processor says it is, with its event, in one transaction. Final states
   * stay final: a late or repeated notification changes nothing and records nothing. Outcomes given in the same
   * turn of the event loop share that transaction's statements (see applyOutcomes).
   */
  applyOutcome(
    paymentId: string,
    outcome: ProcessorOutcome,
    options: { expiring?: boolean } = {},
  ): Promise<PaymentRow> {
    return this.#outcomes.run({ paymentId, outcome, expiring: options.expiring });
  }

  readonly #outcomes = new StatementBatcher<OutcomeToApply, PaymentRow>(
    (items) => {
      OUTCOMES.observe(items.length);
      return this.db.transaction((tx) =>
        applyOutcomes(
          tx,
          { clock: this.clock, processor: this.processor, settleScheduledCharge: this.settleScheduledCharge },
          items,
        ),
      );
    },
    {
      splits: (error) => !isDatabaseUnavailable(error),
      onSplit: OUTCOMES.onSplit,
      maxInFlight: OUTCOME_TRANSACTIONS,
    },
  );

  /**
   * An acquirer's asynchronous notification, delivered through the job system: about a payment (3DS, an
   * APM), or else about the check of a card being saved.
   */
  async applyNotification(processorName: string, body: unknown): Promise<NotificationResult> {
    if (processorName !== this.processor.name)
      throw new Error(`Notification for unknown processor ${processorName}`);
    const notification = this.processor.parseNotification(body);
    if (!notification) return undefined;
    const payment = await firstRow(
      this.db,
      qb
        .selectFrom('payments')
        .select('id')
        .where('processor', '=', processorName)
        .where('processor_payment_id', '=', notification.processorPaymentId),
    );
    if ('dispute' in notification) {
      if (!payment) return undefined;
      const changed = await this.settlement.recordDispute(
        payment.id,
        notification.dispute,
        notification.disputedPence,
      );
      const row = changed ?? (await this.byId(payment.id));
      return { kind: 'payment', payment: row! };
    }
    if ('refund' in notification) {
      const changed = await this.refunds.applyProcessorRefund(notification.refund, payment?.id);
      return changed && { kind: 'payment', payment: changed };
    }
    if ('refundedTotalPence' in notification) {
      if (!payment) return undefined;
      // The event's total is a snapshot: read it again where it may be stale, so a refund that failed since is
      // not recorded as one made elsewhere.
      const refundedTotalPence = this.processor.refundedTotal
        ? await this.processor.refundedTotal(notification.processorPaymentId)
        : notification.refundedTotalPence;
      return {
        kind: 'payment',
        payment: await this.refunds.recordProcessorRefunds(payment.id, { refundedTotalPence }),
      };
    }
    // The processor's answer may have been lost before its id was stored: the id it echoes back finds the payment.
    const target =
      payment ??
      (notification.paymentId === undefined
        ? undefined
        : await this.#unlinkedPayment(processorName, notification.paymentId));
    if (target) {
      const applied = await this.applyOutcome(target.id, notification.outcome);
      if (notification.outcome.status === 'refused' && !awaitsTenant(applied)) {
        await this.processor.discardFailed?.(notification.processorPaymentId);
      }
      return { kind: 'payment', payment: applied };
    }
    const card = await this.cards.applySetupOutcome(notification.processorPaymentId, notification.outcome);
    return card && { kind: 'saved_card', card };
  }

  /** Our payment `paymentId` at `processorName` whose processor id is not known yet. */
  #unlinkedPayment(processorName: string, paymentId: string): Promise<{ id: string } | undefined> {
    return firstRow(
      this.db,
      qb
        .selectFrom('payments')
        .select('id')
        .where('id', '=', paymentId)
        .where('processor', '=', processorName)
        .where('processor_payment_id', 'is', null),
    );
  }

  /** Asks the processor again about a payment still `processing`; the same idempotency key never charges twice. */
  async reconcile(paymentId: string): Promise<PaymentRow | undefined> {
    const payment = await this.byId(paymentId);
    if (payment?.status !== 'processing') return payment;
    return this.#authorise(payment, true);
  }

  async #authorise(payment: PaymentRow, rethrow = false): Promise<PaymentRow> {
    let outcome: ProcessorOutcome;
    try {
      outcome = await this.processor.authorise(
        authoriseRequest({
          id: payment.id,
          sessionId: payment.session_id,
          integratorId: payment.integrator_id,
          userId: payment.user_id,
          amountPence: Number(payment.amount_pence),
          method: payment.method,
          processorToken: payment.processor_token,
          reference: payment.reference,
        }),
      );
    } catch (error) {
      // The payment stays `processing`; the reconciliation job asks again.
      if (rethrow) throw error;
      return payment;
    }
    return this.applyOutcome(payment.id, outcome);
  }
}
