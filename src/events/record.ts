import type { Clock } from '../platform/clock/clock.ts';
import type { Queryable } from '../platform/db/db.ts';
import { newId } from '../platform/ids.ts';

export type EventType =
  | 'payment_success'
  | 'payment_failed'
  | 'payment_refunded'
  | 'schedule_created'
  | 'schedule_paused'
  | 'schedule_resumed'
  | 'schedule_canceled'
  | 'document_failed';

/**
 * Records an event in the caller's transaction, beside the state change that causes it (contract §4): the
 * change and its event commit together or not at all. Delivery is the webhooks module's job.
 */
export async function recordEvent(
  tx: Queryable,
  clock: Clock,
  integratorId: string,
  type: EventType,
  data: Record<string, unknown>,
): Promise<string> {
  const id = newId('evt');
  await tx.query(
    'INSERT INTO events (id, integrator_id, type, data, created_at) VALUES ($1, $2, $3, $4::jsonb, $5)',
    [id, integratorId, type, data, clock.now()],
  );
  return id;
}
