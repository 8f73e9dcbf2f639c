-- Payments made in a session. Amounts in pence; the APIs' decimal strings are made at the edge.
CREATE TABLE payments (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  session_id text NOT NULL REFERENCES sessions (id),
  user_id text NOT NULL REFERENCES users (id),
  tenancy_id text NOT NULL REFERENCES tenancies (id),
  status text NOT NULL
    CHECK (status IN ('requires_action', 'processing', 'succeeded', 'failed', 'canceled')),
  pure_amount_pence bigint NOT NULL CHECK (pure_amount_pence > 0),
  fee_pence bigint NOT NULL CHECK (fee_pence >= 0),
  amount_pence bigint NOT NULL CHECK (amount_pence = pure_amount_pence + fee_pence),
  refunded_pence bigint NOT NULL DEFAULT 0 CHECK (refunded_pence >= 0 AND refunded_pence <= amount_pence),
  currency text NOT NULL DEFAULT 'GBP' CHECK (currency = 'GBP'),
  method text NOT NULL,
  card_brand text,
  card_last4 text,
  card_exp_month integer,
  card_exp_year integer,
  reference text NOT NULL,
  schedule_id text,
  installment_number integer,
  failure_code text,
  failure_message text,
  -- The client's key: a retry with the same key in the same session is the same payment.
  idempotency_key text NOT NULL,
  processor text NOT NULL,
  -- The processor's reusable card token (never card data): reconciliation re-authorises with it.
  processor_token text NOT NULL,
  processor_payment_id text,
  -- {"type": "three_ds" | "redirect" | "qr", "url": "..."} while status = 'requires_action'.
  next_action jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (session_id, idempotency_key)
);
CREATE INDEX payments_session_idx ON payments (session_id, created_at);
CREATE INDEX payments_processor_idx ON payments (processor, processor_payment_id);
CREATE INDEX payments_processing_idx ON payments (updated_at) WHERE status = 'processing';

CREATE TABLE refunds (
  id text PRIMARY KEY,
  payment_id text NOT NULL REFERENCES payments (id),
  amount_pence bigint NOT NULL CHECK (amount_pence > 0),
  status text NOT NULL CHECK (status IN ('succeeded', 'failed')),
  created_at timestamptz NOT NULL
);
CREATE INDEX refunds_payment_idx ON refunds (payment_id);

-- Sandbox processor, playing the acquirer: its own state lives here, never card numbers or CVCs.
-- A token names the test card's behaviour and the display details only.
CREATE TABLE sandbox_tokens (
  id text PRIMARY KEY,
  behaviour text NOT NULL,
  brand text NOT NULL,
  last4 text NOT NULL,
  exp_month integer NOT NULL,
  exp_year integer NOT NULL,
  created_at timestamptz NOT NULL
);

-- One row per authorisation the sandbox acquirer accepted, keyed by the caller's idempotency key
-- so a repeated call is answered from here and never charges twice.
CREATE TABLE sandbox_charges (
  id text PRIMARY KEY,
  idempotency_key text NOT NULL UNIQUE,
  token_id text NOT NULL REFERENCES sandbox_tokens (id),
  amount_pence bigint NOT NULL,
  off_session boolean NOT NULL DEFAULT false,
  status text NOT NULL CHECK (status IN ('authorised', 'action_required', 'refused', 'cancelled')),
  authenticated boolean NOT NULL DEFAULT false,
  refusal_code text,
  refunded_pence bigint NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX sandbox_charges_token_idx ON sandbox_charges (token_id);
