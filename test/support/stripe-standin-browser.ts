/**
 * The browser side of the local Stripe stand-in (tests only): the Stripe.js stand-in at /js/v3/, its Payment
 * Element frame, the issuer's 3DS / APM page, and the publishable-key calls Stripe.js makes. Test card numbers
 * map to Stripe's test PaymentMethods as Stripe documents them.
 */
import fs from 'node:fs';
import type http from 'node:http';

const STRIPE_JS = fs.readFileSync(new URL('./stripe-js-standin.js', import.meta.url), 'utf8');

/** Stripe's test card numbers → the test PaymentMethods they stand for. */
export const TEST_CARD_NUMBERS: Record<string, string> = {
  '4242424242424242': 'pm_card_visa',
  '5555555555554444': 'pm_card_mastercard',
  '6200000000000005': 'pm_card_unionpay',
  '4000000000000002': 'pm_card_chargeDeclined',
  '4000000000009995': 'pm_card_chargeDeclinedInsufficientFunds',
  '4000000000000069': 'pm_card_chargeDeclinedExpiredCard',
  '4000000000000341': 'pm_card_chargeCustomerFail',
  '4000002760003184': 'pm_card_authenticationRequired',
  '4000002500003155': 'pm_card_authenticationRequiredOnSetup',
};

/** What the browser routes need of the stand-in. */
export interface BrowserStandIn {
  readonly paymentIntents: Map<string, Record<string, unknown> & { id: string }>;
  readonly setupIntents: Map<string, Record<string, unknown> & { id: string }>;
  createConfirmationToken(
    paymentMethod: string,
    wallet?: string,
    setupFutureUsage?: string,
  ): Record<string, unknown>;
  completeAction(intentId: string, succeed: boolean): unknown;
}

function send(res: http.ServerResponse, status: number, type: string, body: string, headers = {}): true {
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', ...headers });
  res.end(body);
  return true;
}

const json = (res: http.ServerResponse, status: number, body: unknown) =>
  send(res, status, 'application/json', JSON.stringify(body), { 'access-control-allow-origin': '*' });

const page = (title: string, body: string, script: string) => `<!doctype html><html lang="en"><head>
<meta charset="utf-8"><title>${title}</title>
<style>body{font-family:system-ui,sans-serif;margin:12px}label{display:block;margin:4px 0}input{font-size:16px;padding:6px;width:90%}button{margin:8px 8px 0 0;padding:8px 12px}</style>
</head><body>${body}<script>${script}</script></body></html>`;

/**
 * The frames' script: the Elements group's options Stripe.js passed with the request (its mode, and
 * setup_future_usage when the group has one) go with the ConfirmationToken, as Stripe.js sends them.
 */
const GROUP_OPTIONS = `
function groupOptions(form, data) {
  if (data.mode) form.set('mode', data.mode);
  if (data.setup_future_usage) form.set('setup_future_usage', data.setup_future_usage);
}`;

function elementPage(types: string[]): string {
  const card = types.includes('card');
  const numbers = JSON.stringify(TEST_CARD_NUMBERS);
  const body = card
    ? '<label for="number">Card number</label><input id="number" autocomplete="cc-number" inputmode="numeric"><p id="error" role="alert"></p>'
    : `<p>After you press pay, ${types[0] === 'alipay' ? 'Alipay opens in a new window' : 'a WeChat Pay QR code appears'}.</p>`;
  const script = `${GROUP_OPTIONS}
const numbers = ${numbers};
const apm = ${JSON.stringify(card ? null : types[0])};
function method() {
  if (apm) return { ok: true, value: apm };
  const digits = document.getElementById('number').value.replace(/\\D/g, '');
  const pm = numbers[digits];
  if (!pm) { document.getElementById('error').textContent = 'Your card number is incorrect.'; return { ok: false }; }
  document.getElementById('error').textContent = '';
  return { ok: true, value: pm };
}
window.addEventListener('message', async (event) => {
  const data = event.data || {};
  const reply = (answer) => event.source.postMessage({ ...answer, request_id: data.request_id }, event.origin);
  const chosen = method();
  if (!chosen.ok) return reply({ error: { type: 'validation_error', code: 'incomplete_number', message: 'Your card number is incorrect.' } });
  if (data.type === 'validate') return reply({});
  if (data.type === 'create_confirmation_token') {
    const form = new URLSearchParams({ key: data.key });
    if (apm) form.set('payment_method_data[type]', apm); else form.set('payment_method', chosen.value);
    groupOptions(form, data);
    const response = await fetch('/v1/confirmation_tokens', { method: 'POST', body: form });
    const body = await response.json();
    reply(response.ok ? { confirmation_token: body } : { error: body.error });
  }
});`;
  return page('Payment Element', body, script);
}

const WALLET_NAMES: Record<string, string> = { apple_pay: 'Apple Pay', google_pay: 'Google Pay' };

/**
 * The Express Checkout Element's frame: one wallet button. Pressing it plays the wallet sheet's approval at once
 * (the stand-in's device has a Visa card in its wallet); the page's script then makes the ConfirmationToken.
 */
