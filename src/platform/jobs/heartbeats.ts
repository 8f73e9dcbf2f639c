import type { Clock } from '../clock/clock.ts';
import type { Queryable } from '../db/db.ts';
import { qb, rows } from '../db/query-builder.ts';

/**
 * How long a worker's loop may go without turning before it counts as stale: three of the longer of its poll interval
 * and its lease heartbeat, and 30 s at least. The worker's /readyz and the heartbeat table use the same limit.
 */
export function staleAfterMs(pollIntervalMs: number, heartbeatMs: number): number {
  return Math.max(30_000, 3 * Math.max(pollIntervalMs, heartbeatMs));
}

/** A worker process as its heartbeat row says it. */
export interface WorkerBeat {
  id: string;
  host: string;
  pid: number;
  startedAt: Date;
  staleAfterMs: number;
}

/** The worker's row, now as its last beat: one statement, whatever the number of jobs it ran since the last. */
export async function recordBeat(db: Queryable, worker: WorkerBeat, at: Date): Promise<void> {
  await db.query(
    `INSERT INTO worker_heartbeats (id, host, pid, started_at, last_beat_at, stale_after_ms)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO UPDATE SET last_beat_at = EXCLUDED.last_beat_at`,
    [worker.id, worker.host, worker.pid, worker.startedAt, at, worker.staleAfterMs],
  );
}

/** A worker that stops cleanly takes its row away: only workers that died without stopping stay, as stale. */
export async function forgetWorker(db: Queryable, id: string): Promise<void> {
  await db.query('DELETE FROM worker_heartbeats WHERE id = $1', [id]);
}

/** Rows of workers not heard from since `before` (the hourly prune, with the job retention). */
export async function pruneHeartbeats(db: Queryable, before: Date): Promise<number> {
  return (await db.query('DELETE FROM worker_heartbeats WHERE last_beat_at < $1 RETURNING id', [before]))
    .length;
}

export interface WorkerHeartbeat {
  id: string;
  host: string;
  pid: number;
  startedAt: Date;
  lastBeatAt: Date;
  staleAfterMs: number;
  lastBeatSecondsAgo: number;
  stale: boolean;
}

/** Every worker process's last beat (of every node sharing the database), newest start first. */
export async function workerHeartbeats(db: Queryable, clock: Clock): Promise<WorkerHeartbeat[]> {
  const now = clock.now().getTime();
  const found = await rows(
    db,
    qb
      .selectFrom('worker_heartbeats')
      .select(['id', 'host', 'pid', 'started_at', 'last_beat_at', 'stale_after_ms'])
      .orderBy('started_at', 'desc')
      .orderBy('id'),
  );
  return found.map((row) => {
    const ago = Math.max(0, now - row.last_beat_at.getTime());
    return {
      id: row.id,
      host: row.host,
      pid: row.pid,
      startedAt: row.started_at,
      lastBeatAt: row.last_beat_at,
      staleAfterMs: row.stale_after_ms,
      lastBeatSecondsAgo: Math.round(ago / 100) / 10,
      stale: ago >= row.stale_after_ms,
    };
  });
}
