/** The operator console's answers, as the routes' schemas (src/dashboard/operator-*.ts) give them. */

import type { AuditEntry } from '../api.ts';

export interface ConsoleIntegrator {
  integrator_id: string;
  name: string;
  status: 'active' | 'suspended';
  environment: 'sandbox' | 'production';
  created_at: string;
  /** The last 30 days. */
  payments: { succeeded: number; amount: string; failed: number; failure_rate: number | null };
  webhooks: { pending: number; oldest_pending_age_seconds: number | null; failed: number };
}

/** A new integrator: its settings and, this once, its credentials. */
export interface CreatedIntegrator {
  integrator_id: string;
  name: string;
  environment: 'sandbox' | 'production';
  status: 'active' | 'suspended';
  server_token: string;
  webhook_secret: string;
}

/** Who did something, as the audit log names them. */
export type Actor = AuditEntry['actor'];

/** A payout in a run, as the Operator API shows it too. */
export interface Payout {
  payout_id: string;
  payout_run_id: string;
  status: 'created' | 'paid' | 'canceled';
  payment_reference: string;
  sort_code: string;
  account_number: string;
  account_name: string;
  amount: string;
  payment_ids: string[];
  paid_at: string | null;
}

export type RunStatus = 'created' | 'confirmed' | 'canceled';

export interface ConsoleRunSummary {
  payout_run_id: string;
  status: RunStatus;
  as_of: string;
  total: string;
  created_at: string;
  confirmed_at: string | null;
  canceled_at: string | null;
  created_by: Actor | null;
  may_confirm: boolean;
  /** Why the viewer may not confirm it (their role, its status, four eyes); null when they may. */
  confirm_refusal: string | null;
}

export interface HeldTenancy {
  integrator_id: string;
  payment_reference: string;
  amount: string;
  reason: string;
}

export interface ConsoleRun extends ConsoleRunSummary {
  items: Payout[];
  held: HeldTenancy[];
}

export interface PendingPayee {
  payee_id: string;
  sort_code: string;
  account_number: string;
  account_name: string;
  tenancies: number;
  amount: string;
  integrator_ids: string[];
}

export interface SystemHealth {
  checked_at: string;
  database: { reachable: boolean; round_trip_ms: number | null };
  queue: {
    kind: string;
    pending: number;
    due: number;
    running: number;
    failed: number;
    oldest_due_at: string | null;
    oldest_due_age_seconds: number | null;
  }[];
  workers: {
    worker_id: string;
    host: string;
    pid: number;
    started_at: string;
    last_beat_at: string;
    last_beat_seconds_ago: number;
    stale_after_seconds: number;
    stale: boolean;
  }[];
}

export interface ConsoleAuditEntry extends AuditEntry {
  /** Its chain: an integrator's id, or `operator`. */
  scope: string;
}
