import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { integrationApi, UNLIMITED } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import {
  type ConsoleApp,
  itRefusesPlatformPeople,
  signInEveryoneAgain,
  startConsoleApp,
} from '../../support/operator-console.ts';
import { cardToken, newTenant } from '../../support/payment-client.ts';

describe('GET /api/dashboard/operator/integrators/ (operatorListIntegrators)', () => {
  let c: ConsoleApp;
  let busy: { id: string; token: string };
  let sinceBacklog: Date;
  before(async () => {
    c = await startConsoleApp({ config: { allowPrivateWebhookHosts: true } });
    const { t } = c;
    busy = await t.createIntegrator({
      ...UNLIMITED,
      name: 'Busy platform',
      webhook_url: 'http://127.0.0.1:9/hooks',
    });
    const api = integrationApi(t, busy);
    // Older than 30 days by the time the list is read: not counted.
    await cardPayment(t, (await newTenant(t, api)).client);
    t.clock.advance(31 * 86_400_000);
    await signInEveryoneAgain(c);
    sinceBacklog = t.clock.now();
    await cardPayment(t, (await newTenant(t, api)).client);
    await cardPayment(t, (await newTenant(t, api)).client);
    const declined = await (await newTenant(t, api)).client.pay({
      card_token: await cardToken(t, '4000000000000002'),
      idempotency_key: 'declined-once',
    });
    assert.equal(declined.body.status, 'failed', JSON.stringify(declined.body));
  });
  after(() => c.t.close());

  it('200: every integrator with its status, its payments of the last 30 days and its webhook backlog', async () => {
    const { t } = c;
    t.clock.advance(90_000);
    await c.opsAdmin.post(`/operator/integrators/${c.integrator.id}/suspend/`);

    const answer = await c.opsSupport.get('/operator/integrators/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const byId = new Map(answer.body.data.map((row: { integrator_id: string }) => [row.integrator_id, row]));
    assert.deepEqual(
      answer.body.data.map((row: { integrator_id: string }) => row.integrator_id),
      [c.integrator.id, busy.id],
      'oldest first',
    );
    const quiet = byId.get(c.integrator.id) as Record<string, unknown>;
    assert.equal(quiet.status, 'suspended');
    assert.deepEqual(quiet.payments, { succeeded: 0, amount: '0.00', failed: 0, failure_rate: null });
    assert.deepEqual(quiet.webhooks, { pending: 0, oldest_pending_age_seconds: null, failed: 0 });
    const row = byId.get(busy.id) as Record<string, unknown>;
    assert.equal(row.name, 'Busy platform');
    assert.equal(row.status, 'active');
    assert.equal(row.environment, 'sandbox');
    assert.deepEqual(row.payments, {
      succeeded: 2,
      amount: '2400.00',
      failed: 1,
      failure_rate: 0.3333,
    });
    const webhooks = row.webhooks as { pending: number; oldest_pending_age_seconds: number; failed: number };
    const [pending] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM webhook_deliveries WHERE integrator_id = $1 AND status = 'pending'",
      [busy.id],
    );
    assert.ok(pending!.n >= 3, `${pending!.n} deliveries pending`);
    assert.equal(webhooks.pending, pending!.n);
    // The oldest waits since before the 31 days passed; the period's own since `sinceBacklog`.
    assert.ok(
      webhooks.oldest_pending_age_seconds >= (t.clock.now().getTime() - sinceBacklog.getTime()) / 1000,
    );
    assert.equal(webhooks.failed, 0);
  });

  it('answers from a fixed number of queries, whatever the number of integrators', async () => {
    const { t } = c;
    const statements: string[] = [];
    const query = t.db.query.bind(t.db);
    const counting = (async (text: string, ...rest: unknown[]) => {
      statements.push(text);
      return (query as (...args: unknown[]) => Promise<unknown[]>)(text, ...rest);
    }) as typeof t.db.query;
    const countFor = async () => {
      statements.length = 0;
      t.db.query = counting;
      try {
        assert.equal((await c.opsAdmin.get('/operator/integrators/')).status, 200);
      } finally {
        t.db.query = query;
      }
      return statements.length;
    };
    const before = await countFor();
    for (let i = 0; i < 5; i++) await t.createIntegrator({ name: `More ${i}` });
    assert.equal(await countFor(), before);
  });

  itRefusesPlatformPeople(() => c, 'GET', '/operator/integrators/');
  itRefusesWithoutASession(() => c, 'GET', '/operator/integrators/');
});
