import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Answer,
  type Api,
  assertError,
  integrationApi,
  send,
  UNLIMITED,
} from '../support/api-client.ts';
import { paymentKeys, tenancyBody, userBody } from '../support/fixtures.ts';
import { OPERATOR_TOKEN, runCli, startTestApp, type TestApp } from '../support/helpers.ts';
import { processorWith, withPaymentsOver } from '../support/payment-client.ts';

const SUCCESS_CARD = '4242424242424242';
const DECLINE_CARD = '4000000000000002';

function operator(t: TestApp, url: string, token = OPERATOR_TOKEN): Promise<Answer> {
  return send(t, {
    method: 'GET',
    url: `/api/operator${url}`,
    headers: { authorization: `Bearer ${token}` },
  });
}

describe('rentpay payments: Operator API and CLI', () => {
  let t: TestApp;
  let url: string;
  let acme: Api;
  let other: Api;
  let userNumber = 0;
  let keyNumber = 0;
  let env: Record<string, string>;

  async function newSession(api: Api): Promise<{ token: string; session_id: string }> {
    userNumber += 1;
    const email = `payer-${userNumber}@example.com`;
    await api.onboardOk(
      userBody({
        user_id: userNumber,
        email,
        tenant: [tenancyBody({ payment_reference: `CLI-${userNumber}` })],
      }),
    );
    return api.loginOk(email);
  }

  /** A payment through the Client API with a sandbox test card, as a tenant's browser makes it. */
  async function pay(
    session: { token: string },
    card = SUCCESS_CARD,
    pureAmount = '1200.00',
  ): Promise<{ payment_id: string; status: string; amount: string; session_id: string }> {
    const tokenised = await send(t, {
      method: 'POST',
      url: '/sandbox/tokens',
      payload: { number: card, exp_month: 12, exp_year: 2030, cvc: '987' },
    });
    assert.equal(tokenised.status, 201, JSON.stringify(tokenised.body));
    const paid = await send(t, {
      method: 'POST',
      url: '/api/client/payments',
      headers: { authorization: `Bearer ${session.token}` },
      payload: {
        pure_amount: pureAmount,
        method: 'card',
        card_token: tokenised.body.token,
        idempotency_key: `cli-key-${++keyNumber}`,
      },
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    return paid.body;
  }

  before(async () => {
    t = await startTestApp();
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    env = { RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN, RENTPAY_URL: url };
    acme = integrationApi(
      t,
      await t.createIntegrator({
        ...UNLIMITED,
        name: 'Acme Lettings',
        fees: { card: { percent: '1.45', fixed: '0.00' } },
      }),
    );
    other = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' }));
  });
  after(() => t.close());

  it('--help lists the payments commands and their options', async () => {
    const top = await runCli(['--help']);
    assert.equal(top.code, 0);
    assert.match(top.stdout, /\bpayments\b/);
    const sub = await runCli(['payments', '--help']);
    for (const command of ['list', 'show', 'refund'])
      assert.match(sub.stdout, new RegExp(`\\b${command}\\b`));
    const list = await runCli(['payments', 'list', '--help']);
    for (const option of ['--integrator', '--status', '--session', '--limit', '--starting-after', '--json'])
      assert.ok(list.stdout.includes(option), option);
    const refund = await runCli(['payments', 'refund', '--help']);
    for (const option of ['--amount', '--idempotency-key', '--json', '--url', '--token'])
      assert.ok(refund.stdout.includes(option), option);
  });

  it('payments list shows a payment made through the Client API with the sandbox success card', async () => {
    t.clock.advance(60_000);
    const payment = await pay(await newSession(acme));
    assert.equal(payment.status, 'succeeded');
    assert.equal(payment.amount, '1217.40');

    const text = await runCli(['payments', 'list'], env);
    assert.equal(text.code, 0, text.stderr);
    const [header, first] = text.stdout.split('\n');
    assert.match(header!, /^PAYMENT_ID\s+STATUS\s+AMOUNT\s+REFUNDED\s+METHOD\s+CREATED_AT\s+INTEGRATOR$/);
    assert.deepEqual(first!.split(/\s+/), [
      payment.payment_id,
      'succeeded',
      '1217.40',
      '0.00',
      'card',
      t.clock.now().toISOString(),
      acme.integratorId,
    ]);

    const json = await runCli(['payments', 'list', '--json', '--integrator', acme.integratorId], env);
    assert.equal(json.code, 0, json.stderr);
    const page = JSON.parse(json.stdout);
    assert.equal(page.has_more, false);
    assert.equal(page.data[0].payment_id, payment.payment_id);
    assert.equal(page.data[0].integrator_id, acme.integratorId);
    assert.equal(page.data[0].refunded, '0.00');
    assert.deepEqual(page.data[0].card, { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 });

    const shown = await runCli(['payments', 'show', payment.payment_id], env);
    assert.equal(shown.code, 0, shown.stderr);
    assert.match(shown.stdout, /status\s+succeeded\n/);
    assert.match(shown.stdout, /amount\s+1217\.40 GBP \(1200\.00 \+ fee 17\.40\)\n/);
    assert.match(shown.stdout, /refunded\s+0\.00 \(1217\.40 left to refund\)\n/);
    assert.match(shown.stdout, /method\s+card \(visa ending 4242, expires 12\/2030\)\n/);
    assert.match(shown.stdout, new RegExp(`integrator_id\\s+${acme.integratorId}\\n`));
  });

  it('Operator API: filters, newest first, cursor pagination, one payment, errors in the documented error shape', async () => {
    // Each payment a minute after the last, so newest first is a known order.
    const made: { payment_id: string; integrator: string; status: string; session_id: string }[] = [];
    const retrySession = await newSession(other);
    for (const [api, card, session] of [
      [acme, SUCCESS_CARD, undefined],
      [other, DECLINE_CARD, retrySession],
      [acme, SUCCESS_CARD, undefined],
      [other, SUCCESS_CARD, retrySession],
      [acme, DECLINE_CARD, undefined],
    ] as const) {
      t.clock.advance(60_000);
      const s = session ?? (await newSession(api));
      const p = await pay(s, card, '100.00');
      made.push({
        payment_id: p.payment_id,
        integrator: api.integratorId,
        status: p.status,
        session_id: p.session_id,
      });
    }
    const newestFirst = [...made].reverse();

    const all = await operator(t, '/payments?limit=5');
    assert.equal(all.status, 200, JSON.stringify(all.body));
    assert.deepEqual(
      all.body.data.map((p: { payment_id: string }) => p.payment_id),
      newestFirst.map((p) => p.payment_id),
    );
    assert.equal(all.body.has_more, true, 'the payment from the test before is older');
    const first = all.body.data[0];
    assert.deepEqual(Object.keys(first).sort(), paymentKeys('integrator_id', 'refunded'));
    assert.equal(first.status, 'failed');
    assert.equal(first.failure_code, 'card_declined');

    const ids = (answer: Answer) => answer.body.data.map((p: { payment_id: string }) => p.payment_id);
    const byOther = await operator(t, `/payments?integrator_id=${other.integratorId}`);
    assert.deepEqual(
      ids(byOther),
      newestFirst.filter((p) => p.integrator === other.integratorId).map((p) => p.payment_id),
    );
    assert.equal(byOther.body.has_more, false);
    const failed = await operator(t, '/payments?status=failed');
    assert.deepEqual(
      ids(failed),
      newestFirst.filter((p) => p.status === 'failed').map((p) => p.payment_id),
    );
    const acmeSucceeded = await operator(t, `/payments?status=succeeded&integrator_id=${acme.integratorId}`);
    assert.equal(acmeSucceeded.body.data.length, 3, 'two from this test and one from the test before');
    assert.ok(acmeSucceeded.body.data.every((p: { status: string }) => p.status === 'succeeded'));
    const bySession = await operator(t, `/payments?session_id=${retrySession.session_id}`);
    assert.deepEqual(ids(bySession), [made[3]!.payment_id, made[1]!.payment_id], 'declined, then paid');
    assert.deepEqual((await operator(t, '/payments?integrator_id=int_nobody')).body, {
      data: [],
      has_more: false,
    });

    // Pages of two, following starting_after, visit every payment once, newest first.
    const everything = ids(await operator(t, '/payments?limit=100'));
    assert.equal(everything.length, 6);
    const visited: string[] = [];
    let cursor: string | undefined;
    for (let pageNumber = 1; ; pageNumber++) {
      const page = await operator(t, `/payments?limit=2${cursor ? `&starting_after=${cursor}` : ''}`);
      assert.equal(page.status, 200);
      visited.push(...ids(page));
      assert.equal(page.body.has_more, pageNumber < 3);
      if (!page.body.has_more) break;
      cursor = visited.at(-1);
    }
    assert.deepEqual(visited, everything);
    // A cursor combines with filters.
    const afterNewestAcme = ids(
      await operator(t, `/payments?integrator_id=${acme.integratorId}&starting_after=${made[4]!.payment_id}`),
    );
    assert.equal(afterNewestAcme.length, 3, 'two from this test and one from the test before');
    assert.deepEqual(afterNewestAcme.slice(0, 2), [made[2]!.payment_id, made[0]!.payment_id]);
    // Payments made in the same instant are ordered by id: paging neither skips nor repeats them.
    t.clock.advance(60_000);
    const sameInstant = [await pay(await newSession(acme)), await pay(await newSession(other))];
    const [top] = ids(await operator(t, '/payments?limit=1'));
    const [next] = ids(await operator(t, `/payments?limit=1&starting_after=${top}`));
    assert.deepEqual([top, next].sort(), sameInstant.map((p) => p.payment_id).sort());

    const one = await operator(t, `/payments/${made[3]!.payment_id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.payment_id, made[3]!.payment_id);
    assert.equal(one.body.integrator_id, other.integratorId);
    assert.equal(one.body.session_id, retrySession.session_id);
    assertError(await operator(t, '/payments/pay_nope'), 404, 'not_found', /^No payment pay_nope\.$/);

    assertError(
      await operator(t, '/payments?limit=0'),
      400,
      'invalid_request',
      /limit: Ensure this value is greater than or equal to 1\./,
    );
    assertError(
      await operator(t, '/payments?limit=101'),
      400,
      'invalid_request',
      /limit: Ensure this value is less than or equal to 100\./,
    );
    assertError(
      await operator(t, '/payments?limit=ten'),
      400,
      'invalid_request',
      /limit: A valid integer is required\./,
    );
    assertError(
      await operator(t, '/payments?status=paid'),
      400,
      'invalid_request',
      /status: Not a valid choice\. Choose one of: requires_action, processing, succeeded, failed, canceled\./,
    );
    assertError(
      await operator(t, '/payments?starting_after=pay_nope'),
      400,
      'invalid_request',
      /^Invalid querystring: starting_after: No payment pay_nope\. Pass the payment_id of the last payment of the page you have\.$/,
    );
    assertError(
      await operator(t, '/payments?integrator=int_x'),
      400,
      'invalid_request',
      /Unknown field "integrator"/,
    );
  });

  it('payments refund: partial then the rest via the CLI; more than is left, nothing left, unknown payment', async () => {
    t.clock.advance(60_000);
    const payment = await pay(await newSession(acme));
    const id = payment.payment_id;

    const partial = await runCli(['payments', 'refund', id, '--amount', '100.00'], env);
    assert.equal(partial.code, 0, partial.stderr);
    assert.match(partial.stdout, /^refund_id\s+ref_[A-Za-z0-9]+\n/);
    assert.match(partial.stdout, new RegExp(`payment_id\\s+${id}\\n`));
    assert.match(partial.stdout, /amount\s+100\.00 GBP\n/);
    assert.match(partial.stdout, /status\s+succeeded\n/);
    assert.match(partial.stdout, /payment\s+1217\.40 GBP, refunded 100\.00, 1117\.40 left\n$/);

    const tooMuch = await runCli(['payments', 'refund', id, '--amount', '1117.41'], env);
    assert.equal(tooMuch.code, 2);
    assert.equal(
      tooMuch.stderr,
      'rentpay: 400 invalid request:\n  amount: Enter an amount from 0.01 to 1117.40.\n',
    );
    const notAnAmount = await runCli(['payments', 'refund', id, '--amount', '12.345'], env);
    assert.equal(notAnAmount.code, 2);
    assert.equal(
      notAnAmount.stderr,
      'rentpay: 400 invalid request:\n  amount: Enter an amount in pounds, e.g. "100.00".\n',
    );

    const rest = await runCli(['payments', 'refund', id, '--json'], env);
    assert.equal(rest.code, 0, rest.stderr);
    const refund = JSON.parse(rest.stdout);
    assert.match(refund.refund_id, /^ref_/);
    assert.equal(refund.payment_id, id);
    assert.equal(refund.amount, '1117.40');
    assert.equal(refund.status, 'succeeded');
    assert.equal(refund.payment.payment_id, id);

    const nothingLeft = await runCli(['payments', 'refund', id], env);
    assert.equal(nothingLeft.code, 2);
    assert.equal(
      nothingLeft.stderr,
      'rentpay: 409 conflict: This payment has been refunded in full already.\n',
    );
    const unknown = await runCli(['payments', 'refund', 'pay_nope'], env);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stderr, 'rentpay: 404 not_found: No payment pay_nope.\n');
    const unknownShow = await runCli(['payments', 'show', 'pay_nope'], env);
    assert.equal(unknownShow.code, 2);
    assert.equal(unknownShow.stderr, 'rentpay: 404 not_found: No payment pay_nope.\n');

    const shown = JSON.parse((await runCli(['payments', 'show', id, '--json'], env)).stdout);
    assert.equal(shown.refunded, '1217.40');
    assert.equal(shown.status, 'succeeded', 'a refund leaves the payment succeeded; refunded says how much');
    const events = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM events WHERE type = 'payment_refunded' AND data->'payment'->>'payment_id' = $1",
      [id],
    );
    assert.equal(events[0]!.n, 2);
  });

  it('payments refund --idempotency-key: a rerun is the same refund; another amount is refused; pending is shown', async () => {
    t.clock.advance(60_000);
    const id = (await pay(await newSession(acme))).payment_id;
    const first = await runCli(
      ['payments', 'refund', id, '--amount', '10.00', '--idempotency-key', 'op-42'],
      env,
    );
    assert.equal(first.code, 0, first.stderr);
    assert.match(first.stdout, /\nidempotency_key\s+op-42\n/);
    const refundId = /^refund_id\s+(ref_\w+)\n/.exec(first.stdout)?.[1];
    assert.ok(refundId);
    const again = await runCli(
      ['payments', 'refund', id, '--amount', '10.00', '--idempotency-key', 'op-42'],
      env,
    );
    assert.equal(again.code, 0, again.stderr);
    assert.ok(again.stdout.startsWith(`refund_id              ${refundId}\n`));
    assert.match(again.stdout, /payment\s+1217\.40 GBP, refunded 10\.00, 1207\.40 left\n$/);
    const mismatch = await runCli(
      ['payments', 'refund', id, '--amount', '20.00', '--idempotency-key', 'op-42'],
      env,
    );
    assert.equal(mismatch.code, 2);
    assert.match(
      mismatch.stderr,
      /^rentpay: 422 idempotency_mismatch: Idempotency key "op-42" was used for refund/,
    );

    // Without --idempotency-key, each run is a new refund under a key of its own (which it prints).
    const generated = await runCli(['payments', 'refund', id, '--amount', '10.00'], env);
    assert.equal(generated.code, 0, generated.stderr);
    assert.match(generated.stdout, /\nidempotency_key\s+cli_[0-9a-f-]{36}\n/);
    assert.doesNotMatch(generated.stdout, new RegExp(refundId!));
    const [row] = await t.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM refunds WHERE payment_id = $1',
      [id],
    );
    assert.equal(row!.n, 2);

    // The processor's answer lost: the refund is pending, and the CLI says so.
    const failing = processorWith(t.app.ctx.processor, {
      refund: async () => {
        throw new Error('connection reset');
      },
    });
    await withPaymentsOver(t, failing, async () => {
      const pending = await runCli(['payments', 'refund', id, '--amount', '5.00', '--json'], env);
      assert.equal(pending.code, 0, pending.stderr);
      assert.equal(JSON.parse(pending.stdout).status, 'pending');
      const text = await runCli(['payments', 'refund', id, '--amount', '5.00'], env);
      assert.match(
        text.stdout,
        /\nstatus\s+pending \(the processor has not answered yet; it is finished in the background/,
      );
    });
  });

  it('refused without the operator token', async () => {
    const noToken = await runCli(['payments', 'list', '--url', url], { RENTPAY_OPERATOR_TOKEN: '' });
    assert.equal(noToken.code, 2);
    assert.equal(noToken.stderr, 'rentpay: No operator token: pass --token or set RENTPAY_OPERATOR_TOKEN.\n');
    const wrong = await runCli([
      'payments',
      'refund',
      'pay_x',
      '--url',
      url,
      '--token',
      'wrong-token-wrong-token-123',
    ]);
    assert.equal(wrong.code, 2);
    assert.equal(wrong.stderr, 'rentpay: 401 unauthorized: Invalid operator token.\n');
    const badStatus = await runCli(['payments', 'list', '--status', 'paid'], env);
    assert.equal(badStatus.code, 2);
    assert.match(badStatus.stderr, /--status "paid": choose one of requires_action, processing/);

    for (const target of ['/api/operator/payments', '/api/operator/payments/pay_x']) {
      const bare = await send(t, { method: 'GET', url: target });
      assertError(bare, 401, 'unauthorized');
      assert.equal(bare.headers['www-authenticate'], 'Bearer');
      assertError(
        await operator(t, target.replace('/api/operator', ''), 'wrong-token-wrong-token-123'),
        401,
        'unauthorized',
      );
    }
  });
});
