-- Signing in to the dashboard: the authenticator app's last used time step (a code is accepted once), passkeys,
-- server-side sessions, WebAuthn challenges and the failed sign-ins that rate limit an account and an address.
ALTER TABLE dashboard_users ADD COLUMN totp_last_step bigint;

-- A person's passkeys (WebAuthn credentials): the public key (COSE, base64url) and the signature counter.
CREATE TABLE dashboard_passkeys (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES dashboard_users (id),
  credential_id text NOT NULL UNIQUE,
  public_key text NOT NULL,
  counter bigint NOT NULL,
  transports text NOT NULL,
  created_at timestamptz NOT NULL,
  last_used_at timestamptz
);
CREATE INDEX dashboard_passkeys_user_idx ON dashboard_passkeys (user_id);

-- A signed-in browser: the cookie's token is stored as SHA-256 only. A session ends after 30 minutes idle, 12 hours
-- after it began, at sign-out, or when its person is removed.
CREATE TABLE dashboard_sessions (
  id text PRIMARY KEY,
  user_id text NOT NULL REFERENCES dashboard_users (id),
  token_hash text NOT NULL UNIQUE,
  csrf_token text NOT NULL,
  second_factor text NOT NULL CHECK (second_factor IN ('totp', 'passkey')),
  address text,
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  ended_at timestamptz
);
CREATE INDEX dashboard_sessions_user_idx ON dashboard_sessions (user_id) WHERE ended_at IS NULL;

-- A WebAuthn challenge, used once within five minutes: to register a passkey at set-up (user_id set) or to sign in.
CREATE TABLE dashboard_challenges (
  id text PRIMARY KEY,
  purpose text NOT NULL CHECK (purpose IN ('register', 'sign_in')),
  challenge text NOT NULL,
  user_id text REFERENCES dashboard_users (id),
  expires_at timestamptz NOT NULL,
  used_at timestamptz,
  created_at timestamptz NOT NULL
);

-- Failed sign-ins, by the email tried (known to rentpay or not) and by address: the rate limits count them.
CREATE TABLE dashboard_sign_in_failures (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  email_key text NOT NULL,
  address text NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX dashboard_sign_in_failures_email_idx ON dashboard_sign_in_failures (email_key, created_at);
CREATE INDEX dashboard_sign_in_failures_address_idx ON dashboard_sign_in_failures (address, created_at);
