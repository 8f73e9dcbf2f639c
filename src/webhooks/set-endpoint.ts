import type { Actor } from '../audit/actor.ts';
import { generateWebhookSecret, type IntegratorService } from '../integrators/service.ts';
import { FieldValidationError } from '../platform/errors.ts';
import { checkWebhookUrl } from './address.ts';
import { endpointView } from './endpoint-view.ts';
import type { WebhookService } from './service.ts';

/**
 * Sets (or, with null, removes) an integrator's webhook URL, for the Integration API and the dashboard alike: an
 * http(s) URL on a host allowed here; setting one lifts a 410's disabling. The first URL ever set comes with a newly
 * made signing secret, returned this once.
 */
export async function setWebhookEndpoint(
  services: { integrators: IntegratorService; webhooks: WebhookService },
  config: { allowPrivateWebhookHosts: boolean; serviceEnv: string },
  integratorId: string,
  url: string | null,
  actor: Actor,
) {
  if (url !== null && !/^https?:\/\//i.test(url)) {
    throw new FieldValidationError({
      url: ['Enter an http or https URL, e.g. https://example.com/webhooks.'],
    });
  }
  await checkWebhookUrl(url, {
    allowPrivate: config.allowPrivateWebhookHosts,
    sandbox: config.serviceEnv === 'sandbox',
    field: 'url',
  });
  const firstSecret = generateWebhookSecret();
  const updated = await services.integrators.update(integratorId, { webhook_url: url }, actor, {
    firstWebhookSecret: firstSecret,
  });
  if (url !== null) await services.webhooks.enableEndpoint(integratorId, actor);
  const view = endpointView(await services.webhooks.integratorEndpoint(integratorId));
  // Only a secret minted by this very request is shown: an existing one never is (rotating gives a new one).
  return updated.webhook_secret === firstSecret ? { ...view, secret: firstSecret } : view;
}
