/** The integrator's server fixes the amount at user-login; the Client API holds the browser to it and to the total shown. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertWritesNothing, send } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { OPERATOR_TOKEN, runJobs, type TestApp } from '../../support/helpers.ts';
import {
  type Client,
  cardToken,
  clientOf,
  count,
  newKey,
  PAN,
  startPaymentApp,
} from '../../support/payment-client.ts';
import { createSchedule, scheduleOk, scheduleTenant } from '../../support/schedule-helpers.ts';

let users = 0;

/** A new user of `api`'s integrator; user-login with `amount` (pure_amount, amount_editable) added to the body. */
async function login(
  t: TestApp,
  api: Api,
  amount: Record<string, unknown>,
): Promise<{ client: Client; sessionId: string; email: string }> {
  const userId = 5000 + ++users;
  const email = `amount-${userId}@example.com`;
  await api.onboardOk(
    userBody({ user_id: userId, email, tenant: [tenancyBody({ payment_reference: `AMT-${userId}` })] }),
  );
  const answer = await api.login({ email, ...amount });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return { client: clientOf(t, answer.body.token), sessionId: answer.body.session_id, email };
}

describe('user-login fixes the amount', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    ({ t, api } = await startPaymentApp());
  });
  after(() => t.close());

  it('refuses a bad pure_amount or amount_editable with a field error and opens no session', async () => {
    const { email } = await login(t, api, {});
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ pure_amount: '12.345' }, 'pure_amount', /at most two decimal places/],
      [{ pure_amount: '-5.00' }, 'pure_amount', /at most two decimal places/],
      [{ pure_amount: 1200 }, 'pure_amount', /Not a valid string/],
      [{ pure_amount: '0.99' }, 'pure_amount', /from 1\.00 to 100000\.00/],
      [{ pure_amount: '100000.01' }, 'pure_amount', /from 1\.00 to 100000\.00/],
      [{ pure_amount: '1200.00', amount_editable: 'yes' }, 'amount_editable', /valid boolean/],
      [{ amount_editable: false }, 'amount_editable', /Send pure_amount to fix the amount/],
    ];
    for (const [extra, field, message] of cases) {
      await assertWritesNothing(t.db, async () => {
        const answer = await api.login({ email, ...extra });
        assert.equal(answer.status, 400, JSON.stringify(extra));
        assert.deepEqual(Object.keys(answer.body), [field], JSON.stringify(answer.body));
        assert.match(answer.body[field][0], message);
      });
    }
  });

  it('shows the amount in the session query and the client session', async () => {
    for (const [extra, expected] of [
      [{}, { pure_amount: null, editable: true }],
      [{ amount_editable: true }, { pure_amount: null, editable: true }],
      [{ pure_amount: '1200' }, { pure_amount: '1200.00', editable: false }],
      [
        { pure_amount: '950.5', amount_editable: false },
        { pure_amount: '950.50', editable: false },
      ],
      [
        { pure_amount: '950.50', amount_editable: true },
        { pure_amount: '950.50', editable: true },
      ],
    ] as const) {
      const { client, sessionId } = await login(t, api, extra);
      assert.deepEqual((await api.session(sessionId)).body.amount, expected, JSON.stringify(extra));
      assert.deepEqual((await client.call('GET', '/session')).body.amount, expected, JSON.stringify(extra));
    }
  });

  it('the attack that worked: £1.00 paid on a £1,200.00 session is refused, nothing is charged', async () => {
    const { client, sessionId } = await login(t, api, { pure_amount: '1200.00' });
    const charges = await count(t, 'sandbox_charges');
    for (const pure_amount of ['1.00', '1199.99', '1200.01']) {
      const answer = await client.pay({ pure_amount, card_token: await cardToken(t, PAN.visa) });
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, {
        pure_amount: [
          'The amount of this session is fixed at 1200.00 by the platform; pay exactly that amount.',
        ],
      });
    }
    assert.equal(await count(t, 'payments WHERE session_id = $1', [sessionId]), 0);
    assert.equal(await count(t, 'sandbox_charges'), charges, 'the processor was not asked');
    assert.equal((await api.session(sessionId)).body.status, 'active', 'no payment_success, not completed');

    const paid = await client.pay({ pure_amount: '1200', card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.pure_amount, '1200.00');
    assert.equal(paid.body.status, 'succeeded');
    assert.equal((await api.session(sessionId)).body.status, 'completed');
  });

  it('a pre-filled amount (amount_editable true) and an open session take any amount in the limits', async () => {
    for (const extra of [{ pure_amount: '1200.00', amount_editable: true }, {}]) {
      const { client } = await login(t, api, extra);
      const paid = await client.pay({ pure_amount: '1.00', card_token: await cardToken(t, PAN.visa) });
      assert.equal(paid.status, 201, JSON.stringify(paid.body));
      assert.equal(paid.body.pure_amount, '1.00');
    }
  });

  it('recurring rent set up in a fixed session charges the tenancy’s rent, never the one-off amount', async () => {
    const tenant = await scheduleTenant(t, api, {}, PAN.visa, () => runJobs(t));
    const fixed = await api.login({ email: tenant.email, pure_amount: '4800.00' });
    const client = clientOf(t, fixed.body.token);
    for (const pureAmount of ['1.00', '4800.00']) {
      const refused = await createSchedule({ client, cardId: tenant.cardId }, { pure_amount: pureAmount });
      assert.equal(refused.status, 400);
      assert.match(refused.body.pure_amount[0], /fixed this session’s amount \(4800\.00\) for one payment/);
      assert.match(refused.body.pure_amount[0], /tenancy’s rent \(1200\.00\)/);
    }
    assert.equal(await count(t, 'schedules WHERE user_id IS NOT NULL'), 0);
    const schedule = await scheduleOk({ ...tenant, client });
    assert.equal(schedule.pure_amount, '1200.00', 'the tenancy’s rent, not the session’s one-off 4800.00');
  });
});

