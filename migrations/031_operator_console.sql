-- The operator console: worker heartbeats every process can read, who made each payout run (the person who made a
-- run cannot confirm it in production) and what it held back, and the whole audit log read newest first.

-- One row per job worker process, upserted on its heartbeat (at most once per heartbeat interval) and deleted when
-- it stops cleanly; a row whose last beat is older than stale_after_ms belongs to a worker that stopped turning.
CREATE TABLE worker_heartbeats (
  id text PRIMARY KEY,
  host text NOT NULL,
  pid integer NOT NULL,
  started_at timestamptz NOT NULL,
  last_beat_at timestamptz NOT NULL,
  stale_after_ms integer NOT NULL
);

-- The actor who made the run, as the audit log records actors (kind, and user_id for a person); null for runs made
-- before it was recorded.
ALTER TABLE payout_runs ADD COLUMN created_by jsonb;

-- The tenancies a run left out, with the reason, as the run found them.
CREATE TABLE payout_run_holds (
  payout_run_id text NOT NULL REFERENCES payout_runs (id),
  integrator_id text NOT NULL REFERENCES integrators (id),
  payment_reference text NOT NULL,
  amount_pence bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('payee_not_payable', 'payee_awaiting_approval')),
  reason text NOT NULL
);
CREATE INDEX payout_run_holds_run_idx ON payout_run_holds (payout_run_id, integrator_id, payment_reference);

-- Every chain at once, newest first, whole or by action.
CREATE INDEX audit_log_created_idx ON audit_log (created_at DESC, id DESC);
CREATE INDEX audit_log_action_created_idx ON audit_log (action, created_at DESC, id DESC);
CREATE INDEX audit_log_scope_created_idx ON audit_log (scope, created_at DESC, id DESC);
