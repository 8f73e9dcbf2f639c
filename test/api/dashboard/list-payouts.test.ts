import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, operatorRequest } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { paidTenant } from '../../support/operation-tests.ts';
import { startTenantPages, type TenantPages } from '../../support/tenant-pages.ts';

describe('GET /api/dashboard/payouts/ (listPayouts)', () => {
  let s: TenantPages;
  /** The platform's payouts by tenancy, and the runs that made them. */
  const refs: string[] = [];
  const runs: string[] = [];
  let othersRef: string;
  before(async () => {
    s = await startTenantPages();
    const run = async () => {
      s.d.t.clock.advance(1000);
      const made = await operatorRequest(s.d.t, 'POST', '/payouts/runs', {});
      assert.equal(made.status, 201, JSON.stringify(made.body));
      runs.push(made.body.payout_run_id);
      return made.body.payout_run_id as string;
    };
    // Paid: its run confirmed. Created: in a run not confirmed. Canceled: its run canceled.
    refs.push(`PAY-${(await paidTenant(s.d.t, s.api)).userId}`);
    othersRef = `PAY-${(await paidTenant(s.d.t, s.otherApi)).userId}`;
    assert.equal((await operatorRequest(s.d.t, 'POST', `/payouts/runs/${await run()}/confirm`)).status, 200);
    refs.push(`PAY-${(await paidTenant(s.d.t, s.api)).userId}`);
    await run();
    refs.push(`PAY-${(await paidTenant(s.d.t, s.api)).userId}`);
    const third = await run();
    assert.equal((await operatorRequest(s.d.t, 'POST', `/payouts/runs/${third}/cancel`)).status, 200);
  });
  after(() => s.d.t.close());

  const list = (query = '', who = s.d.finance) => who.get(`/payouts/${query}`);
  const shown = async (query = '') => {
    const answer = await list(query);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.data.map((p: { payment_reference: string; status: string }) => [
      p.payment_reference,
      p.status,
    ]);
  };

  it('200: the platform’s payouts of every tenancy, newest first, with run, status, amount, payee and paid_at', async () => {
    const answer = await list();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.has_more, false);
    assert.deepEqual(
      answer.body.data.map((p: { payment_reference: string; status: string; payout_run_id: string }) => [
        p.payment_reference,
        p.status,
        p.payout_run_id,
      ]),
      [
        [refs[2], 'canceled', runs[2]],
        [refs[1], 'created', runs[1]],
        [refs[0], 'paid', runs[0]],
      ],
    );
    const paid = answer.body.data[2];
    assert.deepEqual(Object.keys(paid).sort(), [
      'amount',
      'created_at',
      'paid_at',
      'payee_name',
      'payment_reference',
      'payout_id',
      'payout_run_id',
      'status',
    ]);
    assert.match(paid.payout_id, /^po_/);
    assert.deepEqual([paid.amount, paid.payee_name], ['1200.00', 'Landlord Ltd']);
    assert.match(paid.paid_at, /^2026-03-01T/);
    assert.equal(answer.body.data[1].paid_at, null);
  });

  it('filters by payment_reference and status; pages with limit and starting_after', async () => {
    assert.deepEqual(await shown(`?payment_reference=${refs[1]}`), [[refs[1], 'created']]);
    assert.deepEqual(await shown('?status=paid'), [[refs[0], 'paid']]);
    assert.deepEqual(await shown(`?status=paid&payment_reference=${refs[1]}`), []);
    const first = await list('?limit=2');
    assert.equal(first.body.has_more, true);
    const next = await list(`?limit=2&starting_after=${first.body.data[1].payout_id}`);
    assert.deepEqual(
      next.body.data.map((p: { payment_reference: string }) => p.payment_reference),
      [refs[0]],
    );
    assert.equal(next.body.has_more, false);
  });

  it('every role of the platform may look; 403 for the operator’s staff', async () => {
    for (const person of [s.d.admin, s.d.developer, s.d.support])
      assert.equal((await list('', person)).status, 200);
    assertError(await list('', s.operatorStaff), 403, 'forbidden');
  });

  it('another platform’s payouts are never listed: its reference is a 404, its payout id a 400 cursor', async () => {
    const theirs = await list('', s.stranger);
    assert.deepEqual(
      theirs.body.data.map((p: { payment_reference: string }) => p.payment_reference),
      [othersRef],
    );
    assertError(
      await list(`?payment_reference=${othersRef}`),
      404,
      'not_found',
      /No tenancy with payment reference/,
    );
    assertError(
      await list(`?starting_after=${theirs.body.data[0].payout_id}`),
      400,
      'invalid_request',
      /starting_after: No payout/,
    );
  });

  it('400 for an unknown status or a cursor that is not a payout id', async () => {
    assert.equal((await list('?status=lost')).status, 400);
    assert.equal((await list('?starting_after=pay_123')).status, 400);
  });

  itRefusesWithoutASession(() => s.d, 'GET', '/payouts/');
});