describe('expected_amount: the total the tenant saw is the total charged', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    ({ t, api } = await startPaymentApp());
  });
  after(() => t.close());

  it('charges when the total matches (pure amount + the method’s fee)', async () => {
    const { client } = await login(t, api, {});
    const paid = await client.pay({ expected_amount: '1217.40', card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.amount, '1217.40');
  });

  it('answers 409 amount_changed with a fresh quote after a fee change, and charges nothing', async () => {
    const { client, sessionId } = await login(t, api, { pure_amount: '1200.00' });
    const shown = (await client.call('GET', '/session')).body.fees.card;
    assert.deepEqual(shown, { percent: '1.45', fixed: '0.00' });
    const patched = await send(t, {
      method: 'PATCH',
      url: `/api/operator/integrators/${api.integratorId}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      payload: { fees: { card: { percent: '2.00', fixed: '0.20' } } },
    });
    assert.equal(patched.status, 200);
    const charges = await count(t, 'sandbox_charges');
    const stale = await client.pay({ expected_amount: '1217.40', card_token: await cardToken(t, PAN.visa) });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error, 'amount_changed');
    assert.match(stale.body.detail, /now 1224\.20, not 1217\.40/);
    assert.deepEqual(stale.body.quote, { pure_amount: '1200.00', fee: '24.20', amount: '1224.20' });
    assert.equal(await count(t, 'payments WHERE session_id = $1', [sessionId]), 0);
    assert.equal(await count(t, 'sandbox_charges'), charges);

    const paid = await client.pay({
      expected_amount: stale.body.quote.amount,
      card_token: await cardToken(t, PAN.visa),
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.amount, '1224.20');
    assert.equal(paid.body.fee, '24.20');
    await send(t, {
      method: 'PATCH',
      url: `/api/operator/integrators/${api.integratorId}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      payload: { fees: { card: { percent: '1.45', fixed: '0.00' } } },
    });
  });

  it('a replay of an earlier key answers its payment, never 409, whatever expected_amount says', async () => {
    const { client } = await login(t, api, {});
    const key = newKey();
    const token = await cardToken(t, PAN.visa);
    const first = await client.pay({ idempotency_key: key, expected_amount: '1217.40', card_token: token });
    assert.equal(first.status, 201);
    const replay = await client.pay({ idempotency_key: key, expected_amount: '1.00', card_token: token });
    assert.equal(replay.status, 200);
    assert.equal(replay.body.payment_id, first.body.payment_id);
  });

  it('refuses an expected_amount that is not an amount, with a field error', async () => {
    const { client } = await login(t, api, {});
    for (const expected_amount of ['', 'abc', '12.345', '-1']) {
      const answer = await client.pay({ expected_amount, card_token: await cardToken(t, PAN.visa) });
      assert.equal(answer.status, 400);
      assert.ok(answer.body.expected_amount, JSON.stringify(answer.body));
    }
    const wrongType = await client.pay({ expected_amount: 1217.4, card_token: await cardToken(t, PAN.visa) });
    assert.equal(wrongType.status, 400);
    assert.deepEqual(wrongType.body, { expected_amount: ['Not a valid string: send the value in quotes.'] });
  });

  it('is documented in OpenAPI with user-login’s pure_amount and amount_editable', async () => {
    const doc = (await send(t, { method: 'GET', url: '/api/third-party/openapi.json' })).body;
    const login =
      doc.paths['/api/third-party/user-login/'].post.requestBody.content['application/json'].schema;
    assert.match(login.properties.pure_amount.description, /refuses any other amount/);
    assert.equal(login.properties.amount_editable.type, 'boolean');
    const session =
      doc.paths['/api/third-party/session/{session_id}/'].get.responses['200'].content['application/json']
        .schema;
    assert.ok(JSON.stringify(session).includes('"editable"'));
  });
});
