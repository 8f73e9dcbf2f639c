import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  assertClientTokenRequired,
  assertFieldErrors,
  integratorWithout,
  SAVED_CARD_KEYS,
  savedCard,
} from '../../support/operation-tests.ts';
import { cardToken, count, newTenant, PAN, startPaymentApp } from '../../support/payment-client.ts';

describe('POST /api/client/cards (saveCard)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const cardsOf = (userId: number, integratorId: string) =>
    count(
      t,
      'saved_cards WHERE user_id = (SELECT id FROM users WHERE external_id = $1 AND integrator_id = $2)',
      [userId, integratorId],
    );

  it('201: an active card, the user’s default; listed and readable; the same token again: 200 the same card', async () => {
    const tenant = await newTenant(t, api);
    const token = await cardToken(t, PAN.mastercard);
    const answer = await tenant.client.saveCard(token);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const card = answer.body;
    assert.deepEqual(Object.keys(card).sort(), SAVED_CARD_KEYS);
    assert.match(card.card_id, /^card_[A-Za-z0-9]{22}$/);
    assert.deepEqual(
      { ...card, card_id: undefined },
      {
        card_id: undefined,
        brand: 'mastercard',
        last4: '4444',
        exp_month: 12,
        exp_year: 2030,
        is_default: true,
        status: 'active',
        next_action: null,
        created_at: t.clock.now().toISOString(),
      },
    );
    assert.deepEqual((await tenant.client.cards()).body, { cards: [card] });
    assert.deepEqual((await (await tenant.login()).card(card.card_id)).body, card);
    const again = await tenant.client.saveCard(token);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, card);
    assert.equal(await cardsOf(tenant.userId, api.integratorId), 1);
  });

  it('201 requires_action with a 3DS page for a card its issuer checks first; not the default yet', async () => {
    const { client } = await newTenant(t, api);
    const answer = await client.saveCard(await cardToken(t, PAN.threeDsFirst));
    assert.equal(answer.status, 201);
    assert.equal(answer.body.status, 'requires_action');
    assert.equal(answer.body.is_default, false);
    assert.equal(answer.body.next_action.type, 'three_ds');
    assert.equal((await client.card(answer.body.card_id)).body.status, 'requires_action');
    assert.deepEqual((await client.cards()).body, { cards: [] }, 'only active cards are listed');
  });

  it('400 for a declined card, an unknown token or a missing one; nothing is stored', async () => {
    const tenant = await newTenant(t, api);
    await assertFieldErrors(
      (body) => tenant.client.call('POST', '/cards', body),
      [
        [
          { card_token: await cardToken(t, '4000000000009995') },
          { card_token: ['Your card has insufficient funds.'] },
        ],
        [
          { card_token: 'tok_sandbox_unknown' },
          { card_token: ['Unknown card token; tokenise the card again.'] },
        ],
        [{}, { card_token: ['This field is required.'] }],
        [{ card_token: '' }, { card_token: ['This field may not be blank.'] }],
      ],
    );
    assert.equal(await cardsOf(tenant.userId, api.integratorId), 0);
  });

  it('409 feature_disabled while the integrator has saved cards off; nothing is stored', async () => {
    const off = await integratorWithout(t, 'savedCards');
    const tenant = await newTenant(t, off);
    assertError(
      await tenant.client.saveCard(await cardToken(t, PAN.visa)),
      409,
      'feature_disabled',
      /^Saved cards are not enabled for this integration\.$/,
    );
    assert.equal(await cardsOf(tenant.userId, off.integratorId), 0);
  });

  it('the card is the user’s only: another tenant, of this or another integrator, neither lists nor reads it', async () => {
    const owner = await newTenant(t, api);
    const card = await savedCard(t, owner.client);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      assert.deepEqual((await stranger.client.cards()).body, { cards: [] });
      assertError(await stranger.client.card(card.card_id), 404, 'not_found');
    }
  });

  it('401 without a token, and once the token has lapsed', async () => {
    await assertClientTokenRequired(t, api, {
      method: 'POST',
      url: '/api/client/cards',
      payload: { card_token: await cardToken(t, PAN.visa) },
    });
  });
});
