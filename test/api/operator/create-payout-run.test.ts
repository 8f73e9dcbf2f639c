import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { operatorRequest } from '../../support/api-client.ts';
import {
  assertFieldErrors,
  assertOperatorTokenRequired,
  paidTenant,
  shownRun,
} from '../../support/operation-tests.ts';
import { count, startPaymentApp } from '../../support/payment-client.ts';

const RUN_KEYS = [
  'as_of',
  'canceled_at',
  'confirmed_at',
  'created_at',
  'items',
  'payout_run_id',
  'status',
  'total',
];

describe('POST /api/operator/payouts/runs (createPayoutRun)', async () => {
  // The clock starts at 2026-03-01T09:00Z; a £1200.00 card payment costs £1217.40.
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const create = (body?: object) => operatorRequest(t, 'POST', '/payouts/runs', body);

  it('201: one payout per tenancy of every integrator, its rent (not the fee) to the landlord’s account', async () => {
    const ann = await paidTenant(t, api);
    const bob = await paidTenant(t, otherApi);
    const answer = await create({});
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const run = answer.body;
    assert.deepEqual(Object.keys(run).sort(), RUN_KEYS);
    assert.match(run.payout_run_id, /^prun_[A-Za-z0-9]{22}$/);
    assert.deepEqual(
      [run.status, run.as_of, run.total, run.created_at, run.confirmed_at, run.canceled_at],
      ['created', '2026-03-01', '2400.00', t.clock.now().toISOString(), null, null],
    );
    assert.deepEqual(
      run.items.map((payout: Record<string, unknown>) => ({ ...payout, payout_id: undefined })),
      [ann, bob].map((tenant) => ({
        payout_id: undefined,
        payout_run_id: run.payout_run_id,
        status: 'created',
        payment_reference: `PAY-${tenant.userId}`,
        sort_code: '123456',
        account_number: '12345678',
        account_name: 'Landlord Ltd',
        amount: '1200.00',
        payment_ids: [tenant.payment.payment_id],
        paid_at: null,
      })),
    );
    assert.deepEqual(await shownRun(t, run.payout_run_id), run);
  });

  it('nothing is paid out twice: the next run (no body) has no payouts and a total of 0.00', async () => {
    await paidTenant(t, api);
    assert.equal((await create()).body.items.length, 1);
    const empty = await create();
    assert.equal(empty.status, 201, JSON.stringify(empty.body));
    assert.deepEqual([empty.body.items, empty.body.total], [[], '0.00']);
  });

  it('as_of: payments made after that day wait for a later run', async () => {
    const ann = await paidTenant(t, api);
    const early = await create({ as_of: '2026-02-28' });
    assert.equal(early.status, 201);
    assert.deepEqual([early.body.as_of, early.body.items], ['2026-02-28', []]);
    const today = await create({ as_of: '2026-03-01' });
    assert.deepEqual(
      today.body.items.map((payout: { payment_ids: string[] }) => payout.payment_ids),
      [[ann.payment.payment_id]],
    );
  });

  it('400 for a date that is not one or an unknown field; no run is made', async () => {
    const before = await count(t, 'payout_runs');
    await assertFieldErrors(create, [
      [{ as_of: '2026-02-30' }, { as_of: ['Date has wrong format or is not a real date. Use YYYY-MM-DD.'] }],
      [{ as_of: 20260301 }, { as_of: ['Not a valid string: send the value in quotes.'] }],
      [{ asof: '2026-03-01' }, { non_field_errors: ['Unknown field "asof".'] }],
    ]);
    assert.equal(await count(t, 'payout_runs'), before);
  });

  it('401 without the operator token, or with a wrong one; no run is made', async () => {
    const before = await count(t, 'payout_runs');
    await assertOperatorTokenRequired(t, { method: 'POST', url: '/api/operator/payouts/runs', payload: {} });
    assert.equal(await count(t, 'payout_runs'), before);
  });
});
