-- The dashboard's payments: when a payment first waited for its tenant (3-D Secure, an APM's page or QR code, a
-- recurring charge their bank wants them to authenticate), for its timeline; null before this column existed.
ALTER TABLE payments ADD COLUMN action_required_at timestamptz;

-- Its search, newest first by (created_at, id): one index per filter, so every mix of filters starts from the
-- narrowest and never scans the integrator's whole history for a rare status, method, card or amount.
CREATE INDEX payments_integrator_status_idx ON payments (integrator_id, status, created_at DESC, id DESC);
CREATE INDEX payments_integrator_method_idx ON payments (integrator_id, method, created_at DESC, id DESC);
CREATE INDEX payments_integrator_last4_idx ON payments (integrator_id, card_last4, created_at DESC, id DESC)
  WHERE card_last4 IS NOT NULL;
CREATE INDEX payments_integrator_amount_idx ON payments (integrator_id, amount_pence, created_at DESC, id DESC);
CREATE INDEX payments_integrator_pure_amount_idx ON payments (integrator_id, pure_amount_pence, created_at DESC, id DESC);
CREATE INDEX payments_integrator_reference_idx ON payments (integrator_id, reference, created_at DESC, id DESC);
CREATE INDEX payments_user_created_idx ON payments (user_id, created_at DESC, id DESC);
CREATE INDEX payments_tenancy_created_idx ON payments (tenancy_id, created_at DESC, id DESC);
-- A tenant's email by prefix (lower case, LIKE 'ada@%'), whatever the database's collation.
CREATE INDEX users_integrator_email_prefix_idx ON users (integrator_id, email_key text_pattern_ops);

-- A payment's events (its timeline and their webhook deliveries) by the payment id their data carries.
CREATE INDEX events_payment_idx ON events ((data -> 'payment' ->> 'payment_id'));
