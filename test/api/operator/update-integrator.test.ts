import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { startTestApp } from '../../support/helpers.ts';
import {
  assertFieldErrors,
  assertIdChecked,
  assertOperatorTokenRequired,
  INTEGRATOR_KEYS,
  patchIntegrator,
  shownIntegrator,
} from '../../support/operation-tests.ts';

describe('PATCH /api/operator/integrators/{integrator_id} (updateIntegrator)', async () => {
  const t = await startTestApp();
  after(() => t.close());

  const update = (id: string, payload: unknown) => patchIntegrator(t, id, payload);
  const show = (id: string) => shownIntegrator(t, id);

  it('200: only the fields sent change; lists and fees are replaced, features merged; GET shows it', async () => {
    const { id } = await t.createIntegrator({
      name: 'Before',
      webhook_url: 'https://a.example/hooks',
      allowed_origins: ['https://a.example'],
      fees: { card: { percent: '1.45', fixed: '0.00' }, alipay: { percent: '2', fixed: '0' } },
      rate_limit_per_second: 10,
    });
    const before = await show(id);
    t.clock.advance(1000);
    const answer = await update(id, {
      name: 'After',
      allowed_origins: ['https://b.example'],
      fees: { card: { percent: '1.2', fixed: '0.20' } },
      features: { savedCards: false },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), INTEGRATOR_KEYS);
    assert.deepEqual(answer.body, {
      ...before,
      name: 'After',
      allowed_origins: ['https://b.example'],
      fees: { card: { percent: '1.20', fixed: '0.20' } },
      features: { apms: true, wallets: true, recurring: true, savedCards: false },
      updated_at: t.clock.now().toISOString(),
    });
    assert.deepEqual(await show(id), answer.body);
  });

  it('webhook_url null removes the URL; a new rate above the burst doubles the burst', async () => {
    const { id } = await t.createIntegrator({
      webhook_url: 'https://a.example/hooks',
      rate_limit_per_second: 1,
      rate_limit_burst: 1,
    });
    const answer = await update(id, { webhook_url: null, rate_limit_per_second: 10 });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      [answer.body.webhook_url, answer.body.rate_limit_per_second, answer.body.rate_limit_burst],
      [null, 10, 20],
    );
  });

  it('400 with field errors for bad settings; a refused change changes nothing', async () => {
    const { id } = await t.createIntegrator({ name: 'Unchanged', rate_limit_per_second: 10 });
    const before = await show(id);
    await assertFieldErrors(
      (body) => update(id, body),
      [
        [{ name: '' }, { name: ['This field may not be blank.'] }],
        [{ webhook_url: 'nope', name: 'Changed' }, { webhook_url: ['Enter a valid URL.'] }],
        [
          { fees: { card: { percent: '1', fixed: '0.201' } } },
          { 'fees.card.fixed': ['Enter a valid value.'] },
        ],
        [
          { rate_limit_burst: 5 },
          { rate_limit_burst: ['Ensure this value is at least rate_limit_per_second (10).'] },
        ],
      ],
    );
    assert.deepEqual(await show(id), before);
  });

  it('400 for an id that is not an integrator id; 404 for an unknown one', async () => {
    await assertIdChecked(
      (id) => update(id, { name: 'x' }),
      'integrator_id',
      'int_nope',
      /^No integrator int_nope\.$/,
    );
  });

  it('401 without the operator token, or with a wrong one; nothing changes', async () => {
    const { id } = await t.createIntegrator({ name: 'Kept' });
    await assertOperatorTokenRequired(t, {
      method: 'PATCH',
      url: `/api/operator/integrators/${id}`,
      payload: { name: 'Sneaky' },
    });
    assert.equal((await show(id)).name, 'Kept');
  });
});
