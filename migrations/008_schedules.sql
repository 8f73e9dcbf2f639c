-- Recurring rent: a tenant's schedules, and one charge row per (schedule, due date) that the scheduler charges.

CREATE TABLE schedules (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  user_id text NOT NULL REFERENCES users (id),
  tenancy_id text NOT NULL REFERENCES tenancies (id),
  -- The session the tenant set it up in: its charges are payments of that session (a Payment has a session_id).
  session_id text NOT NULL REFERENCES sessions (id),
  saved_card_id text NOT NULL REFERENCES saved_cards (id),
  status text NOT NULL CHECK (status IN ('active', 'paused', 'canceled', 'completed')),
  -- True: the tenancy's installments, each on its own due date with its own amount. False: the rent on the
  -- tenancy's frequency and rent_due_day.
  installment_plan boolean NOT NULL,
  -- The tenant's own amount; null: the tenancy's rent as it is on each due date (onboarding may change it).
  pure_amount_pence bigint CHECK (pure_amount_pence > 0),
  -- The next due date the scheduler will reach: charged if the schedule is active then, skipped if paused. Null
  -- once canceled or completed.
  next_due_date date,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK ((status IN ('active', 'paused')) = (next_due_date IS NOT NULL))
);
-- At most one active or paused schedule per tenancy.
CREATE UNIQUE INDEX schedules_live_tenancy_idx ON schedules (tenancy_id) WHERE status IN ('active', 'paused');
CREATE INDEX schedules_user_idx ON schedules (user_id, created_at DESC, id DESC);
CREATE INDEX schedules_due_idx ON schedules (next_due_date) WHERE status IN ('active', 'paused');
-- A saved card that a live schedule charges cannot be deleted.
CREATE INDEX schedules_card_idx ON schedules (saved_card_id) WHERE status IN ('active', 'paused');

-- What a due date owes. The primary key is what makes a due date charged once however many workers and nodes
-- run the scheduler: it is written once, and each attempt's processor key is (schedule, due date, attempt).
CREATE TABLE schedule_charges (
  schedule_id text NOT NULL REFERENCES schedules (id),
  due_date date NOT NULL,
  integrator_id text NOT NULL REFERENCES integrators (id),
  installment_number integer,
  -- Fixed when the due date is reached: a later change of the rent or of the fees does not move it.
  pure_amount_pence bigint NOT NULL CHECK (pure_amount_pence > 0),
  fee_pence bigint NOT NULL CHECK (fee_pence >= 0),
  -- canceled: the schedule was paused or canceled while the charge waited for an attempt (or a retry).
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled')),
  -- Attempts whose outcome is recorded (a payment each).
  attempts integer NOT NULL DEFAULT 0,
  -- The attempt a schedule.charge job was enqueued for; the scheduler enqueues the next one only after it.
  queued_attempt integer NOT NULL DEFAULT 0,
  -- That attempt's job. A pending charge whose job is over (its retries exhausted, the processor unreachable or
  -- without an answer for days) while the attempt is still unrecorded gets a new job from the next scheduler run.
  queued_job_id text,
  -- The last attempt sent to the processor (marked, and committed, before the call). An attempt started but not
  -- recorded (started_attempt > attempts) may have charged: a pause or cancel does not withdraw its charge, and the
  -- job asks the processor again with the same key until its answer is recorded.
  started_attempt integer NOT NULL DEFAULT 0,
  first_attempt_on date,
  -- When the next attempt is due: the due date (or the day the scheduler reached it), then the retry days.
  next_attempt_on date NOT NULL,
  last_payment_id text REFERENCES payments (id),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  PRIMARY KEY (schedule_id, due_date)
);
CREATE INDEX schedule_charges_pending_idx ON schedule_charges (next_attempt_on) WHERE status = 'pending';

ALTER TABLE payments ADD CONSTRAINT payments_schedule_fkey FOREIGN KEY (schedule_id) REFERENCES schedules (id);
CREATE INDEX payments_schedule_idx ON payments (schedule_id, created_at) WHERE schedule_id IS NOT NULL;
