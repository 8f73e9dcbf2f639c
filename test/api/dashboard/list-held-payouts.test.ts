import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertError, operatorRequest, send } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runJobs } from '../../support/helpers.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import { clientOf } from '../../support/payment-client.ts';
import { startTenantPages, type TenantPages } from '../../support/tenant-pages.ts';

const NOT_UK = {
  recipient_bank_sort_code: 'DEUTDEFF',
  recipient_bank_account_number: 'DE89370400440532013000',
};

describe('GET /api/dashboard/payouts/held/ (listHeldPayouts)', () => {
  let s: TenantPages;
  let disputedId: string;
  before(async () => {
    s = await startTenantPages();
    const pay = async (
      api: Api,
      userId: number,
      reference: string,
      tenancy: Record<string, unknown> = {},
    ) => {
      const email = `held-${userId}@example.com`;
      await api.onboardOk(
        userBody({
          user_id: userId,
          email,
          tenant: [tenancyBody({ payment_reference: reference, ...tenancy })],
        }),
      );
      return cardPayment(s.d.t, clientOf(s.d.t, (await api.loginOk(email)).token));
    };
    const refunded = await pay(s.api, 1, 'HELD-NEG');
    await pay(s.api, 2, 'HELD-ABROAD', NOT_UK);
    await pay(s.otherApi, 3, 'OTHER-ABROAD', NOT_UK);
    const run = await operatorRequest(s.d.t, 'POST', '/payouts/runs', {});
    assert.equal(
      (await operatorRequest(s.d.t, 'POST', `/payouts/runs/${run.body.payout_run_id}/confirm`)).status,
      200,
    );
    // Refunded in full by the operator after its rent was paid out: the landlord's next payouts make it up.
    const refund = await operatorRequest(s.d.t, 'POST', `/payments/${refunded.payment_id}/refunds`, {});
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const disputed = await pay(s.api, 4, 'HELD-DISPUTED');
    disputedId = disputed.payment_id;
    const opened = await send(s.d.t, {
      method: 'POST',
      url: `/sandbox/disputes/${disputed.processor_reference}/open`,
    });
    assert.equal(opened.status, 202, JSON.stringify(opened.body));
    await runJobs(s.d.t);
  });
  after(() => s.d.t.close());

  it('200: each tenancy whose rent is held, by reference, with the kind, the amount and why', async () => {
    const answer = await s.d.finance.get('/payouts/held/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      data: [
        {
          payment_reference: 'HELD-ABROAD',
          kind: 'payee_not_payable',
          amount: '1200.00',
          reason:
            'recipient_bank_sort_code is not a UK sort code (6 digits, e.g. 12-34-56); recipient_bank_account_number is not a UK account number (6 to 8 digits).',
        },
        {
          payment_reference: 'HELD-DISPUTED',
          kind: 'disputed',
          amount: '1200.00',
          reason: `The tenant disputed a payment (${disputedId}): their rent (1200.00) is held until the dispute ends; paid out if it is won, taken back if it is lost.`,
        },
        {
          payment_reference: 'HELD-NEG',
          kind: 'negative_carried',
          amount: '-1200.00',
          reason:
            'Refunds and lost disputes took back 1200.00 more than the rent waiting to be paid out: the difference is deducted from the tenancy’s next payouts.',
        },
      ],
    });
  });

  it('every role of the platform may look; another platform sees only its own; 403 for the operator’s staff', async () => {
    for (const person of [s.d.admin, s.d.developer, s.d.support]) {
      assert.equal((await person.get('/payouts/held/')).body.data.length, 3);
    }
    assert.deepEqual(
      (await s.stranger.get('/payouts/held/')).body.data.map(
        (h: { payment_reference: string }) => h.payment_reference,
      ),
      ['OTHER-ABROAD'],
    );
    assertError(await s.operatorStaff.get('/payouts/held/'), 403, 'forbidden');
  });

  it('400 for a query it does not take', async () => {
    assert.equal((await s.d.finance.get('/payouts/held/?as_of=2026-01-01')).status, 400);
  });

  itRefusesWithoutASession(() => s.d, 'GET', '/payouts/held/');
});
