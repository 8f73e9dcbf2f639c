import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  type ConsoleApp,
  itChecksTheId,
  itRefusesOperatorSupport,
  itRefusesPlatformPeople,
  newestAudit,
  paidOutConsoleRun,
  startConsoleApp,
} from '../../support/operator-console.ts';

describe('POST /api/dashboard/operator/payout-runs/{payout_run_id}/cancel/ (operatorCancelPayoutRun)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('200: canceled, and its payments are in the next run; audited naming the person', async () => {
    const { run, tenant } = await paidOutConsoleRun(c);
    c.t.clock.advance(60_000);
    const answer = await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/cancel/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      [answer.body.status, answer.body.canceled_at, answer.body.may_confirm],
      ['canceled', c.t.clock.now().toISOString(), false],
    );
    assert.deepEqual(
      answer.body.items.map((p: { status: string }) => p.status),
      ['canceled'],
    );
    assert.deepEqual(await newestAudit(c.t, 'operator'), [
      { action: 'payout_run.cancel', email: 'ops-admin@rentpay.example', role: 'operator_admin' },
    ]);
    const next = await c.opsAdmin.post('/operator/payout-runs/', {});
    assert.ok(
      next.body.items.some((p: { payment_ids: string[] }) =>
        p.payment_ids.includes(tenant.payment.payment_id),
      ),
    );
    const again = await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/cancel/`);
    assert.deepEqual(again.body, answer.body);
  });

  it('409 for a confirmed run', async () => {
    const { run } = await paidOutConsoleRun(c);
    await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/confirm/`);
    assertError(await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/cancel/`), 409, 'conflict');
  });

  it('operator_support’s refusal leaves the run created', async () => {
    const { run } = await paidOutConsoleRun(c);
    assertError(
      await c.opsSupport.post(`/operator/payout-runs/${run.payout_run_id}/cancel/`),
      403,
      'forbidden',
    );
    assert.equal(
      (await c.opsAdmin.get(`/operator/payout-runs/${run.payout_run_id}/`)).body.status,
      'created',
    );
  });

  itRefusesOperatorSupport(() => c, 'POST', '/operator/payout-runs/prun_x/cancel/', 'payouts.manage');
  itChecksTheId(
    () => c,
    'payout run',
    'POST',
    (id) => `/operator/payout-runs/${id}/cancel/`,
  );
  itRefusesPlatformPeople(() => c, 'POST', '/operator/payout-runs/prun_x/cancel/');
  itRefusesWithoutASession(() => c, 'POST', '/operator/payout-runs/prun_x/cancel/');
});
