import type { Static } from 'typebox';
import { Col, sqlStatement } from '../db/checked-sql.ts';
import { JOB_ROW } from './queue.ts';

/** The worker's statements on the jobs table. */
// The claim commits without waiting for its WAL to reach disk (set_config: this statement's own transaction only). A
// claim lost in a database crash only makes its jobs pending again, to run again as after a worker's crash (every
// handler is idempotent); anything a job commits afterwards waits for the disk, and the claim's WAL before it.
// The UPDATE takes the picked rows by `id = ANY (ARRAY(...))`, an index scan of the primary key whatever the planner
// guesses of LIMIT $4: with `id IN (SELECT ...)` a generic plan (a prepared statement's, kept after five calls;
// PGlite prepares every statement) hash-joined a scan of the whole table, 18 ms a claim on a 20,000-job backlog.
// Index scans that stop after $4 rows each: one scan with an OR would read and sort every due job, which costs as
// much as the backlog is long.
export const CLAIMED_ROW = Col.row({ ...JOB_ROW.properties, fair_key: Col.nullable(Col.text) });
export type ClaimedJob = Static<typeof CLAIMED_ROW>;

export const CLAIM = sqlStatement(
  CLAIMED_ROW,
  `WITH RECURSIVE keys (fair_key) AS (
     (SELECT fair_key FROM jobs WHERE status = 'pending' AND fair_key IS NOT NULL ORDER BY fair_key LIMIT 1)
     UNION ALL
     SELECT (SELECT j.fair_key FROM jobs j
              WHERE j.status = 'pending' AND j.fair_key IS NOT NULL AND j.fair_key > keys.fair_key
              ORDER BY j.fair_key LIMIT 1)
       FROM keys WHERE keys.fair_key IS NOT NULL),
   running AS (
     SELECT fair_key, count(*)::int AS n FROM jobs
      WHERE status = 'running' AND fair_key IS NOT NULL AND locked_by = $1 AND NOT (id = ANY($7::text[]))
      GROUP BY fair_key),
   expired AS (
     SELECT id, locked_until AS at FROM jobs
      WHERE status = 'running' AND locked_until < $3 AND kind = ANY($5::text[])
      ORDER BY locked_until
      LIMIT $4
      FOR UPDATE SKIP LOCKED),
   keyed AS (
     SELECT picked.id, picked.run_at AS at FROM keys
      CROSS JOIN LATERAL (
        SELECT j.id, j.run_at FROM jobs j
         WHERE j.status = 'pending' AND j.fair_key = keys.fair_key AND j.run_at <= $3 AND j.kind = ANY($5::text[])
         ORDER BY j.run_at
         LIMIT LEAST($4, GREATEST(0, $6 - COALESCE((SELECT n FROM running r WHERE r.fair_key = keys.fair_key), 0)))
         FOR UPDATE SKIP LOCKED) picked
      WHERE keys.fair_key IS NOT NULL),
   unkeyed AS (
     SELECT id, run_at AS at FROM jobs
      WHERE status = 'pending' AND fair_key IS NULL AND run_at <= $3 AND kind = ANY($5::text[])
      ORDER BY run_at
      LIMIT $4
      FOR UPDATE SKIP LOCKED),
   picked AS (
     SELECT id FROM expired
     UNION ALL
     (SELECT id FROM (SELECT id, at FROM keyed UNION ALL SELECT id, at FROM unkeyed) due ORDER BY at LIMIT $4)
     LIMIT $4)
   UPDATE jobs SET status = 'running', attempts = attempts + 1, locked_by = $1,
          locked_until = $2, updated_at = $3
    WHERE id = ANY (ARRAY(SELECT id FROM picked)) AND set_config('synchronous_commit', 'off', true) = 'off'
    RETURNING id, kind, payload, attempts, max_attempts, fair_key`,
);

export const RENEW_LEASES = sqlStatement(
  Col.row({ id: Col.text }),
  `UPDATE jobs SET locked_until = $3, updated_at = $4
    WHERE id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND locked_by = $2 AND status = 'running'
    RETURNING id`,
);

export const ANYTHING_DUE = sqlStatement(
  Col.row({ due: Col.bool }),
  `SELECT EXISTS (SELECT 1 FROM jobs WHERE status = 'pending' AND run_at <= $1)
          OR EXISTS (SELECT 1 FROM jobs WHERE status = 'running' AND locked_until < $1) AS due`,
);
