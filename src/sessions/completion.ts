import type { Queryable } from '../platform/db/db.ts';

/** Marks these sessions completed (a payment in them succeeded), in `tx`; an earlier completion keeps its time. */
export async function completeSessions(
  tx: Queryable,
  sessionIds: readonly string[],
  now: Date,
): Promise<void> {
  if (sessionIds.length === 0) return;
  await tx.query(
    `UPDATE sessions SET completed_at = $2
      WHERE id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb))) AND completed_at IS NULL`,
    [sessionIds as string[], now],
    { prepare: 'complete-sessions' },
  );
}

/**
 * completeSessions for a caller whose own statement writes what completes them (new payments decided in their
 * transaction): the text of a data-modifying CTE body that completes the session of each row of `from`. Each argument
 * is an SQL expression over that row (or a parameter); the sessions table stays this module's.
 */
export function completeSessionsSql(columns: { from: string; sessionId: string; now: string }): string {
  const { from, sessionId, now } = columns;
  return `UPDATE sessions SET completed_at = ${now}
      WHERE id IN (SELECT ${sessionId} FROM ${from}) AND completed_at IS NULL
     RETURNING id`;
}
