-- Integrators: the property platforms that call the Integration API.
CREATE TABLE integrators (
  id text PRIMARY KEY,
  name text NOT NULL,
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  webhook_url text,
  -- Kept in clear: HMAC signing needs the secret itself, not a hash of it.
  webhook_secret text NOT NULL,
  allowed_origins jsonb NOT NULL DEFAULT '[]',
  -- {"card": {"percent_bps": 140, "fixed_pence": 20}, ...}
  fees jsonb NOT NULL DEFAULT '{}',
  rate_limit_per_second integer NOT NULL DEFAULT 100 CHECK (rate_limit_per_second > 0),
  rate_limit_burst integer NOT NULL DEFAULT 200 CHECK (rate_limit_burst > 0),
  CHECK (rate_limit_burst >= rate_limit_per_second),
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Server tokens, stored as SHA-256 only. expires_at NULL: valid until rotated.
CREATE TABLE server_tokens (
  id text PRIMARY KEY,
  -- Issue order, even for tokens issued within the same millisecond.
  seq bigint GENERATED ALWAYS AS IDENTITY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  token_hash text NOT NULL UNIQUE,
  -- First characters for operators to tell tokens apart, e.g. "rp_sandbox_Ab3d".
  display_prefix text NOT NULL,
  created_at timestamptz NOT NULL,
  expires_at timestamptz
);
CREATE INDEX server_tokens_integrator_idx ON server_tokens (integrator_id, created_at);

-- One row: the operator token's hash when OPERATOR_TOKEN is not set in the environment.
CREATE TABLE operator_credentials (
  id integer PRIMARY KEY CHECK (id = 1),
  token_hash text NOT NULL,
  created_at timestamptz NOT NULL
);

-- Facts about this deployment, e.g. whether the demo integrator was created.
CREATE TABLE deployment_state (
  key text PRIMARY KEY,
  value jsonb NOT NULL,
  updated_at timestamptz NOT NULL
);

-- Background jobs, written in the same transaction as the change that needs them.
CREATE TABLE jobs (
  id text PRIMARY KEY,
  kind text NOT NULL,
  payload jsonb NOT NULL DEFAULT '{}',
  -- Set for jobs that must exist at most once, e.g. "expire-token:tok_..."
  dedupe_key text UNIQUE,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'succeeded', 'failed')),
  run_at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  max_attempts integer NOT NULL DEFAULT 10,
  locked_by text,
  locked_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  finished_at timestamptz
);
CREATE INDEX jobs_due_idx ON jobs (run_at) WHERE status = 'pending';
CREATE INDEX jobs_lease_idx ON jobs (locked_until) WHERE status = 'running';
