-- People who sign in to the dashboard: a member of one integrator's team (integrator_id) or of the operator's staff
-- (integrator_id NULL), with one role. An email belongs to one person at a time; a removed person keeps their row
-- (the audit log names them) and their email may be invited again.
CREATE TABLE dashboard_users (
  id text PRIMARY KEY,
  integrator_id text REFERENCES integrators (id),
  email text NOT NULL,
  email_key text NOT NULL,
  role text NOT NULL CHECK (role IN ('admin', 'developer', 'finance', 'support', 'operator_admin', 'operator_support')),
  CHECK ((integrator_id IS NULL) = (role LIKE 'operator_%')),
  -- scrypt, as "scrypt$N$r$p$salt$hash" (base64); NULL until the person has set up their sign-in.
  password_hash text,
  -- The authenticator app's secret (base32); NULL when the person has none.
  totp_secret text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  removed_at timestamptz
);
CREATE UNIQUE INDEX dashboard_users_email_idx ON dashboard_users (email_key) WHERE removed_at IS NULL;
CREATE INDEX dashboard_users_integrator_idx ON dashboard_users (integrator_id, created_at);

-- One-time links to set up a sign-in, stored as SHA-256 only: valid 72 hours, used once; a new invite of a person
-- ends their older ones.
CREATE TABLE dashboard_invites (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES dashboard_users (id),
  token_hash text NOT NULL UNIQUE,
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX dashboard_invites_user_idx ON dashboard_invites (user_id);
