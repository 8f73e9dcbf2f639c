import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, operatorRequest } from '../../support/api-client.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  paidOutRun,
  shownRun,
} from '../../support/operation-tests.ts';
import { count, startPaymentApp } from '../../support/payment-client.ts';

describe('POST /api/operator/payouts/runs/{payout_run_id}/cancel (cancelPayoutRun)', async () => {
  const { t, api } = await startPaymentApp();
  after(() => t.close());

  const cancel = (id: string) => operatorRequest(t, 'POST', `/payouts/runs/${id}/cancel`);

  it('200: the run canceled, its payouts canceled; its payments are paid out by the next run', async () => {
    const { run, tenant } = await paidOutRun(t, api);
    t.clock.advance(60_000);
    const answer = await cancel(run.payout_run_id);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      ...run,
      status: 'canceled',
      canceled_at: t.clock.now().toISOString(),
      items: run.items.map((payout: object) => ({ ...payout, status: 'canceled' })),
    });
    assert.deepEqual(await shownRun(t, run.payout_run_id), answer.body);
    const next = await operatorRequest(t, 'POST', '/payouts/runs', {});
    assert.deepEqual(
      next.body.items.map((payout: { payment_ids: string[] }) => payout.payment_ids),
      [[tenant.payment.payment_id]],
    );
    assert.equal(await count(t, "events WHERE type = 'payout_paid'"), 0);
  });

  it('canceling a canceled run changes nothing', async () => {
    const { run } = await paidOutRun(t, api);
    const first = await cancel(run.payout_run_id);
    t.clock.advance(60_000);
    const again = await cancel(run.payout_run_id);
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
  });

  it('409 for a confirmed run; it stays confirmed, its payouts paid', async () => {
    const { run } = await paidOutRun(t, api);
    const confirmed = await operatorRequest(t, 'POST', `/payouts/runs/${run.payout_run_id}/confirm`);
    assert.equal(confirmed.status, 200);
    assertError(await cancel(run.payout_run_id), 409, 'conflict');
    assert.deepEqual(await shownRun(t, run.payout_run_id), confirmed.body);
  });

  it('400 for an id that is not a payout run id; 404 for an unknown one', async () => {
    await assertIdChecked(cancel, 'payout_run_id', 'prun_nope', /^No payout run prun_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one; the run stays created', async () => {
    const { run } = await paidOutRun(t, api);
    await assertOperatorTokenRequired(t, {
      method: 'POST',
      url: `/api/operator/payouts/runs/${run.payout_run_id}/cancel`,
    });
    assert.equal((await shownRun(t, run.payout_run_id)).status, 'created');
  });
});
