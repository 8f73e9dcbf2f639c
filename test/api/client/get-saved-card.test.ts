import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertCardIdChecked,
  assertClientTokenRequired,
  integratorWithout,
  SAVED_CARD_KEYS,
  savedCard,
} from '../../support/operation-tests.ts';
import { answerChallenge, cardToken, newTenant, PAN, startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/client/cards/{card_id} (getSavedCard)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  it('200: the saved card as saving answered it, from any session of the user', async () => {
    const tenant = await newTenant(t, api);
    const saved = await tenant.client.saveCard(await cardToken(t, PAN.visa));
    const answer = await (await tenant.login()).card(saved.body.card_id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), SAVED_CARD_KEYS);
    assert.deepEqual(answer.body, saved.body);
  });

  it('follows a 3DS check: requires_action, then active (Authorise) or failed (Fail) once the outcome arrives', async () => {
    const { client } = await newTenant(t, api);
    const checked = await client.saveCard(await cardToken(t, PAN.threeDsFirst));
    const refused = await client.saveCard(await cardToken(t, PAN.threeDsAlways));
    const waiting = await client.card(checked.body.card_id);
    assert.equal(waiting.body.status, 'requires_action');
    assert.deepEqual(waiting.body.next_action, checked.body.next_action);
    assert.equal((await answerChallenge(t, checked.body.next_action.url, 'authorise')).status, 202);
    assert.equal((await answerChallenge(t, refused.body.next_action.url, 'fail')).status, 202);
    await runJobs(t);
    const active = await client.card(checked.body.card_id);
    assert.deepEqual(
      [active.body.status, active.body.is_default, active.body.next_action],
      ['active', true, null],
    );
    const failed = await client.card(refused.body.card_id);
    assert.equal(failed.status, 200);
    assert.deepEqual([failed.body.status, failed.body.next_action], ['failed', null]);
  });

  it('400 for an id that is not a card id; 404 for an unknown or a deleted card', async () => {
    const { client } = await newTenant(t, api);
    await assertCardIdChecked(t, client, client.card);
  });

  it('409 feature_disabled while the integrator has saved cards off', async () => {
    const { client } = await newTenant(t, await integratorWithout(t, 'savedCards'));
    assertError(await client.card('card_unknown'), 409, 'feature_disabled');
  });

  it('another tenant’s card, of this or another integrator, is 404', async () => {
    const owner = await newTenant(t, api);
    const card = await savedCard(t, owner.client);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      assertError(await stranger.client.card(card.card_id), 404, 'not_found');
    }
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const { client } = await newTenant(t, api);
    const card = await savedCard(t, client);
    await assertClientTokenRequired(t, api, { method: 'GET', url: `/api/client/cards/${card.card_id}` });
  });
});
