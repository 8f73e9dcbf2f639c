import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  type ConsoleApp,
  itRefusesPlatformPeople,
  paidOutConsoleRun,
  startConsoleApp,
} from '../../support/operator-console.ts';

describe('GET /api/dashboard/operator/payout-runs/ (operatorListPayoutRuns)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('200: newest first, without items, each with who made it and whether the viewer may confirm it', async () => {
    const { run: first } = await paidOutConsoleRun(c);
    c.t.clock.advance(1000);
    const byToken = await operatorRequest(c.t, 'POST', '/payouts/runs', {});
    assert.equal(byToken.status, 201);
    const answer = await c.opsAdmin.get('/operator/payout-runs/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      answer.body.data.map((run: { payout_run_id: string }) => run.payout_run_id),
      [byToken.body.payout_run_id, first.payout_run_id],
    );
    const [tokenRun, personRun] = answer.body.data;
    assert.equal('items' in personRun || 'held' in personRun, false);
    assert.deepEqual(tokenRun.created_by, { type: 'operator_token', via: 'api' });
    assert.equal(personRun.created_by.email, 'ops-admin@rentpay.example');
    assert.deepEqual(
      [personRun.total, personRun.status, personRun.may_confirm],
      ['1200.00', 'created', true],
    );
  });

  it('operator_support reads the runs but may confirm none, and is told why', async () => {
    const answer = await c.opsSupport.get('/operator/payout-runs/');
    assert.equal(answer.status, 200);
    assert.ok(answer.body.data.length >= 2);
    for (const run of answer.body.data) {
      assert.equal(run.may_confirm, false);
      assert.match(
        run.confirm_refusal,
        /Your role \(operator_support\) does not allow this \(payouts\.manage\)/,
      );
    }
  });

  itRefusesPlatformPeople(() => c, 'GET', '/operator/payout-runs/');
  itRefusesWithoutASession(() => c, 'GET', '/operator/payout-runs/');
});
