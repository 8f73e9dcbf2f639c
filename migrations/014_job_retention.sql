-- Finished jobs are deleted after JOB_RETENTION_DAYS; this finds the oldest ones without reading the rest.
CREATE INDEX jobs_finished_idx ON jobs (finished_at) WHERE status IN ('succeeded', 'failed');
