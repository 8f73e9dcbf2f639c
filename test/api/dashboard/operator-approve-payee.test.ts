import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  type ConsoleApp,
  itRefusesOperatorSupport,
  itRefusesPlatformPeople,
  newestAudit,
  type ProductionConsole,
  startConsoleApp,
  startProductionConsole,
} from '../../support/operator-console.ts';
import { count } from '../../support/payment-client.ts';

describe('POST /api/dashboard/operator/payees/{payee_id}/approve/ (operatorApprovePayee)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('400 for what is not a sort code and an 8-digit account number; nothing is approved', async () => {
    for (const payee of ['12345612345678', '12-34-56-12345678', '123456-1234567', 'abcdef-12345678']) {
      assert.equal((await c.opsAdmin.post(`/operator/payees/${payee}/approve/`)).status, 400, payee);
    }
    assert.equal(await count(c.t, 'payee_approvals'), 0);
  });

  it('operator_support’s refusal approves nothing', async () => {
    assertError(await c.opsSupport.post('/operator/payees/123456-12345678/approve/'), 403, 'forbidden');
    assert.equal(await count(c.t, 'payee_approvals'), 0);
  });

  itRefusesOperatorSupport(() => c, 'POST', '/operator/payees/123456-12345678/approve/', 'payouts.manage');
  itRefusesPlatformPeople(() => c, 'POST', '/operator/payees/123456-12345678/approve/');
  itRefusesWithoutASession(() => c, 'POST', '/operator/payees/123456-12345678/approve/');
});

describe('operatorApprovePayee in production', () => {
  let p: ProductionConsole;
  before(async () => {
    p = await startProductionConsole();
  });
  after(() => p.s.close());

  it('201: the account is paid by the next run, the other still held; audited naming the person, once', async () => {
    const answer = await p.first.post('/operator/payees/123456-12345678/approve/');
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { sort_code: '123456', account_number: '12345678' });
    assert.deepEqual(await newestAudit(p.s.t, 'operator'), [
      { action: 'payee.approve', email: 'first-admin@rentpay.example', role: 'operator_admin' },
    ]);
    const again = await p.second.post('/operator/payees/123456-12345678/approve/');
    assert.equal(again.status, 201);
    assert.equal((await newestAudit(p.s.t, 'operator'))[0]!.email, 'first-admin@rentpay.example');

    const run = await p.second.post('/operator/payout-runs/', {});
    assert.deepEqual(
      run.body.items.map((payout: { payment_reference: string }) => payout.payment_reference),
      ['PROD-A'],
    );
    assert.deepEqual(
      run.body.held.map((held: { payment_reference: string; reason: string }) => [
        held.payment_reference,
        held.reason,
      ]),
      [
        [
          'PROD-B',
          'The account 123456 87654321 has not been paid before: approve it first (rentpay payouts approve).',
        ],
      ],
    );
  });
});
