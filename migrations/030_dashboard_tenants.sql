-- The dashboard's tenants, schedules and payouts pages.

-- Why a schedule was last paused or canceled by a person in the dashboard (or, for a pause, why rentpay paused it);
-- null when no reason was given or once it is resumed.
ALTER TABLE schedules ADD COLUMN status_reason text CHECK (char_length(status_reason) BETWEEN 1 AND 500);

-- Searching a platform's tenants: newest first, and by the start of their email, name or payment reference, in any
-- case (text_pattern_ops: LIKE 'prefix%' uses the index whatever the database's collation).
CREATE INDEX users_integrator_created_idx ON users (integrator_id, created_at DESC, id DESC);
CREATE INDEX users_email_prefix_idx ON users (integrator_id, email_key text_pattern_ops);
CREATE INDEX users_name_prefix_idx ON users (integrator_id, (lower(first_name || ' ' || last_name)) text_pattern_ops);
CREATE INDEX users_last_name_prefix_idx ON users (integrator_id, (lower(last_name)) text_pattern_ops);
CREATE INDEX tenancies_reference_prefix_idx ON tenancies (integrator_id, (lower(payment_reference)) text_pattern_ops);

-- A platform's payouts, newest first.
CREATE INDEX payouts_integrator_created_idx ON payouts (integrator_id, created_at DESC, id DESC);
-- A platform's disputed payments: rent under an open dispute is held, a lost one is deducted from payouts.
CREATE INDEX payments_disputed_idx ON payments (integrator_id, dispute_status) WHERE dispute_status IS NOT NULL;
