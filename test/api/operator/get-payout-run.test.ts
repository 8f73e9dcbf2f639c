import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { assertIdChecked, assertOperatorTokenRequired, paidOutRun } from '../../support/operation-tests.ts';
import { startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/operator/payouts/runs/{payout_run_id} (getPayoutRun)', async () => {
  const { t, api } = await startPaymentApp();
  after(() => t.close());

  const show = (id: string) => operatorRequest(t, 'GET', `/payouts/runs/${id}`);

  it('200: the run with every payout in it, as creating it answered', async () => {
    const { run, tenant, item } = await paidOutRun(t, api);
    const answer = await show(run.payout_run_id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, run);
    assert.deepEqual(
      [item.payment_reference, item.amount, item.payment_ids, item.status],
      [`PAY-${tenant.userId}`, '1200.00', [tenant.payment.payment_id], 'created'],
    );
  });

  it('shows the run as it is now: confirmed, its payouts paid', async () => {
    const { run } = await paidOutRun(t, api);
    t.clock.advance(60_000);
    assert.equal(
      (await operatorRequest(t, 'POST', `/payouts/runs/${run.payout_run_id}/confirm`)).status,
      200,
    );
    const answer = await show(run.payout_run_id);
    const now = t.clock.now().toISOString();
    assert.deepEqual([answer.body.status, answer.body.confirmed_at], ['confirmed', now]);
    assert.deepEqual(
      answer.body.items.map((payout: { status: string; paid_at: string }) => [payout.status, payout.paid_at]),
      [['paid', now]],
    );
  });

  it('400 for an id that is not a payout run id; 404 for an unknown one', async () => {
    await assertIdChecked(show, 'payout_run_id', 'prun_nope', /^No payout run prun_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one', async () => {
    const { run } = await paidOutRun(t, api);
    await assertOperatorTokenRequired(t, {
      method: 'GET',
      url: `/api/operator/payouts/runs/${run.payout_run_id}`,
    });
  });
});
