/**
 * A property platform's server, integrating rentpay both ways (an example to copy: Node 20 built-ins and the
 * `standardwebhooks` package only, no build step).
 *
 * - Server side only, with the server token: onboards a sample tenant (Integration API) and calls user-login for
 *   each payment session. The server token never reaches the browser; the browser only ever gets user session
 *   tokens (`rp_ust_…`), which are meant for it.
 * - One page with both integrations side by side: the hosted page in an iframe, and the SDK with the platform's
 *   own Pay button.
 * - `POST <basePath>/webhooks` receives rentpay's webhooks, verifies each on its raw body with the webhook
 *   secret (Standard Webhooks), and the page lists them with the result.
 *
 * In a real platform the two session endpoints sit behind the platform's own login, and the tenant is the
 * logged-in user, never an email sent by the browser.
 */
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';

/** The page's own script and stylesheet (no inline script or style, so a strict CSP fits). */
const PUBLIC_FILES = {
  '/app.js': { file: 'app.js', type: 'text/javascript; charset=utf-8' },
  '/style.css': { file: 'style.css', type: 'text/css; charset=utf-8' },
};
/** rentpay's webhook bodies are a few KB; anything far bigger is not one of them. */
const MAX_WEBHOOK_BYTES = 1024 * 1024;
/** The page lists the most recent webhooks only. */
const KEPT_WEBHOOKS = 50;
const API_TIMEOUT_MS = 10_000;

/**
 * The tenant the example onboards: one user with one tenancy. The agreement is the sample PDF a sandbox
 * serves itself (fetched in the background by rentpay; see the README about ALLOW_PRIVATE_DOCUMENT_HOSTS).
 */
export function sampleTenant(serviceUrl) {
  return {
    user_id: 900001,
    email: 'demo.tenant@example.com',
    first_name: 'Jane',
    last_name: 'Doe',
    phone_number: '+447700900123',
    date_of_birth: '1990-04-12',
    tenant: [
      {
        post_code: 'SW1A 1AA',
        address_1: '10 Example Street',
        city: 'London',
        country: 'United Kingdom',
        is_primary: true,
        start_rent_date: '2026-01-01',
        end_rent_date: '2026-12-31',
        rent_due_day: 1,
        amount: '1200.00',
        frequency: 'every_1_month',
        is_active: true,
        payment_reference: 'DEMO-RENT-1',
        recipient_bank_sort_code: '12-34-56',
        recipient_bank_account_number: '12345678',
        recipient_bank_account_name: 'Acme Lettings Ltd',
        agreement: `${serviceUrl}/sandbox/documents/sample-agreement.pdf`,
      },
    ],
    kyc: { status: 'pending' },
  };
}

/** An answer of the Integration API other than 2xx. */
export class RentpayApiError extends Error {
  constructor(method, path, status, body) {
    const detail = typeof body === 'string' ? body : JSON.stringify(body);
    super(`rentpay answered ${status} to ${method} /api/third-party${path}: ${detail.slice(0, 500)}`);
    this.name = 'RentpayApiError';
    this.status = status;
    this.body = body;
  }
}

