/** The Dashboard API's answers about payouts, as src/dashboard/payout-views.ts shapes them. */

export type PayoutStatus = 'created' | 'paid' | 'canceled';

export interface PlatformPayout {
  payout_id: string;
  payout_run_id: string;
  status: PayoutStatus;
  payment_reference: string;
  payee_name: string;
  amount: string;
  created_at: string;
  paid_at: string | null;
}

export type HoldKind = 'payee_not_payable' | 'payee_awaiting_approval' | 'negative_carried' | 'disputed';

export interface HeldPayout {
  payment_reference: string;
  kind: HoldKind;
  amount: string;
  reason: string;
}
