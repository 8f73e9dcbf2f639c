import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  type ConsoleApp,
  itRefusesPlatformPeople,
  type ProductionConsole,
  paidOutConsoleRun,
  startConsoleApp,
  startProductionConsole,
} from '../../support/operator-console.ts';

describe('GET /api/dashboard/operator/payees/pending/ (operatorListPendingPayees)', () => {
  let c: ConsoleApp;
  before(async () => {
    c = await startConsoleApp();
  });
  after(() => c.t.close());

  it('200 and empty in the sandbox, which pays every UK account without approval', async () => {
    await paidOutConsoleRun(c);
    const answer = await c.opsSupport.get('/operator/payees/pending/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { data: [] });
  });

  itRefusesPlatformPeople(() => c, 'GET', '/operator/payees/pending/');
  itRefusesWithoutASession(() => c, 'GET', '/operator/payees/pending/');
});

describe('operatorListPendingPayees in production', () => {
  let p: ProductionConsole;
  before(async () => {
    p = await startProductionConsole();
  });
  after(() => p.s.close());

  it('200: each account never paid, with the tenancies and rent it holds back; an approved one drops out', async () => {
    const answer = await p.opsSupport.get('/operator/payees/pending/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const integrator = p.s.api.integratorId;
    assert.deepEqual(answer.body.data, [
      {
        payee_id: '123456-12345678',
        sort_code: '123456',
        account_number: '12345678',
        account_name: 'Landlord Ltd',
        tenancies: 1,
        amount: '1200.00',
        integrator_ids: [integrator],
      },
      {
        payee_id: '123456-87654321',
        sort_code: '123456',
        account_number: '87654321',
        account_name: 'Landlord Ltd',
        tenancies: 1,
        amount: '1200.00',
        integrator_ids: [integrator],
      },
    ]);
    assert.equal((await p.first.post('/operator/payees/123456-12345678/approve/')).status, 201);
    const after = await p.opsSupport.get('/operator/payees/pending/');
    assert.deepEqual(
      after.body.data.map((payee: { payee_id: string }) => payee.payee_id),
      ['123456-87654321'],
    );
  });
});
