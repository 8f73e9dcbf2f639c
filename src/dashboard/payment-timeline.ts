import type { ListedPayment } from '../payments/list.ts';
import type { RefundRow } from '../payments/refunds.ts';
import type { PaymentPayout } from '../payouts/paid-out.ts';
import { formatPence } from '../shared/money.ts';
import { APM_METHODS, METHOD_LABELS, type PaymentMethod, WALLET_METHODS } from '../shared/vocabulary.ts';
import type { EventRow } from '../webhooks/service.ts';
import { TIMELINE_ENTRY_TYPES, type TimelineEntry } from './payment-views.ts';

const iso = (at: Date) => new Date(at).toISOString();
const pounds = (pence: number | string) => `£${formatPence(Number(pence))}`;

/** A method's name in a sentence: "card", "Apple Pay". */
const methodName = (method: PaymentMethod) => (method === 'card' ? 'card' : METHOD_LABELS[method]);

function paidWith(payment: ListedPayment): string {
  const card = payment.card_last4 ? ` (${payment.card_brand ?? 'card'} ending ${payment.card_last4})` : '';
  return `${methodName(payment.method)}${card}`;
}

function waitedFor(payment: ListedPayment): string {
  if (payment.schedule_id !== null) {
    return 'The tenant’s bank asked them to authenticate this recurring charge.';
  }
  if ((APM_METHODS as readonly string[]).includes(payment.method)) {
    return `Waiting for the tenant to approve it with ${methodName(payment.method)} (its page or QR code).`;
  }
  const how = (WALLET_METHODS as readonly string[]).includes(payment.method) ? ' from the wallet' : '';
  return `3-D Secure: the tenant’s bank asked them to authenticate the payment${how}.`;
}

function refundEntry(refund: RefundRow): TimelineEntry {
  const amount = pounds(refund.amount_pence);
  const summary =
    refund.status === 'pending'
      ? `Refund of ${amount} asked for; the card processor has not confirmed it yet.`
      : refund.status === 'succeeded'
        ? `Refunded ${amount}.`
        : refund.reversed_at !== null
          ? `Refund of ${amount} failed after it was made: ${refund.failure_message ?? 'the processor reversed it'}.`
          : `Refund of ${amount} failed: ${refund.failure_message ?? 'the processor refused it'}.`;
  return {
    at: iso(refund.created_at),
    type: 'refund',
    summary,
    amount: formatPence(Number(refund.amount_pence)),
    status: refund.status,
    refund_id: refund.id,
  };
}

/** The dispute an event's data carries (payment_disputed, payment_dispute_closed). */
function disputeOf(event: EventRow): { status: string; amount: string } | undefined {
  const dispute = event.data.dispute as { status?: unknown; amount?: unknown } | undefined;
  return typeof dispute?.status === 'string' && typeof dispute.amount === 'string'
    ? { status: dispute.status, amount: dispute.amount }
    : undefined;
}

function eventEntries(events: readonly EventRow[]): TimelineEntry[] {
  const entries: TimelineEntry[] = [];
  for (const event of events) {
    const dispute = disputeOf(event);
    if (event.type === 'payment_disputed' && dispute) {
      entries.push({
        at: iso(event.created_at),
        type: 'dispute_opened',
        summary: `The cardholder disputes £${dispute.amount}; the rent is held back from payouts until it ends.`,
        amount: dispute.amount,
        status: dispute.status,
        event_id: event.id,
      });
    } else if (event.type === 'payment_dispute_closed' && dispute) {
      entries.push({
        at: iso(event.created_at),
        type: 'dispute_closed',
        summary:
          dispute.status === 'lost'
            ? `Dispute lost: £${dispute.amount} went back to the cardholder.`
            : 'Dispute won: the payment stands.',
        amount: dispute.amount,
        status: dispute.status,
        event_id: event.id,
      });
    }
  }
  return entries;
}

function outcomeEntry(payment: ListedPayment, events: readonly EventRow[]): TimelineEntry | undefined {
  const announced = (type: string) => events.find((event) => event.type === type);
  switch (payment.status) {
    case 'succeeded': {
      const event = announced('payment_success');
      return {
        at: iso(event?.created_at ?? payment.updated_at),
        type: 'succeeded',
        summary: `Paid ${pounds(payment.amount_pence)}.`,
        amount: formatPence(Number(payment.amount_pence)),
        ...(event ? { event_id: event.id } : {}),
      };
    }
    case 'failed': {
      const event = announced('payment_failed');
      return {
        at: iso(event?.created_at ?? payment.updated_at),
        type: 'failed',
        summary: `Failed${payment.failure_code ? ` (${payment.failure_code})` : ''}: ${payment.failure_message ?? 'the payment was refused'}.`,
        ...(event ? { event_id: event.id } : {}),
      };
    }
    case 'canceled':
      return {
        at: iso(payment.updated_at),
        type: 'canceled',
        summary: 'Canceled before the tenant finished it.',
      };
    default:
      return undefined;
  }
}

function payoutEntries(payout: PaymentPayout): TimelineEntry[] {
  if (payout.payout_id === null || payout.payout_run_id === null || payout.created_at === null) return [];
  const ids = { payout_id: payout.payout_id, payout_run_id: payout.payout_run_id };
  const entries: TimelineEntry[] = [
    {
      at: iso(payout.created_at),
      type: 'in_payout_run',
      summary: `Its rent joined payout ${payout.payout_id} of run ${payout.payout_run_id}.`,
      ...ids,
    },
  ];
  if (payout.paid_at !== null) {
    entries.push({
      at: iso(payout.paid_at),
      type: 'paid_out',
      summary: `Its rent was paid out to the landlord in payout ${payout.payout_id}.`,
      ...ids,
    });
  }
  return entries;
}

/**
 * A payment's timeline, oldest first: made, waiting for the tenant, its outcome, each refund, each dispute, when its
 * funds are available to pay out, and the payout carrying its rent. Times come from the payment, its refunds, the
 * events announcing its outcome and disputes (recorded with each change), and its payout.
 */
export function paymentTimeline(
  payment: ListedPayment,
  refunds: readonly RefundRow[],
  events: readonly EventRow[],
  payout: PaymentPayout,
  now: Date,
): TimelineEntry[] {
  const entries: TimelineEntry[] = [
    {
      at: iso(payment.created_at),
      type: 'created',
      summary: `Made for ${pounds(payment.amount_pence)} (rent ${pounds(payment.pure_amount_pence)}, fee ${pounds(payment.fee_pence)}) by ${paidWith(payment)}.`,
      amount: formatPence(Number(payment.amount_pence)),
    },
  ];
  const waited =
    payment.action_required_at ?? (payment.status === 'requires_action' ? payment.updated_at : null);
  if (waited !== null)
    entries.push({ at: iso(waited), type: 'action_required', summary: waitedFor(payment) });
  const outcome = outcomeEntry(payment, events);
  if (outcome) entries.push(outcome);
  entries.push(...refunds.map(refundEntry), ...eventEntries(events));
  if (payment.funds_available_at !== null) {
    const future = new Date(payment.funds_available_at).getTime() > now.getTime();
    entries.push({
      at: iso(payment.funds_available_at),
      type: 'funds_available',
      summary: future
        ? 'Its funds will be available to pay out to the landlord then.'
        : 'Its funds became available to pay out to the landlord.',
    });
  }
  entries.push(...payoutEntries(payout));
  const order = (entry: TimelineEntry) => TIMELINE_ENTRY_TYPES.indexOf(entry.type);
  return entries.sort((a, b) => a.at.localeCompare(b.at) || order(a) - order(b));
}
