-- Tenants (users) as integrators onboard them. user_id in the API is external_id here.
CREATE TABLE users (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  external_id bigint NOT NULL,
  email text NOT NULL,
  -- lower(email): the login identifier, unique within an integrator.
  email_key text NOT NULL,
  first_name text NOT NULL,
  last_name text NOT NULL,
  phone_number text NOT NULL,
  date_of_birth date NOT NULL,
  kyc_status text,
  kyc_pii_front text,
  kyc_pii_back text,
  kyc_photo text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (integrator_id, external_id),
  UNIQUE (integrator_id, email_key)
);

CREATE TABLE tenancies (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  user_id text NOT NULL REFERENCES users (id),
  post_code text NOT NULL,
  address_1 text NOT NULL,
  city text NOT NULL,
  country text NOT NULL,
  is_primary boolean NOT NULL,
  start_rent_date date NOT NULL,
  end_rent_date date NOT NULL,
  rent_due_day integer NOT NULL CHECK (rent_due_day BETWEEN 1 AND 31),
  amount_pence bigint NOT NULL CHECK (amount_pence > 0),
  frequency text NOT NULL,
  is_active boolean NOT NULL,
  payment_reference text NOT NULL,
  recipient_bank_sort_code text NOT NULL,
  recipient_bank_account_number text NOT NULL,
  recipient_bank_account_name text NOT NULL,
  agreement_url text NOT NULL,
  -- {"total_amount_pence": n | null, "installments": [{"installment_number", "due_date", "amount_pence"}]}
  installment_plan jsonb,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  UNIQUE (integrator_id, payment_reference)
);
CREATE INDEX tenancies_user_idx ON tenancies (user_id);

-- Documents fetched from integrator-supplied URLs: one row per tenancy agreement and per KYC link.
-- generation grows when the URL changes, so a fetch job for an older URL knows it is stale.
CREATE TABLE documents (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  user_id text NOT NULL REFERENCES users (id),
  tenancy_id text REFERENCES tenancies (id),
  kind text NOT NULL CHECK (kind IN ('agreement', 'pii_front', 'pii_back', 'photo')),
  source_url text NOT NULL,
  generation integer NOT NULL DEFAULT 1,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'stored', 'failed')),
  sha256 text,
  size_bytes bigint,
  content_type text,
  storage_key text,
  failure_reason text,
  attempts integer NOT NULL DEFAULT 0,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE UNIQUE INDEX documents_agreement_idx ON documents (tenancy_id) WHERE kind = 'agreement';
CREATE UNIQUE INDEX documents_kyc_idx ON documents (user_id, kind) WHERE kind <> 'agreement';

-- Events for integrators, written in the same transaction as the change that causes them.
CREATE TABLE events (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  type text NOT NULL,
  data jsonb NOT NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX events_integrator_idx ON events (integrator_id, created_at);

-- Payment sessions from user-login. The user session token is stored as its SHA-256 only.
CREATE TABLE sessions (
  id text PRIMARY KEY,
  integrator_id text NOT NULL REFERENCES integrators (id),
  user_id text NOT NULL REFERENCES users (id),
  tenancy_id text NOT NULL REFERENCES tenancies (id),
  token_hash text NOT NULL UNIQUE,
  token_expires_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  completed_at timestamptz,
  created_at timestamptz NOT NULL
);
CREATE INDEX sessions_expiry_idx ON sessions (expires_at);
