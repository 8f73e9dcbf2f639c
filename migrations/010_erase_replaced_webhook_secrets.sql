-- A webhook secret replaced by rotation is kept only while it still signs (its overlap): from now on a job
-- erases it when the overlap ends. Secrets replaced before that job existed: erase those past their overlap now,
-- and give those still in it their job.
UPDATE webhook_endpoints SET previous_secret = NULL
 WHERE previous_secret IS NOT NULL AND previous_secret_expires_at <= now();

INSERT INTO jobs (id, kind, payload, dedupe_key, run_at, max_attempts, created_at, updated_at)
SELECT 'job_' || substr(md5(random()::text || integrator_id), 1, 22), 'webhook.secret-erase',
       jsonb_build_object('integrator_id', integrator_id),
       'webhook.secret-erase:' || integrator_id || ':' ||
         to_char(previous_secret_expires_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
       previous_secret_expires_at, 10, now(), now()
  FROM webhook_endpoints
 WHERE previous_secret IS NOT NULL
ON CONFLICT (dedupe_key) DO NOTHING;
