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
