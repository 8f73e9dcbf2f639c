-- Fair claiming: a job may name whose work it is (fair_key, e.g. an integrator's id). Each worker gives one key at
-- most a share of its slots, so one integrator's slow hosts cannot hold every worker. Jobs without a key keep the
-- old due-jobs index; keyed ones are found per key, oldest first.
ALTER TABLE jobs ADD COLUMN fair_key text;
DROP INDEX jobs_due_idx;
CREATE INDEX jobs_due_idx ON jobs (run_at) WHERE status = 'pending' AND fair_key IS NULL;
CREATE INDEX jobs_due_keyed_idx ON jobs (fair_key, run_at) WHERE status = 'pending' AND fair_key IS NOT NULL;
CREATE INDEX jobs_running_keyed_idx ON jobs (locked_by, fair_key) WHERE status = 'running' AND fair_key IS NOT NULL;
