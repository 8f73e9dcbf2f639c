-- Refunds written before the processor is asked (pending), idempotent by the operator's key; the sandbox
-- acquirer's refunds keyed by our refund id; per-integrator features.

-- A refund is 'pending' from its first transaction until the processor's answer is applied.
ALTER TABLE refunds DROP CONSTRAINT refunds_status_check;
ALTER TABLE refunds ADD CONSTRAINT refunds_status_check CHECK (status IN ('pending', 'succeeded', 'failed'));
-- The operator's Idempotency-Key (optional): the same key for the same payment is the same refund.
ALTER TABLE refunds ADD COLUMN idempotency_key text;
-- The amount the request asked for; null when it asked for everything left (a replay compares with this).
ALTER TABLE refunds ADD COLUMN requested_pence bigint;
ALTER TABLE refunds ADD COLUMN failure_code text;
ALTER TABLE refunds ADD COLUMN failure_message text;
ALTER TABLE refunds ADD COLUMN updated_at timestamptz;
UPDATE refunds SET updated_at = created_at, requested_pence = amount_pence;
ALTER TABLE refunds ALTER COLUMN updated_at SET NOT NULL;
CREATE UNIQUE INDEX refunds_idempotency_idx ON refunds (payment_id, idempotency_key)
  WHERE idempotency_key IS NOT NULL;
CREATE INDEX refunds_pending_idx ON refunds (payment_id) WHERE status = 'pending';

-- Sandbox acquirer: one row per refund it was asked for, keyed by the caller's idempotency key, so a repeated
-- call answers as the first did and refunds once.
CREATE TABLE sandbox_refunds (
  idempotency_key text PRIMARY KEY,
  charge_id text NOT NULL REFERENCES sandbox_charges (id),
  amount_pence bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('refunded', 'refused')),
  refusal_code text,
  created_at timestamptz NOT NULL
);
CREATE INDEX sandbox_refunds_charge_idx ON sandbox_refunds (charge_id);

-- Per-integrator features of the page and SDK: {"apms"?, "wallets"?, "recurring"?, "savedCards"?},
-- booleans; a key absent is enabled.
ALTER TABLE integrators ADD COLUMN features jsonb NOT NULL DEFAULT '{}'::jsonb;