function escapeHtml(value) {
  return String(value)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function send(res, status, type, body, headers = {}) {
  res.writeHead(status, { 'content-type': type, 'x-content-type-options': 'nosniff', ...headers });
  res.end(body);
}

function sendJson(res, status, value) {
  send(res, status, 'application/json; charset=utf-8', JSON.stringify(value), {
    'cache-control': 'no-store',
  });
}

/** The raw body, exactly as sent: a signature covers these bytes, not a re-serialised JSON value. */
function readBody(req, limit) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    let size = 0;
    req.on('data', (chunk) => {
      size += chunk.length;
      if (size > limit) {
        reject(new Error('body too large'));
        req.destroy();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

/** A one-line summary of a webhook's data for the list. */
function summarise(type, data) {
  if (!data || typeof data !== 'object') return '';
  const payment = data.payment;
  if (payment && typeof payment === 'object') {
    const failure = payment.failure_code ? `, ${payment.failure_code}` : '';
    return `${payment.payment_id}: ${payment.status}, £${payment.amount} by ${payment.method}${failure}`;
  }
  if (type === 'document_failed') {
    const kind = data.document?.kind ?? 'document';
    return `${kind} of ${data.payment_reference}: ${data.failure_reason}`;
  }
  if (data.schedule && typeof data.schedule === 'object')
    return `${data.schedule.schedule_id}: ${data.schedule.status}`;
  return '';
}

/**
 * The platform's request handler, a Node `(req, res)` function: mount it on `http.createServer` (server.mjs)
 * or under a prefix of another server (`basePath`).
 */
export function createIntegratorHandler(options) {
  const serviceUrl = String(options.serviceUrl).replace(/\/+$/, '');
  const serviceOrigin = new URL(serviceUrl).origin;
  const serverToken = options.serverToken;
  const basePath = (options.basePath ?? '').replace(/\/+$/, '');
  const fetchApi = options.fetch ?? globalThis.fetch;
  const tenant = options.tenant ?? sampleTenant(serviceUrl);
  const tenancy = tenant.tenant[0];
  const webhook = new Webhook(options.webhookSecret);
  const files = Object.fromEntries(
    Object.entries(PUBLIC_FILES).map(([path, { file, type }]) => [
      path,
      { type, body: readFileSync(new URL(`./public/${file}`, import.meta.url)) },
    ]),
  );
  /** Newest first. */
  const received = [];
  let onboarding;

  /** One Integration API call with the server token; JSON in and out. */
  async function api(method, path, body) {
    const response = await fetchApi(`${serviceUrl}/api/third-party${path}`, {
      method,
      headers: {
        authorization: `Token ${serverToken}`,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(API_TIMEOUT_MS),
    });
    const text = await response.text();
    let value = text;
    try {
      value = text === '' ? undefined : JSON.parse(text);
    } catch {
      // Not JSON (a proxy's error page, say): kept as text for the message.
    }
    if (!response.ok) throw new RentpayApiError(method, path, response.status, value);
    return value;
  }

  /** Onboards the sample tenant once per process (onboarding again would only update it). */
  function ensureOnboarded() {
    onboarding ??= api('POST', '/onboarding/', tenant).catch((error) => {
      onboarding = undefined;
      throw error;
    });
    return onboarding;
  }

  /**
   * A new payment session (user-login): `{token, session_id, expires_at, session_expires_at}`. The amount is the
   * platform's to decide: fixed (the page shows it read-only and rentpay refuses any other), or with
   * `amountEditable` only pre-filled for the tenant to change.
   */
  async function userLogin({ amountEditable = false } = {}) {
    await ensureOnboarded();
    const body = {
      email: tenant.email,
      payment_reference: tenancy.payment_reference,
      pure_amount: tenancy.amount,
      ...(amountEditable ? { amount_editable: true } : {}),
    };
    try {
      return await api('POST', '/user-login/', body);
    } catch (error) {
      // The tenant is not there any more (the sandbox's data was deleted, say): onboard again, once.
      if (!(error instanceof RentpayApiError) || error.status !== 404) throw error;
      onboarding = undefined;
      await ensureOnboarded();
      return api('POST', '/user-login/', body);
    }
  }

  function hostedPageUrl(login) {
    return `${serviceUrl}/third-party?token=${encodeURIComponent(login.token)}&session_id=${encodeURIComponent(login.session_id)}`;
  }

  /** What the page should say about where rentpay sends this integrator's webhooks. */
  function webhookNotice(integrator) {
    const path = `${basePath}/webhooks`;
    if (!integrator.webhook_url) {
      if (options.noWebhookUrlNotice) return options.noWebhookUrlNotice;
      return `rentpay sends no webhooks to this integrator: it has no webhook URL. Set one to this server's ${path} (rentpay integrator update ${integrator.integrator_id} --webhook-url http://<this server>${path}).`;
    }
    let target;
    try {
      target = new URL(integrator.webhook_url).pathname;
    } catch {
      target = '';
    }
    return target === path
      ? undefined
      : `rentpay sends this integrator's webhooks to ${integrator.webhook_url}, not to this server's ${path}.`;
  }

  async function page(res) {
    const [integrator, login] = await Promise.all([api('GET', '/integrator/'), userLogin()]);
    const notice = webhookNotice(integrator);
    const base = escapeHtml(basePath);
    const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Acme Lettings: pay your rent (a rentpay demo platform)</title>
<link rel="stylesheet" href="${base}/style.css">
<script src="${escapeHtml(serviceUrl)}/sdk/rentpay.umd.js" defer></script>
<script src="${base}/app.js" defer></script>
</head>
<body>
<main id="demo" data-base="${base}" data-service-url="${escapeHtml(serviceUrl)}">
<header>
<h1>Acme Lettings</h1>
<p>A property platform that integrates rentpay: integrator <strong>${escapeHtml(integrator.name)}</strong>
(<code>${escapeHtml(integrator.integrator_id)}</code>, ${escapeHtml(integrator.environment)}) at
<a href="${escapeHtml(serviceUrl)}/docs">${escapeHtml(serviceUrl)}</a>.</p>
<p>Tenant ${escapeHtml(tenant.first_name)} ${escapeHtml(tenant.last_name)} (${escapeHtml(tenant.email)}), rent
£${escapeHtml(tenancy.amount)}, reference ${escapeHtml(tenancy.payment_reference)}. Sandbox test card
<strong>4242 4242 4242 4242</strong>, any future expiry, any CVC.</p>
</header>
${notice ? `<p class="notice" role="note">${escapeHtml(notice)}</p>` : ''}
<div class="columns">
<section aria-labelledby="hosted-title">
<h2 id="hosted-title">Hosted page in an iframe</h2>
<p class="hint">The server called user-login and put the user session token and session id in the iframe's
<code>src</code>. Token valid until <time id="hosted-expiry" datetime="${escapeHtml(login.expires_at)}">${escapeHtml(login.expires_at)}</time>.</p>
<iframe id="hosted-frame" title="Pay your rent (rentpay hosted page)" src="${escapeHtml(hostedPageUrl(login))}" width="100%" height="700" frameborder="0" allow="payment"></iframe>
<p><button type="button" id="hosted-login">New session (user-login again)</button></p>
</section>
<section aria-labelledby="sdk-title">
<h2 id="sdk-title">SDK</h2>
<p class="hint">The SDK from <code>${escapeHtml(serviceUrl)}/sdk/rentpay.umd.js</code> renders the card form in
rentpay's own frame; the Pay button below is the platform's and calls <code>SVC.pay()</code>.</p>
<div id="sdk-form"></div>
<p><button type="button" id="pay-button" class="primary" disabled>Pay</button></p>
<p id="sdk-status" role="status" aria-live="polite">Loading the SDK…</p>
</section>
</div>
<section aria-labelledby="webhooks-title">
<h2 id="webhooks-title">Webhooks received</h2>
<p class="hint">rentpay POSTs them to <code>${base}/webhooks</code>; each is verified on its raw body with the
webhook secret (Standard Webhooks) before it is trusted. Newest first.</p>
<table id="webhooks">
<thead><tr><th scope="col">Received</th><th scope="col">Type</th><th scope="col">What</th><th scope="col">Signature</th></tr></thead>
<tbody></tbody>
</table>
<p id="webhooks-empty">None yet.</p>
</section>
</main>
</body>
</html>
`;
    send(res, 200, 'text/html; charset=utf-8', html, {
      // The iframe's src carries a user session token: the page is not cached.
      'cache-control': 'no-store',
      // Only what the page needs: the SDK's script and rentpay's frames. No connect-src to rentpay: the SDK
      // talks to it from inside its own frame.
      'content-security-policy': [
        "default-src 'none'",
        `script-src 'self' ${serviceOrigin}`,
        "style-src 'self'",
        "img-src 'self'",
        "connect-src 'self'",
        `frame-src ${serviceOrigin}`,
        "base-uri 'none'",
        "form-action 'none'",
        "frame-ancestors 'none'",
      ].join('; '),
    });
  }

  async function receiveWebhook(req, res) {
    let raw;
    try {
      raw = await readBody(req, MAX_WEBHOOK_BYTES);
    } catch {
      if (!res.headersSent) send(res, 413, 'text/plain; charset=utf-8', 'Too large.');
      return;
    }
    const headers = {
      'webhook-id': String(req.headers['webhook-id'] ?? ''),
      'webhook-timestamp': String(req.headers['webhook-timestamp'] ?? ''),
      'webhook-signature': String(req.headers['webhook-signature'] ?? ''),
    };
    let event;
    let error = null;
    try {
      event = webhook.verify(raw, headers);
    } catch (failure) {
      error = failure instanceof Error ? failure.message : String(failure);
    }
    const verified = error === null;
    const earlier = received.find((item) => item.id === headers['webhook-id'] && item.verified);
    if (verified && earlier) {
      // A retry of an event already handled (our answer got lost): the webhook-id makes it idempotent.
      earlier.deliveries += 1;
      send(res, 204, 'text/plain; charset=utf-8', '');
      return;
    }
    if (!verified) {
      // Shown for what it claims to be, but never acted on.
      try {
        event = JSON.parse(raw.toString('utf8'));
      } catch {
        event = undefined;
      }
    }
    received.unshift({
      id: headers['webhook-id'],
      received_at: new Date().toISOString(),
      verified,
      error,
      type: typeof event?.type === 'string' ? event.type : '(unknown)',
      timestamp: typeof event?.timestamp === 'string' ? event.timestamp : null,
      summary: summarise(event?.type, event?.data),
      deliveries: 1,
    });
    received.length = Math.min(received.length, KEPT_WEBHOOKS);
    if (verified) send(res, 204, 'text/plain; charset=utf-8', '');
    else send(res, 400, 'text/plain; charset=utf-8', `Signature not verified: ${error}`);
  }

  /** The browser's calls: JSON only, so another site cannot send them from a plain form. */
  function isJsonPost(req) {
    return req.method === 'POST' && String(req.headers['content-type'] ?? '').startsWith('application/json');
  }

  async function route(req, res) {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (basePath !== '' && url.pathname !== basePath && !url.pathname.startsWith(`${basePath}/`)) {
      return send(res, 404, 'text/plain; charset=utf-8', 'Not found.');
    }
    const path = url.pathname.slice(basePath.length) || '/';
    const method = req.method === 'HEAD' ? 'GET' : req.method;
    if (path === '/webhooks' && method === 'POST') return receiveWebhook(req, res);
    if (path === '/' && method === 'GET') return page(res);
    if (PUBLIC_FILES[path] && method === 'GET') {
      const file = files[path];
      return send(res, 200, file.type, file.body, { 'cache-control': 'no-cache' });
    }
    if (path === '/api/webhooks' && method === 'GET') return sendJson(res, 200, { webhooks: received });
    if (path === '/api/sdk-session' && isJsonPost(req)) {
      // The SDK side of the demo lets the tenant change the amount (isAmountEditable), so it is only pre-filled.
      const login = await userLogin({ amountEditable: true });
      return sendJson(res, 200, {
        token: login.token,
        expires_at: login.expires_at,
        pure_amount: Number(tenancy.amount),
        reference: tenancy.payment_reference,
      });
    }
    if (path === '/api/hosted-session' && isJsonPost(req)) {
      const login = await userLogin();
      return sendJson(res, 200, { url: hostedPageUrl(login), expires_at: login.expires_at });
    }
    return send(res, 404, 'text/plain; charset=utf-8', 'Not found.');
  }

  return (req, res) => {
    route(req, res).catch((error) => {
      // Never the server token: it is only ever in an Authorization header, which no message repeats.
      const message = error instanceof Error ? error.message : String(error);
      console.error(`[integrator] ${req.method} ${req.url?.split('?')[0]}: ${message}`);
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const status = error instanceof RentpayApiError ? 502 : 500;
      if (String(req.headers.accept ?? '').includes('text/html')) {
        send(
          res,
          status,
          'text/html; charset=utf-8',
          `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Demo platform: error</title></head><body><h1>Something went wrong talking to rentpay</h1><p>${escapeHtml(message)}</p></body></html>`,
          { 'cache-control': 'no-store', 'content-security-policy': "default-src 'none'" },
        );
      } else {
        sendJson(res, status, { error: message });
      }
    });
  };
}
