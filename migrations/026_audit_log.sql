-- Who changed money, credentials or settings: one hash chain per integrator (scope = its id) and one for the
-- operator's own actions (scope 'operator'). Each entry's hash covers its content and the hash of the entry before
-- it, so an edited, removed or inserted entry breaks the chain from there on; audit_heads holds each chain's last
-- entry, so removing the newest entries is found as well.
CREATE TABLE audit_log (
  id text PRIMARY KEY,
  scope text NOT NULL,
  seq bigint NOT NULL,
  created_at timestamptz NOT NULL,
  actor jsonb NOT NULL,
  action text NOT NULL,
  target_type text NOT NULL,
  target_id text NOT NULL,
  summary jsonb NOT NULL,
  address text,
  request_id text,
  prev_hash text NOT NULL,
  hash text NOT NULL,
  UNIQUE (scope, seq)
);

CREATE TABLE audit_heads (
  scope text PRIMARY KEY,
  seq bigint NOT NULL,
  hash text NOT NULL
);

-- Append-only: the service never updates or deletes an entry, and the database refuses it too.
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql
  AS 'BEGIN RAISE EXCEPTION ''audit_log is append-only''; END';
CREATE TRIGGER audit_log_append_only BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
