import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  assertCardIdChecked,
  assertClientTokenRequired,
  integratorWithout,
  savedCard,
} from '../../support/operation-tests.ts';
import { type Client, newTenant, PAN, startPaymentApp } from '../../support/payment-client.ts';

describe('POST /api/client/cards/{card_id}/default (setDefaultSavedCard)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const defaults = async (client: Client) =>
    (await client.cards()).body.cards
      .filter((card: { is_default: boolean }) => card.is_default)
      .map((card: { card_id: string }) => card.card_id);

  it('200: the card, now the only default, listed first; the default again changes nothing', async () => {
    const { client } = await newTenant(t, api);
    const first = await savedCard(t, client);
    const second = await savedCard(t, client, PAN.mastercard);
    const answer = await client.makeDefault(second.card_id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { ...second, is_default: true });
    assert.deepEqual((await client.cards()).body, {
      cards: [answer.body, { ...first, is_default: false }],
    });
    const again = await client.makeDefault(second.card_id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, answer.body);
    assert.deepEqual(await defaults(client), [second.card_id]);
  });

  it('409 for a card that is not active (waiting for 3DS); the default stays', async () => {
    const { client } = await newTenant(t, api);
    const active = await savedCard(t, client);
    const waiting = await savedCard(t, client, PAN.threeDsFirst);
    assertError(
      await client.makeDefault(waiting.card_id),
      409,
      'conflict',
      /^Only an active card can be the default; this one is waiting for 3DS\.$/,
    );
    assert.deepEqual(await defaults(client), [active.card_id]);
    assert.equal((await client.card(waiting.card_id)).body.is_default, false);
  });

  it('400 for an id that is not a card id; 404 for an unknown or a deleted card', async () => {
    const { client } = await newTenant(t, api);
    await assertCardIdChecked(t, client, client.makeDefault);
  });

  it('409 feature_disabled while the integrator has saved cards off', async () => {
    const { client } = await newTenant(t, await integratorWithout(t, 'savedCards'));
    assertError(await client.makeDefault('card_unknown'), 409, 'feature_disabled');
  });

  it('another tenant’s card, of this or another integrator, is 404; the owner’s default stays', async () => {
    const owner = await newTenant(t, api);
    const first = await savedCard(t, owner.client);
    const second = await savedCard(t, owner.client);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      await savedCard(t, stranger.client);
      assertError(await stranger.client.makeDefault(second.card_id), 404, 'not_found');
    }
    assert.deepEqual(await defaults(owner.client), [first.card_id]);
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { client } = await newTenant(t, api);
    const card = await savedCard(t, client);
    await assertClientTokenRequired(t, api, {
      method: 'POST',
      url: `/api/client/cards/${card.card_id}/default`,
    });
  });
});
