import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertError } from '../../support/api-client.ts';
import { runJobs, type TestApp } from '../../support/helpers.ts';
import {
  answerChallenge,
  type Client,
  cardToken,
  count,
  DECLINES,
  newTenant,
  PAN,
  paymentEvents,
  startPaymentApp,
  walletToken,
} from '../../support/payment-client.ts';

const SAVED_CARD_KEYS = [
  'brand',
  'card_id',
  'created_at',
  'exp_month',
  'exp_year',
  'is_default',
  'last4',
  'next_action',
  'status',
];
const MINUTE = 60_000;

describe('saved cards through the Client API', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;

  before(async () => {
    ({ t, api, otherApi } = await startPaymentApp());
  });
  after(() => t.close());

  /** Saves a card that needs no 3DS, asserting a 201, then moves the clock on so the next card is newer. */
  async function saved(client: Client, number = PAN.visa) {
    const response = await client.saveCard(await cardToken(t, number));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    t.clock.advance(MINUTE);
    return response.body;
  }

  const ids = async (client: Client) =>
    ((await client.cards()).body.cards as { card_id: string }[]).map((c) => c.card_id);

  it('save: 201 an active default card; the same token again: 200 the same card; every session of the user sees it', async () => {
    const tenant = await newTenant(t, api);
    const token = await cardToken(t, PAN.mastercard);
    const first = await tenant.client.saveCard(token);
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.deepEqual(Object.keys(first.body).sort(), SAVED_CARD_KEYS);
    assert.match(first.body.card_id, /^card_[A-Za-z0-9]{22}$/);
    assert.deepEqual(
      { ...first.body, card_id: undefined, created_at: undefined },
      {
        card_id: undefined,
        brand: 'mastercard',
        last4: '4444',
        exp_month: 12,
        exp_year: 2030,
        is_default: true,
        status: 'active',
        next_action: null,
        created_at: undefined,
      },
    );
    assert.equal(first.body.created_at, t.clock.now().toISOString());

    const again = await tenant.client.saveCard(token);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);

    const later = await tenant.login();
    assert.deepEqual((await later.cards()).body, { cards: [first.body] });
    assert.deepEqual((await later.card(first.body.card_id)).body, first.body);
    assert.equal(await count(t, 'saved_cards WHERE id = $1', [first.body.card_id]), 1);
  });

  it('concurrent saves of one token make one card (and check the card at the processor once)', async () => {
    const tenant = await newTenant(t, api);
    const token = await cardToken(t, PAN.threeDsAlways);
    const charges = await count(t, 'sandbox_charges');
    const answers = await Promise.all(Array.from({ length: 4 }, () => tenant.client.saveCard(token)));
    assert.deepEqual(
      answers.map((a) => a.status).sort(),
      [200, 200, 200, 201],
      JSON.stringify(answers.map((a) => a.body)),
    );
    assert.equal(new Set(answers.map((a) => a.body.card_id)).size, 1);
    assert.equal((await count(t, 'sandbox_charges')) - charges, 1);
  });

  it('list: active cards only, the default first, then newest first', async () => {
    const { client } = await newTenant(t, api);
    assert.deepEqual((await client.cards()).body, { cards: [] });
    const a = await saved(client, PAN.visa);
    const b = await saved(client, PAN.mastercard);
    const c = await saved(client, PAN.visa);
    assert.equal(a.is_default, true, 'the first card becomes the default');
    assert.equal(b.is_default, false);
    assert.equal(c.is_default, false);
    const waiting = await client.saveCard(await cardToken(t, PAN.threeDsAlways));
    assert.equal(waiting.body.status, 'requires_action');
    assert.deepEqual(await ids(client), [a.card_id, c.card_id, b.card_id]);
  });

  it('set default: exactly one default afterwards; 409 for a card that is not active; 404 for unknown ones', async () => {
    const { client } = await newTenant(t, api);
    const a = await saved(client);
    const b = await saved(client, PAN.mastercard);
    const made = await client.makeDefault(b.card_id);
    assert.equal(made.status, 200, JSON.stringify(made.body));
    assert.deepEqual(made.body, { ...b, is_default: true });
    assert.deepEqual(await ids(client), [b.card_id, a.card_id]);
    assert.equal((await client.makeDefault(b.card_id)).status, 200, 'the default again: no change');
    const defaults = (await client.cards()).body.cards.filter(
      (card: { is_default: boolean }) => card.is_default,
    );
    assert.equal(defaults.length, 1);

    const waiting = await client.saveCard(await cardToken(t, PAN.threeDsFirst));
    assertError(await client.makeDefault(waiting.body.card_id), 409, 'conflict', /active/);
    assertError(await client.makeDefault('card_unknown'), 404, 'not_found');
    assert.equal((await client.cards()).body.cards[0].card_id, b.card_id);
  });

  it('delete: 204, then 404 and gone from the list; deleting the default makes the newest remaining card default', async () => {
    const { client } = await newTenant(t, api);
    const a = await saved(client);
    const b = await saved(client, PAN.mastercard);
    const c = await saved(client);
    const deleted = await client.deleteCard(a.card_id);
    assert.equal(deleted.status, 204);
    assert.equal(deleted.body, '');
    assertError(await client.card(a.card_id), 404, 'not_found');
    assertError(await client.deleteCard(a.card_id), 404, 'not_found');
    assertError(await client.makeDefault(a.card_id), 404, 'not_found');
    const list = (await client.cards()).body.cards;
    assert.deepEqual(
      list.map((card: { card_id: string; is_default: boolean }) => [card.card_id, card.is_default]),
      [
        [c.card_id, true],
        [b.card_id, false],
      ],
    );

    assert.equal((await client.deleteCard(b.card_id)).status, 204, 'a card that is not the default');
    assert.deepEqual(await ids(client), [c.card_id]);
    assert.equal((await client.card(c.card_id)).body.is_default, true);
    assert.equal((await client.deleteCard(c.card_id)).status, 204);
    assert.deepEqual((await client.cards()).body, { cards: [] });

    const next = await saved(client);
    assert.equal(next.is_default, true, 'with no default left, the next card saved becomes it');
  });

  it('4000 0000 0000 3220 saved with 3DS: Authorise reaches the card as a notification; it then pays without a new challenge', async () => {
    const tenant = await newTenant(t, api);
    const response = await tenant.client.saveCard(await cardToken(t, PAN.threeDsFirst));
    assert.equal(response.status, 201);
    assert.equal(response.body.status, 'requires_action');
    assert.equal(response.body.is_default, false);
    assert.equal(response.body.next_action.type, 'three_ds');
    assert.match(
      response.body.next_action.url,
      new RegExp(`^${t.config.publicUrl}/sandbox/3ds/ch_sandbox_[A-Za-z0-9]+$`),
    );
    const cardId = response.body.card_id;
    assert.deepEqual((await tenant.client.cards()).body.cards, [], 'only active cards are listed');

    const page = await answerChallenge(t, response.body.next_action.url, 'authorise');
    assert.equal(page.status, 202);
    assert.equal(
      (await tenant.client.card(cardId)).body.status,
      'requires_action',
      'not before the notification',
    );
    await runJobs(t);
    const active = await tenant.client.card(cardId);
    assert.equal(active.body.status, 'active');
    assert.equal(active.body.is_default, true, 'the user had no default');
    assert.equal(active.body.next_action, null);
    assert.equal((await answerChallenge(t, response.body.next_action.url, 'authorise')).status, 409);

    const paid = await tenant.client.pay({ saved_card_id: cardId });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.status, 'succeeded', 'authenticated when saved: no second challenge');
    assert.deepEqual(paid.body.card, { brand: 'visa', last4: '3220', exp_month: 12, exp_year: 2030 });
    assert.equal(paid.body.fee, '17.40');
    assert.deepEqual(await paymentEvents(t, paid.body.payment_id), ['payment_success']);
    const [row] = await t.db.query<{ saved_card_id: string }>(
      'SELECT saved_card_id FROM payments WHERE id = $1',
      [paid.body.payment_id],
    );
    assert.equal(row?.saved_card_id, cardId);
  });

  it('3DS check failed: the card is failed, not listed and cannot pay; the same token starts a new check', async () => {
    const tenant = await newTenant(t, api);
    const token = await cardToken(t, PAN.threeDsFirst);
    const response = await tenant.client.saveCard(token);
    assert.equal((await answerChallenge(t, response.body.next_action.url, 'fail')).status, 202);
    await runJobs(t);
    const failed = await tenant.client.card(response.body.card_id);
    assert.equal(failed.body.status, 'failed');
    assert.equal(failed.body.next_action, null);
    assert.equal(failed.body.is_default, false);
    assert.deepEqual((await tenant.client.cards()).body.cards, []);
    assertError(await tenant.client.makeDefault(response.body.card_id), 409, 'conflict');
    const refused = await tenant.client.pay({ saved_card_id: response.body.card_id });
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { saved_card_id: ['Unknown saved card.'] });

    const retry = await tenant.client.saveCard(token);
    assert.equal(retry.status, 201);
    assert.notEqual(retry.body.card_id, response.body.card_id);
    assert.equal(retry.body.status, 'requires_action');
    assert.notEqual(retry.body.next_action.url, response.body.next_action.url, 'a new check');
  });

  it('4000 0027 6000 3184 saved with 3DS asks 3DS again on every payment', async () => {
    const tenant = await newTenant(t, api);
    const response = await tenant.client.saveCard(await cardToken(t, PAN.threeDsAlways));
    await answerChallenge(t, response.body.next_action.url, 'authorise');
    await runJobs(t);
    const cardId = response.body.card_id;
    assert.equal((await tenant.client.card(cardId)).body.status, 'active');

    for (const client of [tenant.client, await tenant.login()]) {
      const paying = await client.pay({ saved_card_id: cardId });
      assert.equal(paying.status, 201);
      assert.equal(paying.body.status, 'requires_action');
      assert.equal(paying.body.next_action.type, 'three_ds');
      await answerChallenge(t, paying.body.next_action.url, 'authorise');
      await runJobs(t);
      assert.equal((await client.payment(paying.body.payment_id)).body.status, 'succeeded');
    }
  });

  it('a card deleted while its check waits for 3DS cannot be activated by a late Authorise', async () => {
    const { client } = await newTenant(t, api);
    const response = await client.saveCard(await cardToken(t, PAN.threeDsAlways));
    assert.equal((await client.deleteCard(response.body.card_id)).status, 204);
    assert.equal((await answerChallenge(t, response.body.next_action.url, 'authorise')).status, 409);
    await runJobs(t);
    assertError(await client.card(response.body.card_id), 404, 'not_found');
  });

  for (const [number, code] of Object.entries(DECLINES)) {
    it(`decline card ${number.slice(-4)} is refused (${code}): 400 on card_token, nothing stored`, async () => {
      const { client } = await newTenant(t, api);
      const cards = await count(t, 'saved_cards');
      const response = await client.saveCard(await cardToken(t, number));
      assert.equal(response.status, 400);
      assert.deepEqual(Object.keys(response.body), ['card_token']);
      assert.equal(response.body.card_token.length, 1);
      assert.equal(typeof response.body.card_token[0], 'string');
      assert.equal(await count(t, 'saved_cards'), cards);
    });
  }

  it('an unknown token, a wallet token or no token at all: 400 on card_token, nothing stored', async () => {
    const { client } = await newTenant(t, api);
    const unknownToken = { card_token: ['Unknown card token; tokenise the card again.'] };
    assert.deepEqual((await client.saveCard('tok_sandbox_unknown')).body, unknownToken);
    const wallet = await client.saveCard(await walletToken(t, 'apple_pay'));
    assert.equal(wallet.status, 400, 'a wallet pays once; it is not a card to save');
    assert.deepEqual(wallet.body, unknownToken);
    const missing = await client.call('POST', '/cards', {});
    assert.equal(missing.status, 400);
    assert.ok(missing.body.card_token);
    assert.deepEqual((await client.cards()).body, { cards: [] });
  });

  it("another user's card, of this integrator or another: 404 on every card route, 400 when paying with it", async () => {
    const owner = await newTenant(t, api);
    const card = await saved(owner.client);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      const { client } = stranger;
      assertError(await client.card(card.card_id), 404, 'not_found');
      assertError(await client.deleteCard(card.card_id), 404, 'not_found');
      assertError(await client.makeDefault(card.card_id), 404, 'not_found');
      assert.deepEqual((await client.cards()).body, { cards: [] });
      const pay = await client.pay({ saved_card_id: card.card_id });
      assert.equal(pay.status, 400);
      assert.deepEqual(pay.body, { saved_card_id: ['Unknown saved card.'] });
      assert.equal(await count(t, 'payments WHERE session_id = $1', [stranger.sessionId]), 0);
    }
    assert.deepEqual((await owner.client.card(card.card_id)).body, card, 'unchanged');
  });

  it('pay with a saved card: the card in the payment; a deleted card cannot pay', async () => {
    const tenant = await newTenant(t, api);
    const card = await saved(tenant.client, PAN.mastercard);
    const paid = await tenant.client.pay({ saved_card_id: card.card_id });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.status, 'succeeded');
    assert.equal(paid.body.method, 'card');
    assert.deepEqual(paid.body.card, { brand: 'mastercard', last4: '4444', exp_month: 12, exp_year: 2030 });

    const next = await tenant.login();
    assert.equal((await next.deleteCard(card.card_id)).status, 204);
    const refused = await next.pay({ saved_card_id: card.card_id });
    assert.deepEqual(refused.body, { saved_card_id: ['Unknown saved card.'] });
    const payment = await next.payment(paid.body.payment_id);
    assert.equal(payment.status, 404, 'the payment belongs to the first session');
  });

  it('card routes need a user session token', async () => {
    for (const [method, url] of [
      ['GET', '/api/client/cards'],
      ['POST', '/api/client/cards'],
      ['GET', '/api/client/cards/card_x'],
      ['DELETE', '/api/client/cards/card_x'],
      ['POST', '/api/client/cards/card_x/default'],
    ] as const) {
      const response = await t.app.inject({ method, url });
      assert.equal(response.statusCode, 401, `${method} ${url}`);
      assert.equal(
        (await t.app.inject({ method, url, headers: { authorization: `Token ${api.serverToken}` } }))
          .statusCode,
        401,
      );
    }
  });

  it('no saved card row holds a card number', async () => {
    const rows = await t.db.query<{ row: string }>('SELECT r::text AS row FROM saved_cards r');
    assert.ok(rows.length > 0);
    for (const { row } of rows) {
      for (const pan of [...Object.values(PAN), ...Object.keys(DECLINES)]) assert.ok(!row.includes(pan), row);
    }
  });
});
