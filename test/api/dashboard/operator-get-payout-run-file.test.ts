import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { send } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { OPERATOR_TOKEN } from '../../support/helpers.ts';
import {
  type ConsoleApp,
  itChecksTheId,
  itRefusesPlatformPeople,
  paidOutConsoleRun,
  startConsoleApp,
} from '../../support/operator-console.ts';

describe('GET /api/dashboard/operator/payout-runs/{payout_run_id}/file (operatorGetPayoutRunFile)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('200: the bank file as a CSV attachment, byte for byte the Operator API’s', async () => {
    const { run, tenant } = await paidOutConsoleRun(c);
    const answer = await c.opsSupport.get(`/operator/payout-runs/${run.payout_run_id}/file`);
    assert.equal(answer.status, 200, String(answer.body));
    assert.equal(answer.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(answer.headers['content-disposition'], `attachment; filename="${run.payout_run_id}.csv"`);
    assert.equal(answer.headers['cache-control'], 'no-store');
    assert.equal(
      answer.body,
      '"sort_code","account_number","account_name","amount","reference"\r\n' +
        `"123456","12345678","LANDLORD LTD","1200.00","PAY-${tenant.userId}"\r\n`,
    );
    const operators = await send(c.t, {
      method: 'GET',
      url: `/api/operator/payouts/runs/${run.payout_run_id}/file`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    assert.equal(answer.body, operators.body);
  });

  itChecksTheId(
    () => c,
    'payout run',
    'GET',
    (id) => `/operator/payout-runs/${id}/file`,
  );
  itRefusesPlatformPeople(() => c, 'GET', '/operator/payout-runs/prun_x/file');
  itRefusesWithoutASession(() => c, 'GET', '/operator/payout-runs/prun_x/file');
});
