import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { assertClientTokenRequired, integratorWithout, savedCard } from '../../support/operation-tests.ts';
import { newTenant, PAN, startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/client/cards (listSavedCards)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  it('200: the user’s active cards, the default first, then newest first; deleted and unchecked ones are not listed', async () => {
    const tenant = await newTenant(t, api);
    assert.deepEqual((await tenant.client.cards()).body, { cards: [] });
    const first = await savedCard(t, tenant.client, PAN.visa);
    const second = await savedCard(t, tenant.client, PAN.mastercard);
    const third = await savedCard(t, tenant.client, PAN.visa);
    const gone = await savedCard(t, tenant.client, PAN.mastercard);
    const waiting = await savedCard(t, tenant.client, PAN.threeDsAlways);
    assert.equal(waiting.status, 'requires_action');
    assert.equal((await tenant.client.deleteCard(gone.card_id)).status, 204);
    const answer = await (await tenant.login()).cards();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { cards: [first, third, second] });
    assert.equal((await tenant.client.makeDefault(second.card_id)).status, 200);
    assert.deepEqual(
      (await tenant.client.cards()).body.cards.map((c: { card_id: string; is_default: boolean }) => [
        c.card_id,
        c.is_default,
      ]),
      [
        [second.card_id, true],
        [third.card_id, false],
        [first.card_id, false],
      ],
    );
  });

  it('409 feature_disabled while the integrator has saved cards off', async () => {
    const { client } = await newTenant(t, await integratorWithout(t, 'savedCards'));
    assertError(await client.cards(), 409, 'feature_disabled');
  });

  it('lists the session user’s cards only, never another tenant’s of this or another integrator', async () => {
    const owner = await newTenant(t, api);
    const card = await savedCard(t, owner.client, PAN.visa);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      const mine = await savedCard(t, stranger.client, PAN.mastercard);
      assert.deepEqual((await stranger.client.cards()).body, { cards: [mine] });
    }
    assert.deepEqual((await owner.client.cards()).body, { cards: [card] });
  });

  it('401 without a token, and once the token has lapsed', async () => {
    await assertClientTokenRequired(t, api, { method: 'GET', url: '/api/client/cards' });
  });
});
