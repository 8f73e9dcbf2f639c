-- The operator can suspend an integrator: its tokens then get 403 integrator_suspended on both APIs.
ALTER TABLE integrators
  ADD COLUMN status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended'));

-- The amount the integrator's server fixed (or pre-filled) at user-login; NULL: the tenant chooses.
ALTER TABLE sessions
  ADD COLUMN pure_amount_pence bigint CHECK (pure_amount_pence > 0),
  ADD COLUMN amount_editable boolean NOT NULL DEFAULT true,
  ADD CHECK (pure_amount_pence IS NOT NULL OR amount_editable);

-- Issuer declines of the Client API's card payments and card saves, counted to stop card testing.
CREATE TABLE card_declines (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  user_id text NOT NULL REFERENCES users (id),
  session_id text NOT NULL REFERENCES sessions (id),
  -- The payment, or the card-save attempt, that was declined.
  source text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX card_declines_user_idx ON card_declines (user_id, created_at);
