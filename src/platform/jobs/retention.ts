import { Type } from 'typebox';
import { Col, sqlStatement } from '../db/checked-sql.ts';
import { defineJob, STANDARD_RETRY } from './define.ts';
import { pruneHeartbeats } from './heartbeats.ts';

export const DEFAULT_JOB_RETENTION_DAYS = 7;
const PRUNE_BATCH = 1_000;
const PRUNE_FINISHED = sqlStatement(
  Col.row({ id: Col.text }),
  `DELETE FROM jobs WHERE id IN (
     SELECT id FROM jobs
      WHERE status IN ('succeeded', 'failed') AND finished_at < $1
      LIMIT $2
      FOR UPDATE SKIP LOCKED)
   RETURNING id`,
);

/**
 * Deletes succeeded and failed jobs that finished more than the retention ago, PRUNE_BATCH rows per statement (each
 * its own short transaction, skipping rows another prune holds), so a large backlog neither holds locks for long
 * nor builds one huge statement. Jobs still pending or running are never touched. The heartbeat rows of workers not
 * heard from for as long go too (a worker stopped cleanly removes its own). Hourly.
 */
export const jobsPruneJob = defineJob({
  kind: 'jobs.prune',
  summary: 'Deletes finished jobs, and silent workers’ heartbeats, older than JOB_RETENTION_DAYS',
  payload: Type.Object({}),
  retry: STANDARD_RETRY,
  every: { ms: 60 * 60_000, payload: () => ({}) },
  run:
    (retentionMs: number) =>
    async (_payload, { db, clock, log }) => {
      const before = new Date(clock.now().getTime() - retentionMs);
      let deleted = 0;
      for (;;) {
        const rows = await PRUNE_FINISHED.rows(db, [before, PRUNE_BATCH]);
        deleted += rows.length;
        if (rows.length < PRUNE_BATCH) break;
      }
      const workers = await pruneHeartbeats(db, before);
      log.info({ deleted, workers, finished_before: before.toISOString() }, 'finished jobs pruned');
    },
});
