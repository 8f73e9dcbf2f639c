/** The Dashboard API's answers about tenants, as src/dashboard/tenant-views.ts and src/ledger/view.ts shape them. */

import type { Frequency, ScheduleStatus } from '../../../src/shared/vocabulary.ts';

export interface TenantSummary {
  user_id: number;
  email: string;
  name: string;
  tenancies: number;
  arrears: string;
}

export interface Tenancy {
  payment_reference: string;
  address: { address_1: string; city: string; post_code: string; country: string };
  payee_name: string;
  rent: string;
  frequency: Frequency;
  rent_due_day: number;
  start_rent_date: string;
  end_rent_date: string;
  status: 'active' | 'inactive';
  arrears: string;
  days_overdue: number;
  next_due: { date: string; amount: string } | null;
}

export interface Schedule {
  schedule_id: string;
  status: ScheduleStatus;
  user_id: number;
  payment_reference: string;
  pure_amount: string;
  fee: string;
  amount: string;
  frequency: Frequency;
  rent_due_day: number;
  next_due_date: string | null;
  installment_plan: boolean;
  card: { brand: string; last4: string };
  reason: string | null;
  created_at: string;
  updated_at: string;
}

export interface SavedCard {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: boolean;
}

export type DocumentKind = 'agreement' | 'pii_front' | 'pii_back' | 'photo';

export interface TenantDocument {
  document_id: string;
  kind: DocumentKind;
  status: 'pending' | 'stored' | 'failed';
  payment_reference: string | null;
}

export interface Tenant {
  user_id: number;
  email: string;
  first_name: string;
  last_name: string;
  phone_number: string;
  date_of_birth: string;
  kyc_status: string | null;
  created_at: string;
  tenancies: Tenancy[];
  schedules: Schedule[];
  cards: SavedCard[];
  documents: TenantDocument[];
}

export type LedgerEntryType = 'rent_due' | 'payment' | 'refund' | 'payout';

export interface LedgerEntry {
  date: string;
  type: LedgerEntryType;
  amount: string;
  payment_id?: string;
  payout_id?: string;
  balance: string;
}

export interface TenancyLedger {
  payment_reference: string;
  currency: 'GBP';
  as_of: string;
  entries: LedgerEntry[];
  arrears: string;
  next_due: { date: string; amount: string } | null;
  days_overdue: number;
  balance_series: { date: string; balance: string }[];
}
