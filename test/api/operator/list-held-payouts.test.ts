import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, operatorRequest } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { assertOperatorTokenRequired, cardPayment, paidTenant } from '../../support/operation-tests.ts';
import { clientOf, startPaymentApp } from '../../support/payment-client.ts';

const NOT_UK =
  'recipient_bank_sort_code is not a UK sort code (6 digits, e.g. 12-34-56); recipient_bank_account_number is not a UK account number (6 to 8 digits).';

describe('GET /api/operator/payouts/held (listHeldPayouts)', async () => {
  // The clock starts at 2026-03-01T09:00Z.
  const { t, api } = await startPaymentApp();
  after(() => t.close());
  await api.onboardOk(
    userBody({
      user_id: 7001,
      email: 'abroad@example.com',
      tenant: [
        tenancyBody({
          payment_reference: 'HELD-ABROAD',
          recipient_bank_sort_code: 'DEUTDEFF',
          recipient_bank_account_number: 'DE89370400440532013000',
        }),
      ],
    }),
  );

  const held = (query = '') => operatorRequest(t, 'GET', `/payouts/held${query}`);

  it('200: rent a run would pay but holds back (not a UK account), with its integrator, amount and reason', async () => {
    assert.deepEqual((await held()).body, { data: [] }, 'nothing paid yet');
    await cardPayment(t, clientOf(t, (await api.loginOk('abroad@example.com')).token));
    const uk = await paidTenant(t, api);
    const answer = await held();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      data: [
        {
          integrator_id: api.integratorId,
          payment_reference: 'HELD-ABROAD',
          amount: '1200.00',
          reason: NOT_UK,
        },
      ],
    });
    const run = await operatorRequest(t, 'POST', '/payouts/runs', {});
    assert.deepEqual(
      run.body.items.map((payout: { payment_reference: string }) => payout.payment_reference),
      [`PAY-${uk.userId}`],
      'the run pays the UK account only',
    );
    assert.deepEqual(
      (await held()).body.data.map((h: { amount: string }) => h.amount),
      ['1200.00'],
      'still held',
    );
  });

  it('as_of: only rent of payments made on or before that day', async () => {
    assert.deepEqual((await held('?as_of=2026-02-28')).body, { data: [] });
    assert.equal((await held('?as_of=2026-03-01')).body.data.length, 1);
  });

  it('400 for an as_of that is not a date', async () => {
    assertError(
      await held('?as_of=2026-02-30'),
      400,
      'invalid_request',
      /^Invalid querystring: as_of: Date has wrong format or is not a real date\. Use YYYY-MM-DD\.$/,
    );
  });

  it('401 without the operator token, or with a wrong one', async () => {
    await assertOperatorTokenRequired(t, { method: 'GET', url: '/api/operator/payouts/held' });
  });
});
