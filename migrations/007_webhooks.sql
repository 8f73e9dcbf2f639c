-- Webhook delivery. An event of an integrator that has a webhook URL gets a delivery row and a
-- 'webhook.deliver' job in the transaction that records the event; the job's handler makes one attempt and
-- schedules the next one itself.

-- One delivery per event: an integrator has one endpoint, so (event, endpoint) is the event.
CREATE TABLE webhook_deliveries (
  event_id text PRIMARY KEY REFERENCES events (id),
  integrator_id text NOT NULL REFERENCES integrators (id),
  status text NOT NULL CHECK (status IN ('pending', 'delivered', 'failed')),
  -- Attempts of the current round, i.e. the position in the retry schedule; a redelivery starts a new round.
  round_attempts integer NOT NULL DEFAULT 0,
  -- Every attempt ever made; numbers the rows of webhook_attempts.
  attempts integer NOT NULL DEFAULT 0,
  -- When the next attempt is due (pending only).
  next_attempt_at timestamptz,
  -- Since when the event has waited to be delivered: the delivery's creation, or its last redelivery.
  pending_since timestamptz,
  -- The one job that may make the next attempt (each retry or redelivery writes a new one); a job that is not
  -- this one does nothing, so an event is never sent by two workers at once.
  job_id text,
  last_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  delivered_at timestamptz,
  failed_at timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CHECK (status <> 'pending' OR (next_attempt_at IS NOT NULL AND pending_since IS NOT NULL))
);
CREATE INDEX webhook_deliveries_pending_idx ON webhook_deliveries (pending_since) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_failed_idx ON webhook_deliveries (failed_at) WHERE status = 'failed';
-- The endpoint view counts one integrator's pending and failed deliveries.
CREATE INDEX webhook_deliveries_integrator_status_idx ON webhook_deliveries (integrator_id, status);

-- The delivery log: every attempt, with what the endpoint answered (the first 1 KB of it).
CREATE TABLE webhook_attempts (
  event_id text NOT NULL REFERENCES webhook_deliveries (event_id),
  number integer NOT NULL,
  url text NOT NULL,
  attempted_at timestamptz NOT NULL,
  latency_ms integer NOT NULL,
  -- null when no HTTP answer came (timeout, connection refused, address refused...).
  status_code integer,
  outcome text NOT NULL CHECK (outcome IN ('delivered', 'retry', 'failed', 'disabled')),
  error text,
  response_body text,
  next_attempt_at timestamptz,
  PRIMARY KEY (event_id, number)
);

-- Per-integrator endpoint state beside integrators.webhook_url and webhook_secret: the previous secret during a
-- rotation, and whether the URL was disabled by a 410 Gone (a different URL, or the operator, enables it again).
CREATE TABLE webhook_endpoints (
  integrator_id text PRIMARY KEY REFERENCES integrators (id),
  previous_secret text,
  previous_secret_expires_at timestamptz,
  secret_rotated_at timestamptz,
  disabled_url text,
  disabled_at timestamptz,
  disabled_reason text,
  updated_at timestamptz NOT NULL
);

-- The operator's event listing across integrators, newest first.
CREATE INDEX events_created_idx ON events (created_at DESC, id DESC);
