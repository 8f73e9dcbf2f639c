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
  type ProductionConsole,
  paidOutConsoleRun,
  startConsoleApp,
  startProductionConsole,
} from '../../support/operator-console.ts';
import { count } from '../../support/payment-client.ts';

const payoutPaid = (c: { t: ConsoleApp['t'] }, payoutId: string) =>
  count(c.t, "events WHERE type = 'payout_paid' AND data->'payout'->>'payout_id' = $1", [payoutId]);

describe('POST /api/dashboard/operator/payout-runs/{payout_run_id}/confirm/ (operatorConfirmPayoutRun)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('200: confirmed, its payouts paid with payout_paid each; in the sandbox by the person who made it; audited', async () => {
    const { run } = await paidOutConsoleRun(c);
    c.t.clock.advance(60_000);
    const answer = await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/confirm/`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const now = c.t.clock.now().toISOString();
    assert.deepEqual([answer.body.status, answer.body.confirmed_at], ['confirmed', now]);
    assert.deepEqual(
      answer.body.items.map((p: { status: string; paid_at: string }) => [p.status, p.paid_at]),
      [['paid', now]],
    );
    assert.equal(await payoutPaid(c, answer.body.items[0].payout_id), 1);
    assert.deepEqual(await newestAudit(c.t, 'operator'), [
      { action: 'payout_run.confirm', email: 'ops-admin@rentpay.example', role: 'operator_admin' },
    ]);
    const again = await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/confirm/`);
    assert.deepEqual(again.body, answer.body);
    assert.equal(await payoutPaid(c, answer.body.items[0].payout_id), 1);
  });

  it('409 for a canceled run', async () => {
    const { run } = await paidOutConsoleRun(c);
    await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/cancel/`);
    assertError(
      await c.opsAdmin.post(`/operator/payout-runs/${run.payout_run_id}/confirm/`),
      409,
      'conflict',
    );
  });

  it('operator_support’s refusal leaves the run created', async () => {
    const { run } = await paidOutConsoleRun(c);
    assertError(
      await c.opsSupport.post(`/operator/payout-runs/${run.payout_run_id}/confirm/`),
      403,
      'forbidden',
    );
    assert.equal(
      (await c.opsAdmin.get(`/operator/payout-runs/${run.payout_run_id}/`)).body.status,
      'created',
    );
  });

  itRefusesOperatorSupport(() => c, 'POST', '/operator/payout-runs/prun_x/confirm/', 'payouts.manage');
  itChecksTheId(
    () => c,
    'payout run',
    'POST',
    (id) => `/operator/payout-runs/${id}/confirm/`,
  );
  itRefusesPlatformPeople(() => c, 'POST', '/operator/payout-runs/prun_x/confirm/');
  itRefusesWithoutASession(() => c, 'POST', '/operator/payout-runs/prun_x/confirm/');
});

describe('operatorConfirmPayoutRun in production: four eyes', () => {
  let p: ProductionConsole;
  before(async () => {
    p = await startProductionConsole();
  });
  after(() => p.s.close());

  it('the person who made a run cannot confirm it (403, and the run says why); another operator_admin can', async () => {
    for (const account of ['123456-12345678', '123456-87654321']) {
      assert.equal((await p.first.post(`/operator/payees/${account}/approve/`)).status, 201);
    }
    const made = await p.first.post('/operator/payout-runs/', {});
    assert.equal(made.status, 201, JSON.stringify(made.body));
    assert.equal(made.body.items.length, 2);
    const id = made.body.payout_run_id;
    const fourEyes =
      /You made this payout run, so you cannot confirm it.*Ask another operator_admin to confirm it\./;
    assert.equal(made.body.may_confirm, false);
    assert.match(made.body.confirm_refusal, fourEyes);

    assertError(await p.first.post(`/operator/payout-runs/${id}/confirm/`), 403, 'forbidden', fourEyes);
    const still = await p.first.get(`/operator/payout-runs/${id}/`);
    assert.deepEqual([still.body.status, still.body.may_confirm], ['created', false]);
    assert.match(still.body.confirm_refusal, fourEyes);
    assert.equal(await payoutPaid(p.s, made.body.items[0].payout_id), 0);

    const seen = await p.second.get(`/operator/payout-runs/${id}/`);
    assert.deepEqual([seen.body.may_confirm, seen.body.confirm_refusal], [true, null]);
    assert.equal(seen.body.created_by.email, 'first-admin@rentpay.example');
    const confirmed = await p.second.post(`/operator/payout-runs/${id}/confirm/`);
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.status, 'confirmed');
    assert.equal(await payoutPaid(p.s, made.body.items[0].payout_id), 1);
    assert.deepEqual(await newestAudit(p.s.t, 'operator'), [
      { action: 'payout_run.confirm', email: 'second-admin@rentpay.example', role: 'operator_admin' },
    ]);
  });
});
