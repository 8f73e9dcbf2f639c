import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { integrationApi } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import {
  type ConsoleApp,
  itRefusesOperatorSupport,
  itRefusesPlatformPeople,
  newestAudit,
  paidOutConsoleRun,
  startConsoleApp,
} from '../../support/operator-console.ts';
import { clientOf, count } from '../../support/payment-client.ts';

describe('POST /api/dashboard/operator/payout-runs/ (operatorCreatePayoutRun)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('201: the run, its payouts, the tenancies it held back and why, who made it; audited naming the person', async () => {
    const api = integrationApi(c.t, c.integrator);
    await api.onboardOk(
      userBody({
        user_id: 500,
        email: 'held@example.com',
        tenant: [tenancyBody({ payment_reference: 'HELD-1', recipient_bank_sort_code: 'not a code' })],
      }),
    );
    await cardPayment(c.t, clientOf(c.t, (await api.loginOk('held@example.com')).token));
    const { tenant, run } = await paidOutConsoleRun(c);
    assert.equal(run.status, 'created');
    assert.equal(run.as_of, c.t.clock.now().toISOString().slice(0, 10));
    assert.equal(run.total, '1200.00');
    assert.deepEqual(
      run.items.map((p: { payment_reference: string; amount: string }) => [p.payment_reference, p.amount]),
      [[`PAY-${tenant.userId}`, '1200.00']],
    );
    assert.deepEqual(run.held, [
      {
        integrator_id: c.integrator.id,
        payment_reference: 'HELD-1',
        amount: '1200.00',
        reason: 'recipient_bank_sort_code is not a UK sort code (6 digits, e.g. 12-34-56).',
      },
    ]);
    assert.deepEqual(run.created_by, {
      type: 'dashboard_user',
      user_id: run.created_by.user_id,
      email: 'ops-admin@rentpay.example',
      role: 'operator_admin',
      integrator_id: null,
    });
    assert.match(run.created_by.user_id, /^dus_/);
    // In the sandbox the person who made it may confirm it too.
    assert.deepEqual([run.may_confirm, run.confirm_refusal], [true, null]);
    assert.deepEqual(await newestAudit(c.t, 'operator'), [
      { action: 'payout_run.create', email: 'ops-admin@rentpay.example', role: 'operator_admin' },
    ]);
  });

  it('as_of: only what was settled by that day; nothing to pay is a run with no items', async () => {
    const answer = await c.opsAdmin.post('/operator/payout-runs/', { as_of: '2026-01-01' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual([answer.body.as_of, answer.body.items, answer.body.total], ['2026-01-01', [], '0.00']);
  });

  it('400 for an as_of that is not a date or a field it does not take; nothing is made', async () => {
    const runs = await count(c.t, 'payout_runs');
    assert.equal((await c.opsAdmin.post('/operator/payout-runs/', { as_of: '31/03/2026' })).status, 400);
    assert.equal((await c.opsAdmin.post('/operator/payout-runs/', { dry_run: true })).status, 400);
    assert.equal(await count(c.t, 'payout_runs'), runs);
  });

  it('operator_support’s refusal makes no run', async () => {
    const runs = await count(c.t, 'payout_runs');
    await c.opsSupport.post('/operator/payout-runs/', {});
    assert.equal(await count(c.t, 'payout_runs'), runs);
  });

  itRefusesOperatorSupport(() => c, 'POST', '/operator/payout-runs/', 'payouts.manage', {});
  itRefusesPlatformPeople(() => c, 'POST', '/operator/payout-runs/', {});
  itRefusesWithoutASession(() => c, 'POST', '/operator/payout-runs/', {});
});
