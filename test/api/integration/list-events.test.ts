import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Answer,
  type Api,
  assertError,
  integrationApi,
  send,
  UNLIMITED,
} from '../../support/api-client.ts';
import { startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { cardToken, newTenant, PAN } from '../../support/payment-client.ts';

const EVENT_KEYS = ['created_at', 'data', 'delivery', 'event_id', 'type'];

describe('GET /api/third-party/events/ (listEvents)', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  /** api's events: three pings a second apart (`pings`, newest first), then a payment_success. */
  let pings: string[];
  let paymentEvent: string;
  let paymentAt: string;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
    otherApi = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' }));
    pings = [];
    for (let i = 0; i < 3; i++) {
      pings.unshift((await call('/webhook-endpoint/test/', api, 'POST')).body.event_id);
      t.clock.advance(1000);
    }
    const tenant = await newTenant(t, api);
    paymentAt = t.clock.now().toISOString();
    const paid = await tenant.client.pay({ card_token: await cardToken(t, PAN.visa) });
    assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
    const [event] = await t.db.query<{ id: string }>(
      "SELECT id FROM events WHERE integrator_id = $1 AND type = 'payment_success'",
      [api.integratorId],
    );
    paymentEvent = event!.id;
    t.clock.advance(1000);
  });
  after(() => t.close());

  function call(path: string, who: Api = api, method: 'GET' | 'POST' = 'GET'): Promise<Answer> {
    return send(t, { method, url: `/api/third-party${path}`, headers: tokenHeader(who.serverToken) });
  }
  const ids = (answer: Answer) => answer.body.data.map((event: { event_id: string }) => event.event_id);

  it('200 {data, has_more}: the caller’s events, newest first, each with its delivery', async () => {
    const answer = await call('/events/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(ids(answer), [paymentEvent, ...pings]);
    assert.equal(answer.body.has_more, false);
    for (const event of answer.body.data) assert.deepEqual(Object.keys(event).sort(), EVENT_KEYS);
    assert.deepEqual(answer.body.data[1], {
      event_id: pings[0],
      type: 'ping',
      created_at: new Date(Date.parse(paymentAt) - 1000).toISOString(),
      data: { integrator_id: api.integratorId },
      delivery: { status: 'not_sent', attempts: 0 },
    });
    const [payment] = answer.body.data;
    assert.deepEqual([payment.type, payment.created_at], ['payment_success', paymentAt]);
    assert.equal(payment.data.payment.status, 'succeeded');
  });

  it('type and since filter; since is inclusive', async () => {
    assert.deepEqual(ids(await call('/events/?type=payment_success')), [paymentEvent]);
    assert.deepEqual(ids(await call('/events/?type=ping')), pings);
    assert.deepEqual(ids(await call('/events/?type=payout_paid')), []);
    const since = new Date(Date.parse(paymentAt) - 1000).toISOString();
    assert.deepEqual(ids(await call(`/events/?since=${encodeURIComponent(since)}`)), [
      paymentEvent,
      pings[0],
    ]);
  });

  it('pages by limit and starting_after; an event recorded meanwhile never shifts a later page', async () => {
    const first = await call('/events/?limit=2');
    assert.deepEqual([ids(first), first.body.has_more], [[paymentEvent, pings[0]], true]);
    const newer = (await call('/webhook-endpoint/test/', api, 'POST')).body.event_id;
    const second = await call(`/events/?limit=2&starting_after=${pings[0]}`);
    assert.deepEqual([ids(second), second.body.has_more], [pings.slice(1), false]);
    assert.equal(ids(await call('/events/?limit=1'))[0], newer, 'it shows on the first page');
  });

  it('400 invalid_request for a bad limit, since, cursor or parameter', async () => {
    for (const [query, detail] of [
      ['limit=0', /^Invalid querystring: limit: Ensure this value is greater than or equal to 1\.$/],
      ['limit=101', /^Invalid querystring: limit: Ensure this value is less than or equal to 100\.$/],
      ['since=yesterday', /^Invalid querystring: since: Datetime has wrong format\. Use ISO 8601\.$/],
      ['starting_after=nope', /^Invalid querystring: starting_after: /],
      [
        'starting_after=evt_nope',
        /^Invalid querystring: starting_after: No event evt_nope\. Pass the event_id of the last event of the page you have\.$/,
      ],
      ['status=failed', /^Invalid querystring: non_field_errors: Unknown field "status"\.$/],
    ] as const) {
      assertError(await call(`/events/?${query}`), 400, 'invalid_request', detail);
    }
  });

  it('another integrator’s events are neither listed nor a cursor', async () => {
    const theirs = (await call('/webhook-endpoint/test/', otherApi, 'POST')).body.event_id;
    assert.deepEqual(ids(await call('/events/', otherApi)), [theirs]);
    assert.ok(!ids(await call('/events/?limit=100')).includes(theirs));
    assertError(
      await call(`/events/?starting_after=${pings[0]}`, otherApi),
      400,
      'invalid_request',
      new RegExp(`^Invalid querystring: starting_after: No event ${pings[0]}\\.`),
    );
  });

  it('401 without a token', async () => {
    assertError(
      await send(t, { method: 'GET', url: '/api/third-party/events/' }),
      401,
      'unauthorized',
      /^Authentication credentials were not provided\./,
    );
  });
});
