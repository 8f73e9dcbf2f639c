/**
 * `npm run stripe:standin`: the local stand-in for Stripe's API and Stripe.js (the one the test suites use; it is not
 * Stripe), on a port of this machine, for a rehearsal without internet. With --forward-to it POSTs every event to
 * rentpay's Stripe webhook endpoint as it happens, signed with the webhook secret, as Stripe sends them to a
 * registered endpoint. Runs until Ctrl-C.
 */
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { StripeStandIn } from '../test/support/stripe-server.ts';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: process.env.STANDIN_PORT ?? '12111' },
    'forward-to': { type: 'string' },
    'webhook-secret': { type: 'string', default: process.env.STRIPE_WEBHOOK_SECRET },
  },
});

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(
    `stripe:standin: --port must be a whole number from 0 to 65535 (got "${values.port}")\n`,
  );
  process.exit(2);
}
const secret = values['webhook-secret'] ?? `whsec_${randomBytes(24).toString('base64')}`;
if (!secret.startsWith('whsec_')) {
  process.stderr.write('stripe:standin: --webhook-secret must start with whsec_\n');
  process.exit(2);
}

let stand: StripeStandIn;
try {
  stand = await StripeStandIn.start(port);
} catch (error) {
  process.stderr.write(`stripe:standin: cannot listen on 127.0.0.1:${port}: ${(error as Error).message}\n`);
  process.exit(2);
}
const forwardTo = values['forward-to'];
if (forwardTo) stand.webhook = { url: forwardTo, secret };

const lines = [
  `Stripe stand-in (not Stripe: a local imitation for rehearsals) on ${stand.url}`,
  'Run rentpay against it with:',
  `  STRIPE_API_BASE=${stand.url}`,
  `  STRIPE_JS_URL=${stand.url}/js/v3/`,
  `  STRIPE_WEBHOOK_SECRET=${secret}`,
  '  STRIPE_SECRET_KEY and STRIPE_PUBLISHABLE_KEY: any key of the right kind (sk_test_…/pk_test_… in sandbox, sk_live_…/pk_live_… in production)',
  forwardTo
    ? `Events are POSTed to ${forwardTo} as they happen, signed with that secret.`
    : 'Events are kept, not sent: add --forward-to http://127.0.0.1:8080/api/processors/stripe/webhook to send them to rentpay.',
  'Ctrl-C stops it.',
];
process.stdout.write(`${lines.join('\n')}\n`);

const stop = async () => {
  await stand.close();
  process.exit(0);
};
process.on('SIGINT', () => void stop());
process.on('SIGTERM', () => void stop());
