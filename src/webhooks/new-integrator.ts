import { type Actor, requirePermission } from '../audit/actor.ts';
import type { CreateIntegratorBody } from '../integrators/schemas.ts';
import type { CreatedIntegrator, IntegratorService } from '../integrators/service.ts';
import { settingsFromBody } from '../integrators/settings.ts';
import { checkWebhookUrl } from './address.ts';

/**
 * A new integrator from the operator's create body, for the Operator API and the operator console alike: the
 * settings checked and converted, a webhook URL only on a host allowed here, then created with its first server
 * token and audited as the actor's.
 */
export async function createIntegrator(
  integrators: IntegratorService,
  config: { allowPrivateWebhookHosts: boolean; serviceEnv: string },
  body: CreateIntegratorBody,
  actor: Actor,
): Promise<CreatedIntegrator> {
  // Before the URL's host is looked up: someone who may not create learns nothing of it.
  requirePermission(actor, 'integrators.manage');
  const settings = settingsFromBody(body);
  await checkWebhookUrl(settings.webhook_url, {
    allowPrivate: config.allowPrivateWebhookHosts,
    sandbox: config.serviceEnv === 'sandbox',
  });
  return integrators.create({ ...settings, name: settings.name ?? body.name }, actor);
}
