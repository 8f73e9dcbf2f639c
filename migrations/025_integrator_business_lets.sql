-- The operator's record of the integrator's declaration that its tenants are businesses, not consumers. Without it a
-- production integrator may charge tenants no fee (UK law bans surcharges on consumer card payments and, in England,
-- most tenant fees), so every existing integrator starts without it.
ALTER TABLE integrators ADD COLUMN business_lets boolean NOT NULL DEFAULT false;
