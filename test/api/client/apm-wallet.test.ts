import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, type Api, assertError, send } from '../../support/api-client.ts';
import { runJobs, type TestApp } from '../../support/helpers.ts';
import {
  answerChallenge,
  cardToken,
  count,
  newTenant,
  PAN,
  paymentEvents,
  startPaymentApp,
  walletToken,
} from '../../support/payment-client.ts';

const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors *; base-uri 'none'";
const APMS = [
  { method: 'alipay', type: 'redirect', name: 'Alipay' },
  { method: 'unionpay', type: 'redirect', name: 'UnionPay' },
  { method: 'wechat_pay', type: 'qr', name: 'WeChat Pay' },
] as const;
const FEE = { percent: '1.45', fixed: '0.00' };

/** Every sandbox page and asset answers with these headers. */
function assertPageHeaders(response: Answer, contentType: RegExp): void {
  assert.match(String(response.headers['content-type']), contentType);
  assert.equal(response.headers['content-security-policy'], CSP);
  assert.equal(response.headers['referrer-policy'], 'no-referrer');
  assert.equal(response.headers['cache-control'], 'no-store');
  assert.equal(response.headers['x-content-type-options'], 'nosniff');
}

/** An accessible sandbox page with no inline script or style, its Authorise and Fail buttons (or none). */
function assertSandboxPage(html: string, heading: string, buttons: boolean): void {
  assert.match(html, /^<!doctype html>\n<html lang="en">/);
  assert.ok(html.includes(`<h1>${heading}</h1>`), html);
  assert.ok(html.includes('<p class="badge">Sandbox</p>'));
  assert.equal(html.includes('>Authorise</button>'), buttons);
  assert.equal(html.includes('>Fail</button>'), buttons);
  for (const script of html.match(/<script[^>]*>/g) ?? []) assert.match(script, / src="\/sandbox\/assets\//);
  assert.ok(!/<style|\sstyle=|\son[a-z]+=/i.test(html), 'no inline style or handlers');
}

describe('wallets and APMs through the Client API with the sandbox processor', () => {
  let t: TestApp;
  let api: Api;

  before(async () => {
    ({ t, api } = await startPaymentApp({ card: FEE, alipay: FEE, wechat_pay: FEE, unionpay: FEE }));
  });
  after(() => t.close());

  for (const apm of APMS) {
    it(`${apm.method}: requires_action with a ${apm.type} to the provider's page; Authorise succeeds by notification`, async () => {
      const tenant = await newTenant(t, api);
      const response = await tenant.client.pay({ method: apm.method });
      assert.equal(response.status, 201, JSON.stringify(response.body));
      const payment = response.body;
      assert.equal(payment.status, 'requires_action');
      assert.equal(payment.method, apm.method);
      assert.equal(payment.card, null);
      assert.equal(payment.fee, '17.40');
      assert.equal(payment.amount, '1217.40');
      const [chargeId] = /ch_sandbox_[A-Za-z0-9]+$/.exec(payment.next_action.url) ?? [];
      const pageUrl = `${t.config.publicUrl}/sandbox/apm/${chargeId}`;
      assert.deepEqual(
        payment.next_action,
        apm.type === 'qr'
          ? { type: 'qr', url: pageUrl, image_url: `${pageUrl}/qr.svg` }
          : { type: 'redirect', url: pageUrl },
      );

      const page = await send(t, { method: 'GET', url: new URL(pageUrl).pathname });
      assert.equal(page.status, 200);
      assertPageHeaders(page, /^text\/html; charset=utf-8/);
      assertSandboxPage(page.body, `${apm.name} (sandbox)`, true);
      assert.ok(page.body.includes('£1,217.40'));
      assert.ok(page.body.includes(`data-kind="apm" data-charge-id="${chargeId}"`));

      const clicked = await answerChallenge(t, pageUrl, 'authorise');
      assert.equal(clicked.status, 202);
      assert.deepEqual(clicked.body, { status: 'authorised' });
      assert.equal((await tenant.client.payment(payment.payment_id)).body.status, 'requires_action');
      assert.equal(
        await count(t, "jobs WHERE kind = 'payment.notification' AND payload->'body'->>'charge_id' = $1", [
          chargeId,
        ]),
        1,
      );
      await runJobs(t);
      const done = await tenant.client.payment(payment.payment_id);
      assert.equal(done.body.status, 'succeeded');
      assert.equal(done.body.next_action, null);
      assert.deepEqual(await paymentEvents(t, payment.payment_id), ['payment_success']);
      const [event] = await t.db.query<{ data: { payment: { method: string; card: null } } }>(
        "SELECT data FROM events WHERE data->'payment'->>'payment_id' = $1",
        [payment.payment_id],
      );
      assert.equal(event?.data.payment.method, apm.method);
      assert.equal(event?.data.payment.card, null);
      assert.equal((await api.session(tenant.sessionId)).body.status, 'completed');
      assertError(await answerChallenge(t, pageUrl, 'fail'), 409, 'conflict', /No payment is waiting/);
    });

    it(`${apm.method}: Fail declines it: failed with apm_declined and a payment_failed event`, async () => {
      const tenant = await newTenant(t, api);
      const response = await tenant.client.pay({ method: apm.method });
      const clicked = await answerChallenge(t, response.body.next_action.url, 'fail');
      assert.deepEqual([clicked.status, clicked.body], [202, { status: 'failed' }]);
      await runJobs(t);
      const failed = await tenant.client.payment(response.body.payment_id);
      assert.equal(failed.body.status, 'failed');
      assert.equal(failed.body.failure_code, 'apm_declined');
      assert.equal(failed.body.failure_message, 'The payment was declined by the payment provider.');
      assert.deepEqual(await paymentEvents(t, response.body.payment_id), ['payment_failed']);
      assert.equal((await api.session(tenant.sessionId)).body.status, 'active');
    });
  }

  it('wechat_pay: the QR code is an SVG of the provider page URL', async () => {
    const { client } = await newTenant(t, api);
    const response = await client.pay({ method: 'wechat_pay' });
    const qr = await t.app.inject({
      method: 'GET',
      url: new URL(response.body.next_action.image_url).pathname,
    });
    assert.equal(qr.statusCode, 200);
    assertPageHeaders({ status: qr.statusCode, body: qr.body, headers: qr.headers }, /^image\/svg\+xml/);
    assert.match(qr.body, /^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"[^>]*viewBox="0 0 \d+ \d+"/);
    assert.match(qr.body, /<path [^>]*d="M/);
    assert.ok(qr.body.trimEnd().endsWith('</svg>'));
    const unknown = await send(t, { method: 'GET', url: '/sandbox/apm/ch_sandbox_unknown/qr.svg' });
    assert.equal(unknown.status, 404);
  });

  it('cancel: an APM payment waiting for the customer is withdrawn; a late Authorise cannot charge', async () => {
    const tenant = await newTenant(t, api);
    const waiting = await tenant.client.pay({ method: 'alipay' });
    const canceled = await tenant.client.call('POST', `/payments/${waiting.body.payment_id}/cancel`);
    assert.equal(canceled.status, 200);
    assert.equal(canceled.body.status, 'canceled');
    assert.equal(canceled.body.next_action, null);
    assertError(await answerChallenge(t, waiting.body.next_action.url, 'authorise'), 409, 'conflict');
    await runJobs(t);
    assert.equal((await tenant.client.payment(waiting.body.payment_id)).body.status, 'canceled');
    assert.deepEqual(await paymentEvents(t, waiting.body.payment_id), []);
    const retry = await tenant.client.pay({ method: 'card', card_token: await cardToken(t, PAN.visa) });
    assert.equal(retry.body.status, 'succeeded', 'the session can pay another way');
  });

  it('an APM payment nobody answers is canceled when its session expires', async () => {
    const tenant = await newTenant(t, api);
    const waiting = await tenant.client.pay({ method: 'wechat_pay' });
    const blocked = await tenant.client.pay({ method: 'alipay' });
    assertError(blocked, 409, 'conflict', /waiting for authentication/);
    t.clock.advance(30 * 60_000);
    await runJobs(t);
    const [row] = await t.db.query<{ status: string }>('SELECT status FROM payments WHERE id = $1', [
      waiting.body.payment_id,
    ]);
    assert.equal(row?.status, 'canceled');
    assertError(await answerChallenge(t, waiting.body.next_action.url, 'authorise'), 409, 'conflict');
    t.clock.advance(-30 * 60_000);
  });

  it('an APM charge is not a 3DS challenge, nor a card charge an APM one', async () => {
    const { client } = await newTenant(t, api);
    const apm = await client.pay({ method: 'unionpay' });
    const apmId = new URL(apm.body.next_action.url).pathname.split('/').pop();
    assertError(
      await send(t, { method: 'POST', url: `/sandbox/3ds/${apmId}/authorise` }),
      409,
      'conflict',
      /No 3DS challenge/,
    );
    assert.equal((await send(t, { method: 'GET', url: `/sandbox/3ds/${apmId}` })).status, 404);

    const other = await newTenant(t, api);
    const card = await other.client.pay({ card_token: await cardToken(t, PAN.threeDsAlways) });
    const cardId = new URL(card.body.next_action.url).pathname.split('/').pop();
    assertError(await send(t, { method: 'POST', url: `/sandbox/apm/${cardId}/authorise` }), 409, 'conflict');
    assert.equal((await send(t, { method: 'GET', url: `/sandbox/apm/${cardId}` })).status, 404);
    assert.equal((await other.client.payment(card.body.payment_id)).body.status, 'requires_action');
  });

  for (const wallet of ['apple_pay', 'google_pay'] as const) {
    it(`${wallet}: the sheet's token pays (Authorise) or is declined (Fail); the card comes from the token`, async () => {
      const sheet = await send(t, {
        method: 'POST',
        url: '/sandbox/wallet/tokens',
        payload: { wallet, outcome: 'authorise' },
      });
      assert.equal(sheet.status, 201);
      assert.match(sheet.body.token, /^tok_sandbox_/);
      // The fake clock starts on 2026-03-01: the wallet's card expires three years on.
      assert.deepEqual(sheet.body.card, { brand: 'visa', last4: '4242', exp_month: 3, exp_year: 2029 });

      const tenant = await newTenant(t, api);
      const declined = await tenant.client.pay({
        method: wallet,
        wallet_token: await walletToken(t, wallet, 'fail'),
      });
      assert.equal(declined.status, 201);
      assert.equal(declined.body.status, 'failed');
      assert.equal(declined.body.failure_code, 'card_declined');
      assert.equal(declined.body.card.last4, '0002');
      assert.deepEqual(await paymentEvents(t, declined.body.payment_id), ['payment_failed']);

      const paid = await tenant.client.pay({ method: wallet, wallet_token: sheet.body.token });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.status, 'succeeded');
      assert.equal(paid.body.method, wallet);
      assert.deepEqual(paid.body.card, sheet.body.card);
      assert.equal(paid.body.fee, '0.00', 'no fee set for wallets');
      assert.equal(paid.body.amount, '1200.00');
      assert.equal(paid.body.next_action, null);
      assert.deepEqual(await paymentEvents(t, paid.body.payment_id), ['payment_success']);
    });
  }

  it("a token pays only by its own method: a wallet's token is no card token, nor the other wallet's", async () => {
    const { client } = await newTenant(t, api);
    const apple = await walletToken(t, 'apple_pay');
    assert.deepEqual((await client.pay({ method: 'google_pay', wallet_token: apple })).body, {
      wallet_token: ['Unknown wallet token; open the wallet sheet again.'],
    });
    assert.deepEqual((await client.pay({ card_token: apple })).body, {
      card_token: ['Unknown card token; tokenise the card again.'],
    });
    const card = await cardToken(t, PAN.visa);
    assert.equal((await client.pay({ method: 'apple_pay', wallet_token: card })).status, 400);
    for (const payload of [{ wallet: 'paypal', outcome: 'authorise' }, { wallet: 'apple_pay' }, {}]) {
      const bad = await send(t, { method: 'POST', url: '/sandbox/wallet/tokens', payload });
      assert.equal(bad.status, 400, JSON.stringify(payload));
    }
  });

  it('token fields by method: 400 field errors that change nothing', async () => {
    const tenant = await newTenant(t, api);
    const saved = await tenant.client.saveCard(await cardToken(t, PAN.visa));
    const card = await cardToken(t, PAN.visa);
    const wallet = await walletToken(t, 'apple_pay');
    const savedId = saved.body.card_id;
    const cases: [Record<string, unknown>, Record<string, string[]>][] = [
      [{ method: 'card' }, { card_token: ['This field (or saved_card_id) is required.'] }],
      [
        { method: 'card', card_token: card, saved_card_id: savedId },
        { saved_card_id: ['Send card_token or saved_card_id, not both.'] },
      ],
      [
        { method: 'card', card_token: card, wallet_token: wallet },
        { wallet_token: ['Not allowed with method "card".'] },
      ],
      [{ method: 'apple_pay' }, { wallet_token: ['This field is required.'] }],
      [
        { method: 'google_pay', wallet_token: wallet, card_token: card },
        { card_token: ['Not allowed with method "google_pay".'] },
      ],
      [
        { method: 'apple_pay', wallet_token: wallet, saved_card_id: savedId },
        { saved_card_id: ['Not allowed with method "apple_pay".'] },
      ],
      [{ method: 'alipay', card_token: card }, { card_token: ['Not allowed with method "alipay".'] }],
      [
        { method: 'wechat_pay', wallet_token: wallet },
        { wallet_token: ['Not allowed with method "wechat_pay".'] },
      ],
      [
        { method: 'unionpay', saved_card_id: savedId },
        { saved_card_id: ['Not allowed with method "unionpay".'] },
      ],
      [
        { method: 'alipay', card_token: card, wallet_token: wallet, saved_card_id: savedId },
        {
          card_token: ['Not allowed with method "alipay".'],
          saved_card_id: ['Not allowed with method "alipay".'],
          wallet_token: ['Not allowed with method "alipay".'],
        },
      ],
    ];
    const jobs = await count(t, 'jobs');
    for (const [body, errors] of cases) {
      const response = await tenant.client.pay(body);
      assert.equal(response.status, 400, JSON.stringify(body));
      assert.deepEqual(response.body, errors, JSON.stringify(body));
    }
    const method = await tenant.client.pay({ method: 'paypal' });
    assert.equal(method.status, 400);
    assert.match(method.body.method[0], /card, apple_pay, google_pay, alipay, wechat_pay, unionpay/);
    assert.equal(await count(t, 'payments WHERE session_id = $1', [tenant.sessionId]), 0);
    assert.equal(await count(t, 'jobs'), jobs);
  });

  it('idempotency compares amount and method: the same key for another method is 422', async () => {
    const { client } = await newTenant(t, api);
    const first = await client.pay({ method: 'alipay', idempotency_key: 'apm-key' });
    assert.equal(first.status, 201);
    const replay = await client.pay({ method: 'alipay', idempotency_key: 'apm-key' });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.payment_id, first.body.payment_id);
    assertError(
      await client.pay({ method: 'unionpay', idempotency_key: 'apm-key' }),
      422,
      'idempotency_mismatch',
      /by alipay/,
    );
  });

  it('the client session names the processor: where to tokenise cards and open wallet sheets', async () => {
    const { client } = await newTenant(t, api);
    const session = await client.call('GET', '/session');
    assert.deepEqual(session.body.processor, {
      name: 'sandbox',
      tokenize_url: `${t.config.publicUrl}/sandbox/tokens`,
      wallet_url: `${t.config.publicUrl}/sandbox/wallet`,
    });
  });
});

describe('sandbox pages', () => {
  let t: TestApp;
  let api: Api;

  before(async () => {
    ({ t, api } = await startPaymentApp());
  });
  after(() => t.close());

  it('3DS challenge: an HTML page with the amount, Authorise and Fail, and strict headers', async () => {
    const { client } = await newTenant(t, api);
    const waiting = await client.pay({ card_token: await cardToken(t, PAN.threeDsAlways) });
    const url = new URL(waiting.body.next_action.url);
    const page = await send(t, { method: 'GET', url: url.pathname });
    assert.equal(page.status, 200);
    assertPageHeaders(page, /^text\/html; charset=utf-8/);
    assertSandboxPage(page.body, '3D Secure check (sandbox)', true);
    assert.ok(page.body.includes('£1,217.40'));
    assert.ok(page.body.includes(`data-kind="three_ds" data-charge-id="${url.pathname.split('/').pop()}"`));
    assert.ok(page.body.includes('<link rel="stylesheet" href="/sandbox/assets/sandbox-page.css">'));

    await answerChallenge(t, url.href, 'authorise');
    const answered = await send(t, { method: 'GET', url: url.pathname });
    assert.equal(answered.status, 200);
    assertSandboxPage(answered.body, '3D Secure check (sandbox)', false);
    assert.ok(answered.body.includes('Nothing waits here any more'));
  });

  it("a card check's 3DS page says nothing is charged", async () => {
    const { client } = await newTenant(t, api);
    const saving = await client.saveCard(await cardToken(t, PAN.threeDsFirst));
    const page = await send(t, { method: 'GET', url: new URL(saving.body.next_action.url).pathname });
    assertSandboxPage(page.body, '3D Secure check (sandbox)', true);
    assert.ok(page.body.includes('Nothing is charged'));
    assert.ok(!page.body.includes('£'));
  });

  for (const [wallet, name] of [
    ['apple_pay', 'Apple Pay'],
    ['google_pay', 'Google Pay'],
  ] as const) {
    it(`wallet sheet: ${name}, with the amount from the query`, async () => {
      const page = await send(t, { method: 'GET', url: `/sandbox/wallet/${wallet}?amount=1217.40` });
      assert.equal(page.status, 200);
      assertPageHeaders(page, /^text\/html/);
      assertSandboxPage(page.body, `${name} (sandbox)`, true);
      assert.ok(page.body.includes('£1,217.40'));
      assert.ok(page.body.includes(`data-kind="wallet" data-wallet="${wallet}"`));
    });
  }

  it('interpolated text is escaped: a hostile amount is not shown, unknown ids answer a 404 page', async () => {
    const hostile = await send(t, {
      method: 'GET',
      url: `/sandbox/wallet/apple_pay?amount=${encodeURIComponent('<script>alert(1)</script>')}`,
    });
    assert.equal(hostile.status, 200);
    assert.ok(!hostile.body.includes('<script>alert'));
    assert.ok(!hostile.body.includes('Amount:'));
    for (const url of [
      '/sandbox/3ds/ch_sandbox_unknown',
      `/sandbox/apm/${encodeURIComponent('"><script>x</script>')}`,
      '/sandbox/wallet/paypal',
      '/sandbox/assets/other.js',
    ]) {
      const page = await send(t, { method: 'GET', url });
      assert.equal(page.status, 404, url);
      assertPageHeaders(page, /^text\/html/);
      assertSandboxPage(page.body, 'Not found (sandbox)', false);
      assert.ok(!page.body.includes('<script>x'));
    }
  });

  it('the page script and style are files, with the same headers', async () => {
    const script = await send(t, { method: 'GET', url: '/sandbox/assets/sandbox-page.js' });
    assert.equal(script.status, 200);
    assertPageHeaders(script, /^text\/javascript/);
    assert.ok(script.body.includes("'rentpay:sandbox-complete'"));
    assert.ok(script.body.includes('location.origin'));
    const style = await send(t, { method: 'GET', url: '/sandbox/assets/sandbox-page.css' });
    assert.equal(style.status, 200);
    assertPageHeaders(style, /^text\/css/);
    assert.ok(style.body.includes(':focus-visible'));
  });
});
