/** The payment pages' answers, as the Dashboard API's route schemas define them (src/dashboard/payment-views.ts). */

import type { Payment } from '../../sdk/rentpay.d.ts';
import type { WebhookEvent } from '../api.ts';

/** A payment as the search lists it: the Payment with what was refunded and whose it is. */
export interface DashboardPayment extends Payment {
  refunded: string;
  user_id: number;
  email: string;
  name: string;
  payment_reference: string;
}

export type TimelineType =
  | 'created'
  | 'action_required'
  | 'succeeded'
  | 'failed'
  | 'canceled'
  | 'refund'
  | 'dispute_opened'
  | 'dispute_closed'
  | 'funds_available'
  | 'in_payout_run'
  | 'paid_out';

export interface TimelineEntry {
  at: string;
  type: TimelineType;
  summary: string;
  amount?: string;
  status?: string;
  refund_id?: string;
  payout_id?: string;
  payout_run_id?: string;
  event_id?: string;
}

/** One payment with what is left to refund, its timeline and the webhook deliveries of its events. */
export interface PaymentDetail extends DashboardPayment {
  refundable: string;
  timeline: TimelineEntry[];
  webhook_deliveries: (WebhookEvent & { integrator_id: string })[];
}

/** What a refund would do, before it is made. */
export interface RefundPreview {
  payment_id: string;
  amount: string;
  rent: string;
  fee: string;
  refundable: string;
  refundable_after: string;
  landlord: {
    loses: string;
    effect: 'less_payable' | 'after_unconfirmed_run' | 'carried_negative';
    payout_id: string | null;
    payout_run_id: string | null;
    summary: string;
  };
  refused: { error: 'paid_out'; detail: string } | null;
}

/** A refund made (or asked of the processor, `pending`). */
export interface Refund {
  refund_id: string;
  payment_id: string;
  amount: string;
  status: 'pending' | 'succeeded' | 'failed';
  created_at: string;
}
