import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow } from '../platform/db/query-builder.ts';
import { enqueueMany } from '../platform/jobs/define.ts';
import type { DisputeStatus, PaymentProcessor } from '../processors/processor.ts';
import { formatPence } from '../shared/money.ts';
import { recordPaymentEvent } from './events.ts';
import { paymentSettlementJob } from './jobs/payment-settlement.ts';
import { paymentRows, paymentUpdate } from './rows.ts';
import type { PaymentRow } from './view.ts';

/**
 * Settlement: when a succeeded payment's funds can be paid out to the landlord, and whether a dispute holds them.
 * A processor that settles at once (the sandbox) has the payment's success time written with the success; one that
 * settles later (Stripe) gets a `payment.settlement` job per payment, written in the success's transaction.
 */

/** True when the processor makes a succeeded payment's funds available at once. */
export function settlesAtOnce(processor: PaymentProcessor): boolean {
  return processor.fundsAvailableAt === undefined;
}

/** For payments that have just succeeded under a processor that settles later: the jobs that ask when. */
export async function enqueueSettlement(
  tx: Queryable,
  clock: Clock,
  processor: PaymentProcessor,
  paymentIds: readonly string[],
): Promise<void> {
  if (settlesAtOnce(processor)) return;
  await enqueueMany(
    tx,
    clock,
    paymentSettlementJob,
    paymentIds.map((id) => ({ payload: { payment_id: id } })),
  );
}

export class SettlementService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
  ) {}

  /**
   * Asks the processor when a succeeded payment's funds become available and records it. Throws while the
   * processor cannot say yet, so the job asks again later; a payment already recorded (or not succeeded, or of a
   * processor that settles at once) is skipped.
   */
  async recordFundsAvailability(paymentId: string): Promise<'recorded' | 'skipped'> {
    const payment = await firstRow(this.db, paymentRows().where('id', '=', paymentId));
    const fundsAvailableAt = this.processor.fundsAvailableAt?.bind(this.processor);
    if (
      !fundsAvailableAt ||
      payment?.status !== 'succeeded' ||
      payment.funds_available_at !== null ||
      !payment.processor_payment_id ||
      payment.processor !== this.processor.name
    ) {
      return 'skipped';
    }
    const availableAt = await fundsAvailableAt(payment.processor_payment_id);
    if (!availableAt) {
      throw new Error(`The processor cannot say yet when payment ${paymentId}'s funds are available.`);
    }
    await this.db.query(
      'UPDATE payments SET funds_available_at = $2 WHERE id = $1 AND funds_available_at IS NULL',
      [paymentId, availableAt],
    );
    return 'recorded';
  }

  /**
   * A dispute opened or ended on a payment, with its event (payment_disputed, payment_dispute_closed); a lost one
   * keeps how much it took back. Returns the payment when it changed. An ended dispute stays ended: an `open`
   * arriving after it (the processor's events come in any order) changes nothing.
   */
  async recordDispute(
    paymentId: string,
    status: DisputeStatus,
    disputedPence: number,
  ): Promise<PaymentRow | undefined> {
    const amountPence = Math.max(1, disputedPence);
    return this.db.transaction(async (tx) => {
      const now = this.clock.now();
      const lost = status === 'lost';
      const payment = await firstRow(
        tx,
        paymentUpdate()
          .set((eb) => ({
            dispute_status: status,
            updated_at: now,
            dispute_lost_at: lost ? now : null,
            dispute_amount_pence: lost ? eb.fn<number>('least', [eb.val(amountPence), 'amount_pence']) : null,
          }))
          .where('id', '=', paymentId)
          .where((eb) => eb.or([eb('dispute_status', 'is', null), eb('dispute_status', '=', 'open')]))
          .where('dispute_status', 'is distinct from', status),
      );
      if (!payment) return undefined;
      await recordPaymentEvent(
        tx,
        this.clock,
        status === 'open' ? 'payment_disputed' : 'payment_dispute_closed',
        payment,
        { dispute: { status, amount: formatPence(amountPence) } },
      );
      return payment;
    });
  }
}

/** Payload `{payment_id}`. */
