import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  type ConsoleApp,
  itChecksTheId,
  itRefusesPlatformPeople,
  paidOutConsoleRun,
  startConsoleApp,
} from '../../support/operator-console.ts';

describe('GET /api/dashboard/operator/payout-runs/{payout_run_id}/ (operatorGetPayoutRun)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('200: the run as it was made, its payouts as the Operator API shows them; after confirming, may_confirm is false', async () => {
    const { run } = await paidOutConsoleRun(c);
    const answer = await c.opsAdmin.get(`/operator/payout-runs/${run.payout_run_id}/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, run);
    const { created_by: _by, may_confirm: _may, confirm_refusal: _why, held, ...shown } = answer.body;
    assert.deepEqual(held, []);
    assert.deepEqual(shown, (await operatorRequest(c.t, 'GET', `/payouts/runs/${run.payout_run_id}`)).body);
    await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/confirm/`);
    const confirmed = await c.opsAdmin.get(`/operator/payout-runs/${run.payout_run_id}/`);
    assert.deepEqual(
      [confirmed.body.status, confirmed.body.may_confirm, confirmed.body.confirm_refusal],
      ['confirmed', false, 'The run is confirmed; only a created run can be confirmed.'],
    );
  });

  it('operator_support reads it, told it may not confirm', async () => {
    const { run } = await paidOutConsoleRun(c);
    const answer = await c.opsSupport.get(`/operator/payout-runs/${run.payout_run_id}/`);
    assert.equal(answer.status, 200);
    assert.equal(answer.body.may_confirm, false);
    assert.match(answer.body.confirm_refusal, /payouts\.manage/);
  });

  itChecksTheId(
    () => c,
    'payout run',
    'GET',
    (id) => `/operator/payout-runs/${id}/`,
  );
  itRefusesPlatformPeople(() => c, 'GET', '/operator/payout-runs/prun_x/');
  itRefusesWithoutASession(() => c, 'GET', '/operator/payout-runs/prun_x/');
});
