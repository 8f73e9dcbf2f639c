-- The rent ledger. A tenancy's amount and frequency may change at re-onboarding; each due date keeps the terms in
-- force on it, so every change is kept: the row with the latest effective_on not after a due date applies to it
-- (the first row applies from the start, whatever its date).
CREATE TABLE tenancy_terms (
  tenancy_id text NOT NULL REFERENCES tenancies (id),
  effective_on date NOT NULL,
  amount_pence bigint NOT NULL CHECK (amount_pence > 0),
  frequency text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenancy_id, effective_on)
);
INSERT INTO tenancy_terms (tenancy_id, effective_on, amount_pence, frequency, created_at)
SELECT id, LEAST(start_rent_date, (created_at AT TIME ZONE 'UTC')::date), amount_pence, frequency, created_at
  FROM tenancies;

-- Rent reminders (webhooks rent_due_soon and rent_overdue), off (null) unless the operator sets the days before.
ALTER TABLE integrators ADD COLUMN reminder_days_before integer
  CHECK (reminder_days_before IS NULL OR reminder_days_before BETWEEN 1 AND 90);

-- One row per reminder sent, written with its event: the primary key makes each at most once across workers.
CREATE TABLE rent_reminders (
  tenancy_id text NOT NULL REFERENCES tenancies (id),
  due_date date NOT NULL,
  kind text NOT NULL CHECK (kind IN ('rent_due_soon', 'rent_overdue')),
  days_after_due integer NOT NULL,
  -- Set in the same transaction, once the event is recorded.
  event_id text REFERENCES events (id),
  created_at timestamptz NOT NULL,
  PRIMARY KEY (tenancy_id, due_date, kind, days_after_due)
);

-- The ledger reads a tenancy's payments by tenancy.
CREATE INDEX payments_tenancy_idx ON payments (tenancy_id, created_at) WHERE status = 'succeeded';
