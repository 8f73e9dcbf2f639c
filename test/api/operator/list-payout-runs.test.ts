import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { assertOperatorTokenRequired, paidOutRun } from '../../support/operation-tests.ts';
import { startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/operator/payouts/runs (listPayoutRuns)', async () => {
  const { t, api } = await startPaymentApp();
  after(() => t.close());

  const list = () => operatorRequest(t, 'GET', '/payouts/runs');

  it('200: the runs newest first, each without its payouts', async () => {
    assert.deepEqual((await list()).body, { data: [] });
    const first = (await paidOutRun(t, api)).run;
    t.clock.advance(60_000);
    const second = (await paidOutRun(t, api)).run;
    const answer = await list();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const { items: _first, ...firstSummary } = first;
    const { items: _second, ...secondSummary } = second;
    assert.deepEqual(answer.body, { data: [secondSummary, firstSummary] });
  });

  it('shows each run’s status as it is now', async () => {
    const { run } = await paidOutRun(t, api);
    t.clock.advance(60_000);
    assert.equal((await operatorRequest(t, 'POST', `/payouts/runs/${run.payout_run_id}/cancel`)).status, 200);
    const listed = (await list()).body.data.find(
      (summary: { payout_run_id: string }) => summary.payout_run_id === run.payout_run_id,
    );
    assert.deepEqual(
      [listed.status, listed.canceled_at, listed.total],
      ['canceled', t.clock.now().toISOString(), run.total],
    );
  });

  it('401 without the operator token, or with a wrong one', async () => {
    await assertOperatorTokenRequired(t, { method: 'GET', url: '/api/operator/payouts/runs' });
  });
});
