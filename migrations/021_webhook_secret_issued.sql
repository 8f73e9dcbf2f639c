-- When the integrator's webhook secret was first put to use: a URL set (by the operator or the integrator) or the
-- secret rotated. Until then the first URL the integrator sets mints a fresh secret and answers with it; from then on
-- setting a URL never answers with a secret (a new one is got by rotating it), so no caller can read the live one.
ALTER TABLE integrators ADD COLUMN webhook_secret_issued_at timestamptz;
UPDATE integrators i SET webhook_secret_issued_at = i.updated_at
 WHERE i.webhook_url IS NOT NULL
    OR EXISTS (SELECT 1 FROM webhook_endpoints w WHERE w.integrator_id = i.id)
    OR EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.integrator_id = i.id);