function expressPage(wallet: string): string {
  const name = WALLET_NAMES[wallet] ?? wallet;
  const body = `<button id="pay" type="button" style="width:100%;padding:10px;background:#000;color:#fff;border:0;border-radius:6px">Pay with ${name}</button>`;
  const script = `${GROUP_OPTIONS}
const wallet = ${JSON.stringify(wallet)};
document.getElementById('pay').addEventListener('click', () =>
  parent.postMessage({ type: 'standin:express-confirm', wallet }, '*'));
window.addEventListener('message', async (event) => {
  const data = event.data || {};
  const reply = (answer) => event.source.postMessage({ ...answer, request_id: data.request_id }, event.origin);
  if (data.type === 'validate') return reply({});
  if (data.type === 'create_confirmation_token') {
    const form = new URLSearchParams({ key: data.key, payment_method: 'pm_card_visa', wallet });
    groupOptions(form, data);
    const response = await fetch('/v1/confirmation_tokens', { method: 'POST', body: form });
    const body = await response.json();
    reply(response.ok ? { confirmation_token: body } : { error: body.error });
  }
});`;
  return page(`${name} button`, body, script);
}

function actionPage(id: string, returnUrl: string | null): string {
  const query = returnUrl ? `&return_url=${encodeURIComponent(returnUrl)}` : '';
  const body = `<h1 style="font-size:18px">Test authentication (Stripe stand-in)</h1>
<p>Complete or fail this test ${id.startsWith('seti_') ? 'card check' : 'payment'}.</p>
<form method="post" action="/_standin/action/${id}?result=succeed${query}"><button>Complete</button></form>
<form method="post" action="/_standin/action/${id}?result=fail${query}"><button>Fail</button></form>`;
  return page('Authentication', body, '');
}

function donePage(id: string): string {
  return page(
    'Done',
    '<p>Done.</p>',
    `if (window.parent !== window) window.parent.postMessage({ type: 'standin:action-done', id: ${JSON.stringify(id)} }, '*');`,
  );
}

/** An intent read by Stripe.js: only with its client secret and a publishable key, as Stripe checks. */
function intentForBrowser(stand: BrowserStandIn, kind: string, id: string, url: URL) {
  const map = kind === 'setup_intents' ? stand.setupIntents : stand.paymentIntents;
  const intent = map.get(id);
  if (!intent || intent.client_secret !== url.searchParams.get('client_secret')) return undefined;
  return intent;
}

/**
 * Answers the stand-in's browser routes; false for anything else (the API). `raw` is the request body.
 */
export function browserRoute(
  stand: BrowserStandIn,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  raw: string,
): boolean {
  const url = new URL(req.url ?? '/', 'http://stripe');
  const method = req.method ?? 'GET';
  if (url.pathname === '/js/v3/' || url.pathname === '/js/v3') {
    return send(res, 200, 'application/javascript; charset=utf-8', STRIPE_JS);
  }
  if (url.pathname === '/_standin/element') {
    return send(
      res,
      200,
      'text/html; charset=utf-8',
      elementPage((url.searchParams.get('types') ?? 'card').split(',')),
    );
  }
  if (url.pathname === '/_standin/express') {
    return send(res, 200, 'text/html; charset=utf-8', expressPage(url.searchParams.get('wallet') ?? ''));
  }
  const action = /^\/_standin\/action\/((?:pi|seti)_\w+)$/.exec(url.pathname);
  if (action) {
    const id = action[1]!;
    const returnUrl = url.searchParams.get('return_url');
    if (method === 'GET') return send(res, 200, 'text/html; charset=utf-8', actionPage(id, returnUrl));
    stand.completeAction(id, url.searchParams.get('result') === 'succeed');
    if (!returnUrl) return send(res, 200, 'text/html; charset=utf-8', donePage(id));
    const back = new URL(returnUrl);
    back.searchParams.set(id.startsWith('seti_') ? 'setup_intent' : 'payment_intent', id);
    back.searchParams.set(
      'redirect_status',
      url.searchParams.get('result') === 'succeed' ? 'succeeded' : 'failed',
    );
    res.writeHead(303, { location: back.toString() });
    res.end();
    return true;
  }
  // Stripe.js's own calls, authenticated by the publishable key.
  const key = url.searchParams.get('key') ?? new URLSearchParams(raw).get('key') ?? '';
  if (!url.pathname.startsWith('/v1/') || !/^pk_(test|live)_\S+$/.test(key)) return false;
  const [, , resource, id] = url.pathname.split('/');
  if (method === 'GET' && (resource === 'payment_intents' || resource === 'setup_intents') && id) {
    const intent = intentForBrowser(stand, resource, id, url);
    if (!intent)
      return json(res, 404, { error: { type: 'invalid_request_error', code: 'resource_missing' } });
    return json(res, 200, intent);
  }
  if (method === 'POST' && resource === 'confirmation_tokens' && !id) {
    const form = new URLSearchParams(raw);
    return json(
      res,
      200,
      stand.createConfirmationToken(
        form.get('payment_method') ?? form.get('payment_method_data[type]') ?? '',
        form.get('wallet') ?? undefined,
        form.get('setup_future_usage') ?? undefined,
      ),
    );
  }
  return false;
}
