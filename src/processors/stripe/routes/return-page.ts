import { createHash } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { RETURN_PATH } from '../processor.ts';

/**
 * The top-level window a redirect method (Alipay) opened comes back here: it hands Stripe's answer to the
 * payment frame that opened it (same origin) and closes; opened any other way, it says where to go next. The
 * frame then asks our server for the payment, which reads Stripe: the query string decides nothing.
 */
const SCRIPT = `
const query = new URLSearchParams(location.search);
const message = { type: 'rentpay:processor-return', payment_intent: query.get('payment_intent'),
  redirect_status: query.get('redirect_status') };
if (window.opener && !window.opener.closed) {
  window.opener.postMessage(message, location.origin);
  window.close();
}
document.getElementById('status').textContent = query.get('redirect_status') === 'succeeded'
  ? 'Payment approved. Return to the payment page to see its outcome.'
  : 'The payment was not approved. Return to the payment page to try again.';
`;

const SCRIPT_HASH = createHash('sha256').update(SCRIPT).digest('base64');

const HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Returning to your payment</title></head>
<body style="font-family: system-ui, sans-serif; margin: 2rem;">
<h1 style="font-size: 1.25rem;">Returning to your payment…</h1>
<p id="status" role="status">You can close this window.</p>
<script>${SCRIPT}</script>
</body>
</html>`;

export const stripeReturnPage: FastifyPluginAsync = async (app) => {
  app.get(RETURN_PATH, { schema: { hide: true } }, async (_request, reply) =>
    reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header(
        'content-security-policy',
        `default-src 'none'; script-src 'sha256-${SCRIPT_HASH}'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'`,
      )
      .header('referrer-policy', 'no-referrer')
      .send(HTML),
  );
};
