-- A recurring charge the tenant's bank wants authenticated (SCA) waits for the tenant: its charge is
-- 'requires_action' until they confirm it in a session, or until next_attempt_on, the day after the last day a
-- refused charge would have been retried, when it fails.
ALTER TABLE schedule_charges DROP CONSTRAINT schedule_charges_status_check;
ALTER TABLE schedule_charges ADD CONSTRAINT schedule_charges_status_check
  CHECK (status IN ('pending', 'succeeded', 'failed', 'canceled', 'requires_action'));
CREATE INDEX schedule_charges_action_idx ON schedule_charges (next_attempt_on) WHERE status = 'requires_action';
-- A tenant's charges waiting for them, shown in each session they open.
CREATE INDEX payments_waiting_for_tenant_idx ON payments (user_id)
  WHERE status = 'requires_action' AND schedule_id IS NOT NULL;
