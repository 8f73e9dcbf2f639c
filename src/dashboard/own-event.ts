import { ServiceError } from '../platform/errors.ts';
import type { WebhookService } from '../webhooks/service.ts';

/** The event with its attempts, if it is the integrator's: another platform's event is as unknown as a made-up id. */
export async function ownEvent(webhooks: WebhookService, integratorId: string, eventId: string) {
  const found = await webhooks.getEvent(eventId).catch(() => undefined);
  if (found?.event.integrator_id !== integratorId)
    throw new ServiceError('not_found', `No event ${eventId}.`);
  return found;
}
