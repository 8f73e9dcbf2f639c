import type { JobHandler } from './queue.ts';

/** Payload `{}`: deletes finished jobs older than the retention, in batches. */
export const JOBS_PRUNE_JOB = 'jobs.prune';
/** How often each worker process enqueues a prune; all of them together make one per period. */
export const JOBS_PRUNE_EVERY_MS = 60 * 60_000;
export const DEFAULT_JOB_RETENTION_DAYS = 7;
const PRUNE_BATCH = 1_000;

/**
 * Deletes succeeded and failed jobs that finished more than `retentionMs` ago, PRUNE_BATCH rows per statement (each
 * its own short transaction, skipping rows another prune holds), so a large backlog neither holds locks for long
 * nor builds one huge statement. Jobs still pending or running are never touched.
 */
export function jobsPruneHandler(retentionMs: number): JobHandler {
  return async ({ db, clock, log }) => {
    const before = new Date(clock.now().getTime() - retentionMs);
    let deleted = 0;
    for (;;) {
      const rows = await db.query<{ id: string }>(
        `DELETE FROM jobs WHERE id IN (
           SELECT id FROM jobs
            WHERE status IN ('succeeded', 'failed') AND finished_at < $1
            LIMIT $2
            FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [before, PRUNE_BATCH],
      );
      deleted += rows.length;
      if (rows.length < PRUNE_BATCH) break;
    }
    log.info({ deleted, finished_before: before.toISOString() }, 'finished jobs pruned');
  };
}
