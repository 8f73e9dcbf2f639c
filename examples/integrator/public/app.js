/*
 * The demo platform's page script: the SDK with the platform's own Pay button, a new session for the iframe on
 * request, and the webhooks the server received. Loaded after the SDK's UMD script (both `defer`), so the
 * global `SVC` is there.
 */
const root = document.getElementById('demo');
const base = root.dataset.base;
const serviceUrl = root.dataset.serviceUrl;
const payButton = document.getElementById('pay-button');
const sdkStatus = document.getElementById('sdk-status');

function say(text, kind) {
  sdkStatus.textContent = text;
  sdkStatus.className = kind ?? '';
}

/** One of our own server's JSON endpoints (it calls user-login with the server token, which stays there). */
async function post(path) {
  const response = await fetch(`${base}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  const body = await response.json();
  if (!response.ok) throw new Error(body.error ?? `HTTP ${response.status}`);
  return body;
}

function describeError(error) {
  const decline = error.decline_code ? ` (${error.decline_code})` : '';
  return `${error.code}: ${error.message}${decline}`;
}

/** A new user-login, then SVC.init with its token. Called again after session_expired, once destroyed. */
async function startSdk() {
  payButton.disabled = true;
  say('Loading the SDK…');
  const session = await post('/api/sdk-session');
  await window.SVC.init({
    apiBaseUrl: serviceUrl,
    authToken: session.token,
    container: '#sdk-form',
    pure_amount: session.pure_amount,
    isAmountEditable: true,
    reference: session.reference,
    environment: 'sandbox',
    onSuccess: (payment) => {
      say(`onSuccess: payment ${payment.payment_id} ${payment.status}, £${payment.amount}`, 'success');
    },
    onError: (error) => {
      say(`onError: ${describeError(error)}`, 'error');
    },
  });
  payButton.disabled = false;
  say(`Ready. Token valid until ${new Date(session.expires_at).toLocaleTimeString()}.`);
}

/** The token (15 minutes) or the session (30) has lapsed: log in again on the server, init again after destroy. */
async function restartSdk() {
  window.SVC.destroy();
  await startSdk();
}

function start() {
  startSdk().catch((error) => {
    if (error.code === 'session_expired') {
      restartSdk().catch((again) => say(`The SDK did not start: ${describeError(again)}`, 'error'));
    } else {
      say(`The SDK did not start: ${error.code ? describeError(error) : error.message}`, 'error');
    }
  });
}

payButton.addEventListener('click', async () => {
  payButton.disabled = true;
  say('Paying…');
  try {
    await window.SVC.pay();
  } catch (error) {
    if (error.code === 'session_expired') {
      say('The session expired; starting a new one…');
      await restartSdk().catch((again) => say(`The SDK did not start: ${describeError(again)}`, 'error'));
      return;
    }
    // A payment failure was shown by onError already; a form mistake (validation_error) is shown here.
    if (error.code !== 'payment_failed') say(describeError(error), 'error');
  } finally {
    payButton.disabled = false;
  }
});

/** After the session expires: user-login again and give the iframe the new token and session. */
async function newHostedSession() {
  const session = await post('/api/hosted-session');
  document.getElementById('hosted-frame').src = session.url;
  const expiry = document.getElementById('hosted-expiry');
  expiry.dateTime = session.expires_at;
  expiry.textContent = session.expires_at;
}

document.getElementById('hosted-login').addEventListener('click', () => void newHostedSession());

// The hosted page's messages (docs/iframe.md): its height, so nothing scrolls inside the frame, and "Start again"
// after its session expired.
window.addEventListener('message', (event) => {
  const frame = document.getElementById('hosted-frame');
  if (event.source !== frame.contentWindow || event.origin !== new URL(serviceUrl).origin) return;
  const { source, type, height } = event.data || {};
  if (source !== 'rentpay') return;
  if (type === 'resize' && height > 0) frame.style.height = `${Math.ceil(height)}px`;
  if (type === 'restart') void newHostedSession();
});

function cell(text) {
  const td = document.createElement('td');
  td.textContent = text;
  return td;
}

async function refreshWebhooks() {
  const response = await fetch(`${base}/api/webhooks`);
  if (!response.ok) return;
  const { webhooks } = await response.json();
  const rows = webhooks.map((item) => {
    const row = document.createElement('tr');
    row.dataset.webhookId = item.id;
    row.append(
      cell(new Date(item.received_at).toLocaleTimeString()),
      cell(item.type),
      cell(item.summary + (item.deliveries > 1 ? ` (delivered ${item.deliveries} times)` : '')),
      cell(item.verified ? 'verified' : `not verified: ${item.error}`),
    );
    row.className = item.verified ? 'verified' : 'unverified';
    return row;
  });
  document.querySelector('#webhooks tbody').replaceChildren(...rows);
  document.getElementById('webhooks-empty').hidden = rows.length > 0;
}

setInterval(() => refreshWebhooks().catch(() => undefined), 2000);
refreshWebhooks().catch(() => undefined);
start();
