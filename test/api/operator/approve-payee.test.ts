import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, operatorRequest } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runJobs } from '../../support/helpers.ts';
import { assertFieldErrors, assertOperatorTokenRequired } from '../../support/operation-tests.ts';
import { clientOf, count } from '../../support/payment-client.ts';
import { confirmationToken, startStripeApp } from '../../support/stripe-app.ts';

const DAY = 86_400_000;

/** Approval matters in production only (the sandbox pays every UK account): a production app on Stripe's stand-in. */
describe('POST /api/operator/payouts/approvals (approvePayee)', async () => {
  const s = await startStripeApp({ serviceEnv: 'production' });
  after(() => s.close());

  const approve = (body: object) => operatorRequest(s.t, 'POST', '/payouts/approvals', body);
  const heldReferences = async () =>
    (await operatorRequest(s.t, 'GET', '/payouts/held')).body.data.map(
      (held: { payment_reference: string }) => held.payment_reference,
    );

  /** A tenancy paid to this landlord account, its funds available two days later (as Stripe makes them). */
  async function paidTo(reference: string, accountNumber: string) {
    const email = `${reference.toLowerCase()}@example.com`;
    await s.api.onboardOk(
      userBody({
        user_id: Number(accountNumber.slice(-4)),
        email,
        tenant: [tenancyBody({ payment_reference: reference, recipient_bank_account_number: accountNumber })],
      }),
    );
    const paid = await clientOf(s.t, (await s.api.loginOk(email)).token).pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
    });
    assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
    await runJobs(s.t);
    s.t.clock.advance(2 * DAY);
  }

  it('201: the account as runs compare it; its held rent is paid by the next run, other accounts stay held', async () => {
    await paidTo('APPROVE-A', '11112222');
    await paidTo('APPROVE-B', '33334444');
    assert.deepEqual(await heldReferences(), ['APPROVE-A', 'APPROVE-B']);
    const answer = await approve({ sort_code: '12-34-56', account_number: '1111 2222' });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { sort_code: '123456', account_number: '11112222' });
    assert.deepEqual(await heldReferences(), ['APPROVE-B']);
    const run = await operatorRequest(s.t, 'POST', '/payouts/runs', {});
    assert.deepEqual(
      run.body.items.map((payout: { payment_reference: string; amount: string }) => [
        payout.payment_reference,
        payout.amount,
      ]),
      [['APPROVE-A', '1200.00']],
    );
    const again = await approve({ sort_code: '123456', account_number: '11112222' });
    assert.deepEqual([again.status, again.body], [201, answer.body], 'approving again changes nothing');
  });

  it('400 for an account that is not a UK one, a missing or an unknown field; nothing is approved', async () => {
    const before = await heldReferences();
    const approvals = await count(s.t, 'payee_approvals');
    assertError(
      await approve({ sort_code: 'DEUTDEFF', account_number: '33334444' }),
      400,
      'invalid_request',
      /^recipient_bank_sort_code is not a UK sort code \(6 digits, e\.g\. 12-34-56\)\.$/,
    );
    await assertFieldErrors(approve, [
      [{ sort_code: '12-34-56' }, { account_number: ['This field is required.'] }],
      [
        { sort_code: '12-34-56', account_number: '33334444', name: 'x' },
        { non_field_errors: ['Unknown field "name".'] },
      ],
    ]);
    assert.deepEqual(await heldReferences(), before);
    assert.equal(await count(s.t, 'payee_approvals'), approvals);
  });

  it('401 without the operator token, or with a wrong one; the account stays held', async () => {
    await assertOperatorTokenRequired(s.t, {
      method: 'POST',
      url: '/api/operator/payouts/approvals',
      payload: { sort_code: '12-34-56', account_number: '33334444' },
    });
    assert.deepEqual(await heldReferences(), ['APPROVE-B']);
  });
});
