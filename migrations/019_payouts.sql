-- Landlord payouts. Money moves only through these rows, written in one transaction per run: a run's payouts (one
-- per tenancy) and the lines each is made of (a succeeded payment's rent, or a refund's rent part as a negative).
CREATE TABLE payout_runs (
  id text PRIMARY KEY,
  status text NOT NULL CHECK (status IN ('created', 'confirmed', 'canceled')),
  as_of date NOT NULL,
  total_pence bigint NOT NULL CHECK (total_pence >= 0),
  created_at timestamptz NOT NULL,
  confirmed_at timestamptz,
  canceled_at timestamptz,
  updated_at timestamptz NOT NULL
);
CREATE INDEX payout_runs_created_idx ON payout_runs (created_at, id);

CREATE TABLE payouts (
  id text PRIMARY KEY,
  payout_run_id text NOT NULL REFERENCES payout_runs (id),
  integrator_id text NOT NULL REFERENCES integrators (id),
  tenancy_id text NOT NULL REFERENCES tenancies (id),
  status text NOT NULL CHECK (status IN ('created', 'paid', 'canceled')),
  -- The landlord's account as it was when the run was made (digits only).
  sort_code text NOT NULL,
  account_number text NOT NULL,
  account_name text NOT NULL,
  -- The bank reference: the tenancy's payment_reference in the characters a bulk payment takes, at most 18.
  reference text NOT NULL,
  amount_pence bigint NOT NULL CHECK (amount_pence > 0),
  paid_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX payouts_run_idx ON payouts (payout_run_id);
CREATE INDEX payouts_tenancy_idx ON payouts (tenancy_id, created_at);

CREATE TABLE payout_lines (
  payout_id text NOT NULL REFERENCES payouts (id),
  kind text NOT NULL CHECK (kind IN ('payment', 'refund')),
  payment_id text NOT NULL REFERENCES payments (id),
  refund_id text REFERENCES refunds (id),
  -- A payment's pure amount (positive), or minus a refund's rent part.
  amount_pence bigint NOT NULL,
  -- False once the payout's run is canceled: the line is payable again.
  active boolean NOT NULL DEFAULT true,
  CHECK ((kind = 'payment') = (refund_id IS NULL))
);
-- No payment and no refund in two live payouts: the database refuses it whatever the code does.
CREATE UNIQUE INDEX payout_lines_payment_once ON payout_lines (payment_id) WHERE kind = 'payment' AND active;
CREATE UNIQUE INDEX payout_lines_refund_once ON payout_lines (refund_id) WHERE kind = 'refund' AND active;
CREATE INDEX payout_lines_payout_idx ON payout_lines (payout_id);

-- Production: a landlord account paid for the first time waits for the operator's approval.
CREATE TABLE payee_approvals (
  sort_code text NOT NULL,
  account_number text NOT NULL,
  approved_at timestamptz NOT NULL,
  PRIMARY KEY (sort_code, account_number)
);
