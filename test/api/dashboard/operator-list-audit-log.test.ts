import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { type ConsoleApp, itRefusesPlatformPeople, startConsoleApp } from '../../support/operator-console.ts';

interface Entry {
  audit_entry_id: string;
  scope: string;
  action: string;
  actor: { type: string; email?: string };
}

describe('GET /api/dashboard/operator/audit-log/ (operatorListAuditLog)', () => {
  let c: ConsoleApp;
  let other: { id: string };
  before(async () => {
    c = await startConsoleApp();
    other = await c.t.createIntegrator({ name: 'Other platform' });
    c.t.clock.advance(1000);
    await c.developer.post('/webhook-endpoint/rotate-secret/');
    c.t.clock.advance(1000);
    await c.opsAdmin.post(`/operator/integrators/${other.id}/suspend/`);
    c.t.clock.advance(1000);
    await c.opsAdmin.post('/operator/payout-runs/', {});
  });
  after(() => c.t.close());

  const list = async (query = '') => {
    const answer = await c.opsSupport.get(`/operator/audit-log/${query}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body as { data: Entry[]; has_more: boolean };
  };

  it('200: every chain at once, newest first, each entry with its scope and who made it', async () => {
    const page = await list('?limit=3');
    assert.deepEqual(
      page.data.map((e) => [e.scope, e.action, e.actor.email]),
      [
        ['operator', 'payout_run.create', 'ops-admin@rentpay.example'],
        [other.id, 'integrator.suspend', 'ops-admin@rentpay.example'],
        [c.integrator.id, 'webhook_secret.rotate', 'developer@platform.example'],
      ],
    );
    assert.equal(page.has_more, true);
    const all = await list('?limit=100');
    assert.ok(all.data.some((e) => e.scope === other.id && e.action === 'integrator.create'));
    assert.ok(all.data.some((e) => e.scope === 'operator' && e.action === 'dashboard_user.set_up'));
  });

  it('pages with starting_after: each entry once, in order, to the end', async () => {
    const whole = (await list('?limit=100')).data.map((e) => e.audit_entry_id);
    const paged: string[] = [];
    let cursor = '';
    for (;;) {
      const page = await list(`?limit=4${cursor}`);
      paged.push(...page.data.map((e) => e.audit_entry_id));
      if (!page.has_more) break;
      cursor = `&starting_after=${page.data.at(-1)!.audit_entry_id}`;
    }
    assert.deepEqual(paged, whole);
  });

  it('filters by integrator (or the operator’s own) and by action, and pages within the filter', async () => {
    const ofOther = await list(`?integrator_id=${other.id}`);
    assert.deepEqual(
      ofOther.data.map((e) => e.action),
      ['integrator.suspend', 'integrator.create'],
    );
    const own = await list('?integrator_id=operator');
    assert.ok(own.data.length > 0 && own.data.every((e) => e.scope === 'operator'));
    const suspensions = await list('?action=integrator.suspend');
    assert.deepEqual(
      suspensions.data.map((e) => e.scope),
      [other.id],
    );
    const both = await list(`?integrator_id=${c.integrator.id}&action=integrator.suspend`);
    assert.deepEqual(both.data, []);
    const first = await list(`?integrator_id=${other.id}&limit=1`);
    const second = await list(
      `?integrator_id=${other.id}&limit=1&starting_after=${first.data[0]!.audit_entry_id}`,
    );
    assert.deepEqual(
      second.data.map((e) => e.action),
      ['integrator.create'],
    );
  });

  it('400 for a cursor not in the filtered list, a malformed filter or limit', async () => {
    const [platformEntry] = (await list(`?integrator_id=${c.integrator.id}`)).data;
    assertError(
      await c.opsSupport.get(
        `/operator/audit-log/?integrator_id=${other.id}&starting_after=${platformEntry!.audit_entry_id}`,
      ),
      400,
      'invalid_request',
      /No audit entry .* in this list/,
    );
    assertError(
      await c.opsSupport.get('/operator/audit-log/?starting_after=aud_unknown'),
      400,
      'invalid_request',
    );
    assert.equal((await c.opsSupport.get('/operator/audit-log/?integrator_id=pay_1')).status, 400);
    assert.equal((await c.opsSupport.get('/operator/audit-log/?action=DROP%20TABLE')).status, 400);
    assert.equal((await c.opsSupport.get('/operator/audit-log/?limit=101')).status, 400);
  });

  itRefusesPlatformPeople(() => c, 'GET', '/operator/audit-log/');
  itRefusesWithoutASession(() => c, 'GET', '/operator/audit-log/');
});
