import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import { assertOperatorTokenRequired, paidOutRun, paidTenant } from '../../support/operation-tests.ts';
import { startPaymentApp } from '../../support/payment-client.ts';

describe('GET /api/operator/payouts/reconcile (reconcilePayouts)', async () => {
  const { t, api } = await startPaymentApp();
  after(() => t.close());

  const reconcile = () => operatorRequest(t, 'GET', '/payouts/reconcile');

  it('200 ok: every payment, payout and run checked, no mismatch', async () => {
    assert.deepEqual((await reconcile()).body, {
      ok: true,
      mismatches: [],
      checked: { payments: 0, payouts: 0, runs: 0 },
    });
    const { run } = await paidOutRun(t, api);
    assert.equal(
      (await operatorRequest(t, 'POST', `/payouts/runs/${run.payout_run_id}/confirm`)).status,
      200,
    );
    await paidTenant(t, api);
    const answer = await reconcile();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      ok: true,
      mismatches: [],
      checked: { payments: 2, payouts: 1, runs: 1 },
    });
  });

  it('a payout that no longer matches its payment: ok false, one sentence naming them', async () => {
    const { tenant, item } = await paidOutRun(t, api);
    const id = tenant.payment.payment_id;
    await t.db.query("UPDATE payments SET status = 'failed' WHERE id = $1", [id]);
    try {
      const answer = await reconcile();
      assert.equal(answer.status, 200);
      assert.equal(answer.body.ok, false);
      assert.deepEqual(answer.body.mismatches, [
        `payment ${id} is failed but payout ${item.payout_id} pays out its rent.`,
      ]);
    } finally {
      await t.db.query("UPDATE payments SET status = 'succeeded' WHERE id = $1", [id]);
    }
    assert.equal((await reconcile()).body.ok, true);
  });

  it('401 without the operator token, or with a wrong one', async () => {
    await assertOperatorTokenRequired(t, { method: 'GET', url: '/api/operator/payouts/reconcile' });
  });
});
