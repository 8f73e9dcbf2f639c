import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, operatorRequest, send } from '../../support/api-client.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  paidOutRun,
  shownRun,
} from '../../support/operation-tests.ts';
import { count, startPaymentApp } from '../../support/payment-client.ts';

describe('POST /api/operator/payouts/runs/{payout_run_id}/confirm (confirmPayoutRun)', async () => {
  const { t, api } = await startPaymentApp();
  after(() => t.close());

  const confirm = (id: string) => operatorRequest(t, 'POST', `/payouts/runs/${id}/confirm`);
  const payoutPaid = (payoutId: string) =>
    count(t, "events WHERE type = 'payout_paid' AND data->'payout'->>'payout_id' = $1", [payoutId]);

  it('200: the run confirmed, its payouts paid, each with payout_paid; the integrator sees the payout paid', async () => {
    const { run, item, tenant } = await paidOutRun(t, api);
    t.clock.advance(60_000);
    const answer = await confirm(run.payout_run_id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const now = t.clock.now().toISOString();
    assert.deepEqual(answer.body, {
      ...run,
      status: 'confirmed',
      confirmed_at: now,
      items: run.items.map((payout: object) => ({ ...payout, status: 'paid', paid_at: now })),
    });
    assert.deepEqual(await shownRun(t, run.payout_run_id), answer.body);
    assert.equal(await payoutPaid(item.payout_id), 1);
    const payouts = await send(t, {
      method: 'GET',
      url: `/api/third-party/payouts/?payment_reference=PAY-${tenant.userId}`,
      headers: { authorization: `Token ${api.serverToken}` },
    });
    assert.equal(payouts.status, 200, JSON.stringify(payouts.body));
    assert.deepEqual(
      payouts.body.data.map((payout: { payout_id: string; status: string }) => [
        payout.payout_id,
        payout.status,
      ]),
      [[item.payout_id, 'paid']],
    );
  });

  it('confirming a confirmed run changes nothing and sends no second payout_paid', async () => {
    const { run, item } = await paidOutRun(t, api);
    const first = await confirm(run.payout_run_id);
    t.clock.advance(60_000);
    const again = await confirm(run.payout_run_id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assert.equal(await payoutPaid(item.payout_id), 1);
  });

  it('409 for a canceled run; it stays canceled and nothing is paid', async () => {
    const { run, item } = await paidOutRun(t, api);
    const canceled = await operatorRequest(t, 'POST', `/payouts/runs/${run.payout_run_id}/cancel`);
    assert.equal(canceled.status, 200);
    assertError(await confirm(run.payout_run_id), 409, 'conflict');
    assert.deepEqual(await shownRun(t, run.payout_run_id), canceled.body);
    assert.equal(await payoutPaid(item.payout_id), 0);
  });

  it('400 for an id that is not a payout run id; 404 for an unknown one', async () => {
    await assertIdChecked(confirm, 'payout_run_id', 'prun_nope', /^No payout run prun_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; the run stays created', async () => {
    const { run } = await paidOutRun(t, api);
    await assertOperatorTokenRequired(t, {
      method: 'POST',
      url: `/api/operator/payouts/runs/${run.payout_run_id}/confirm`,
    });
    assert.equal((await shownRun(t, run.payout_run_id)).status, 'created');
  });
});
