import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { startTestApp } from '../../support/helpers.ts';
import {
  assertFieldErrors,
  assertOperatorTokenRequired,
  INTEGRATOR_KEYS,
  shownIntegrator,
  whoami,
} from '../../support/operation-tests.ts';
import { count } from '../../support/payment-client.ts';

describe('POST /api/operator/integrators (createIntegrator)', async () => {
  const t = await startTestApp();
  after(() => t.close());

  it('201: the Integrator with its server token and webhook secret, shown once; the token works', async () => {
    const answer = await operatorRequest(t, 'POST', '/integrators', {
      name: '  Homely ',
      webhook_url: 'https://homely.example/rentpay/webhooks',
      allowed_origins: ['https://app.homely.example'],
      fees: { card: { percent: '1.4', fixed: '0.20' }, apple_pay: { percent: '1.2', fixed: '0' } },
      features: { apms: false },
      rate_limit_per_second: 50,
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const { server_token, webhook_secret, ...integrator } = answer.body;
    assert.deepEqual(Object.keys(integrator).sort(), INTEGRATOR_KEYS);
    assert.match(integrator.integrator_id, /^int_[A-Za-z0-9]{22}$/);
    assert.match(server_token, /^rp_sandbox_[A-Za-z0-9]{40}$/);
    assert.match(webhook_secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    const now = t.clock.now().toISOString();
    assert.deepEqual(integrator, {
      integrator_id: integrator.integrator_id,
      name: 'Homely',
      environment: 'sandbox',
      status: 'active',
      webhook_url: 'https://homely.example/rentpay/webhooks',
      allowed_origins: ['https://app.homely.example'],
      fees: { card: { percent: '1.40', fixed: '0.20' }, apple_pay: { percent: '1.20', fixed: '0.00' } },
      business_lets: false,
      features: { apms: false, wallets: true, recurring: true, savedCards: true },
      rate_limit_per_second: 50,
      rate_limit_burst: 200,
      reminder_days_before: null,
      created_at: now,
      updated_at: now,
    });
    assert.deepEqual(
      await shownIntegrator(t, integrator.integrator_id),
      integrator,
      'never the token or the secret again',
    );
    const known = await whoami(t, server_token);
    assert.equal(known.status, 200);
    assert.equal(known.body.integrator_id, integrator.integrator_id);
  });

  it('only a name: every other setting takes its default', async () => {
    const answer = await operatorRequest(t, 'POST', '/integrators', { name: 'Plain' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(
      {
        webhook_url: answer.body.webhook_url,
        allowed_origins: answer.body.allowed_origins,
        fees: answer.body.fees,
        business_lets: answer.body.business_lets,
        features: answer.body.features,
        rate_limit_per_second: answer.body.rate_limit_per_second,
        rate_limit_burst: answer.body.rate_limit_burst,
      },
      {
        webhook_url: null,
        allowed_origins: [],
        fees: {},
        business_lets: false,
        features: { apms: true, wallets: true, recurring: true, savedCards: true },
        rate_limit_per_second: 100,
        rate_limit_burst: 200,
      },
    );
  });

  it('400 with dotted field errors for bad settings; nothing is created', async () => {
    const before = await count(t, 'integrators');
    await assertFieldErrors(
      (body) => operatorRequest(t, 'POST', '/integrators', body),
      [
        [{}, { name: ['This field is required.'] }],
        [
          {
            name: '  ',
            webhook_url: 'ftp://x.example/',
            allowed_origins: ['https://a.example/path'],
            fees: { card: { percent: '101', fixed: '0.2' } },
          },
          {
            name: ['This field may not be blank.'],
            webhook_url: ['Enter an http or https URL.'],
            'allowed_origins.0': [
              'Enter an origin: scheme, host and optional port, e.g. https://platform.example.',
            ],
            'fees.card.percent': ['Enter a percentage from 0 to 100.'],
          },
        ],
        [
          { name: 'a', rate_limit_per_second: 10, rate_limit_burst: 5 },
          { rate_limit_burst: ['Ensure this value is at least rate_limit_per_second (10).'] },
        ],
        [{ name: 'a', fees: { cash: { percent: '1', fixed: '0' } } }, { fees: ['Unknown field "cash".'] }],
      ],
    );
    assert.equal(await count(t, 'integrators'), before);
  });

  it('401 without the operator token, or with a wrong one; nothing is created', async () => {
    const before = await count(t, 'integrators');
    await assertOperatorTokenRequired(t, {
      method: 'POST',
      url: '/api/operator/integrators',
      payload: { name: 'Sneaky' },
    });
    assert.equal(await count(t, 'integrators'), before);
  });
});
