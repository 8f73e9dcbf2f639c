import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  assertCardIdChecked,
  assertClientTokenRequired,
  integratorWithout,
  savedCard,
  scheduledTenant,
} from '../../support/operation-tests.ts';
import { newTenant, PAN, startPaymentApp } from '../../support/payment-client.ts';
import { clientChange } from '../../support/schedule-helpers.ts';

describe('DELETE /api/client/cards/{card_id} (deleteSavedCard)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  it('204 with no body; the card is gone; deleting the default makes the newest remaining card the default', async () => {
    const { client } = await newTenant(t, api);
    const first = await savedCard(t, client);
    const second = await savedCard(t, client, PAN.mastercard);
    const third = await savedCard(t, client);
    const answer = await client.deleteCard(first.card_id);
    assert.equal(answer.status, 204);
    assert.equal(answer.body, '');
    assertError(await client.card(first.card_id), 404, 'not_found');
    assert.deepEqual((await client.cards()).body, { cards: [{ ...third, is_default: true }, second] });
    assert.equal((await client.deleteCard(second.card_id)).status, 204, 'not the default: no change');
    assert.equal((await client.card(third.card_id)).body.is_default, true);
  });

  it('409 while a live schedule charges the card; it stays; once the schedule is canceled, 204', async () => {
    const { tenant: ann, schedule } = await scheduledTenant(t, api);
    const id = schedule.schedule_id;
    assertError(
      await ann.client.deleteCard(ann.cardId),
      409,
      'conflict',
      new RegExp(`^This card pays the active recurring payment ${id}; cancel that schedule`),
    );
    assert.equal((await ann.client.card(ann.cardId)).body.status, 'active');
    assert.equal((await clientChange(ann, id, 'cancel')).status, 200);
    assert.equal((await ann.client.deleteCard(ann.cardId)).status, 204);
  });

  it('400 for an id that is not a card id; 404 for an unknown or an already deleted card', async () => {
    const { client } = await newTenant(t, api);
    await assertCardIdChecked(t, client, client.deleteCard);
  });

  it('409 feature_disabled while the integrator has saved cards off', async () => {
    const { client } = await newTenant(t, await integratorWithout(t, 'savedCards'));
    assertError(await client.deleteCard('card_unknown'), 409, 'feature_disabled');
  });

  it('another tenant’s card, of this or another integrator, is 404 and stays saved', async () => {
    const owner = await newTenant(t, api);
    const card = await savedCard(t, owner.client);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      assertError(await stranger.client.deleteCard(card.card_id), 404, 'not_found');
    }
    assert.deepEqual((await owner.client.cards()).body, { cards: [card] });
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { client } = await newTenant(t, api);
    const card = await savedCard(t, client);
    await assertClientTokenRequired(t, api, { method: 'DELETE', url: `/api/client/cards/${card.card_id}` });
    const [row] = await t.db.query<{ status: string }>('SELECT status FROM saved_cards WHERE id = $1', [
      card.card_id,
    ]);
    assert.equal(row!.status, 'active', 'still saved');
  });
});
