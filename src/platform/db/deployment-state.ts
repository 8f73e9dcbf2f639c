import type { Queryable } from './db.ts';

/**
 * The deployment_state table: one-off facts of a deployment (e.g. which integrator is the demo's), each written
 * once by whichever process claims its key first.
 */

/**
 * Claims `key` with an empty value; true for the one caller that got it. With `staleBefore`, a claim made before
 * then whose value was never recorded (its process died) is taken over.
 */
export async function claimDeploymentState(
  db: Queryable,
  key: string,
  now: Date,
  staleBefore?: Date,
): Promise<boolean> {
  const claimed = staleBefore
    ? await db.query(
        `INSERT INTO deployment_state (key, value, updated_at) VALUES ($1, '{}'::jsonb, $2)
         ON CONFLICT (key) DO UPDATE SET updated_at = $2
           WHERE deployment_state.value = '{}'::jsonb AND deployment_state.updated_at < $3
         RETURNING key`,
        [key, now, staleBefore],
      )
    : await db.query(
        `INSERT INTO deployment_state (key, value, updated_at) VALUES ($1, '{}'::jsonb, $2)
         ON CONFLICT (key) DO NOTHING RETURNING key`,
        [key, now],
      );
  return claimed.length > 0;
}

/** Records the value of a key this process claimed. */
export async function recordDeploymentState(
  db: Queryable,
  key: string,
  value: Record<string, unknown>,
  now: Date,
): Promise<void> {
  await db.query('UPDATE deployment_state SET value = $2::jsonb, updated_at = $3 WHERE key = $1', [
    key,
    value,
    now,
  ]);
}

export async function readDeploymentState<Value>(db: Queryable, key: string): Promise<Value | undefined> {
  const [row] = await db.query<{ value: Value }>('SELECT value FROM deployment_state WHERE key = $1', [key]);
  return row?.value;
}
