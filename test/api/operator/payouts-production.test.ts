/**
 * Payouts in production (Stripe, through its local stand-in): a landlord account paid for the first time is held
 * until the operator approves it (`rentpay payouts approve`), then paid; an approved account is not held again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { operatorCliEnv, operatorRequest } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runCli, runJobs } from '../../support/helpers.ts';
import { clientOf } from '../../support/payment-client.ts';
import { confirmationToken, type StripeApp, startStripeApp } from '../../support/stripe-app.ts';

describe('payouts in production', () => {
  let s: StripeApp;
  let env: Record<string, string>;
  const operator = (method: 'GET' | 'POST', url: string, payload?: object) =>
    operatorRequest(s.t, method, url, payload);
  const pay = async (email: string) => {
    const session = await s.api.loginOk(email);
    const paid = await clientOf(s.t, session.token).pay({
      confirmation_token: confirmationToken(s.stand, 'pm_card_visa'),
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    assert.equal(paid.body.status, 'succeeded');
  };

  before(async () => {
    s = await startStripeApp({ serviceEnv: 'production' });
    await s.api.onboardOk([
      userBody({
        user_id: 1,
        email: 'a@example.com',
        tenant: [tenancyBody({ payment_reference: 'PROD-A' })],
      }),
      userBody({
        user_id: 2,
        email: 'b@example.com',
        tenant: [tenancyBody({ payment_reference: 'PROD-B', recipient_bank_account_number: '87654321' })],
      }),
    ]);
    await pay('a@example.com');
    await pay('b@example.com');
    // Stripe makes the funds available two days after the charge; the settlement jobs read when.
    await runJobs(s.t);
    s.t.clock.advance(2 * 86_400_000);
    env = await operatorCliEnv(s.t);
  });
  after(() => s?.close());

  it('holds a new account until approved, then pays it; the other stays held', async () => {
    const held = await operator('GET', '/payouts/held');
    assert.deepEqual(
      held.body.data.map((h: { payment_reference: string; reason: string }) => [
        h.payment_reference,
        h.reason,
      ]),
      [
        [
          'PROD-A',
          'The account 123456 12345678 has not been paid before: approve it first (rentpay payouts approve).',
        ],
        [
          'PROD-B',
          'The account 123456 87654321 has not been paid before: approve it first (rentpay payouts approve).',
        ],
      ],
    );
    const none = await operator('POST', '/payouts/runs', {});
    assert.deepEqual(none.body.items, []);

    const approved = await runCli(
      ['payouts', 'approve', '--sort-code', '12-34-56', '--account-number', '12345678'],
      env,
    );
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(approved.stdout.trim(), 'Approved 123456 12345678 for payouts.');
    const refused = await runCli(['payouts', 'approve', '--sort-code', 'X', '--account-number', '1'], env);
    assert.equal(refused.code, 2);
    assert.match(refused.stderr, /not a UK sort code/);

    const run = await operator('POST', '/payouts/runs', {});
    assert.deepEqual(
      run.body.items.map((p: { payment_reference: string; amount: string }) => [
        p.payment_reference,
        p.amount,
      ]),
      [['PROD-A', '1200.00']],
    );
    const still = await operator('GET', '/payouts/held');
    assert.deepEqual(
      still.body.data.map((h: { payment_reference: string }) => h.payment_reference),
      ['PROD-B'],
    );
  });
});
