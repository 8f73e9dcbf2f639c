-- The Operator API lists payments newest first, across integrators or for one.
CREATE INDEX payments_created_idx ON payments (created_at DESC, id DESC);
CREATE INDEX payments_integrator_created_idx ON payments (integrator_id, created_at DESC, id DESC);
