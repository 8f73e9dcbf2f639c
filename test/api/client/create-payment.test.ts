import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { paymentKeys } from '../../support/fixtures.ts';
import { assertClientTokenRequired, assertFieldErrors } from '../../support/operation-tests.ts';
import {
  cardToken,
  count,
  newKey,
  newTenant,
  PAN,
  paymentEvents,
  startPaymentApp,
} from '../../support/payment-client.ts';

describe('POST /api/client/payments (createPayment)', async () => {
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const paymentsOf = (sessionId: string) => count(t, 'payments WHERE session_id = $1', [sessionId]);

  it('201: a new card payment, succeeded with its fee; GET shows it and the session is paid', async () => {
    const tenant = await newTenant(t, api);
    const answer = await tenant.client.pay({
      card_token: await cardToken(t, PAN.visa),
      expected_amount: '1217.40',
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const payment = answer.body;
    assert.deepEqual(Object.keys(payment).sort(), paymentKeys('next_action'));
    assert.match(payment.payment_id, /^pay_[A-Za-z0-9]{22}$/);
    assert.deepEqual(
      [payment.status, payment.pure_amount, payment.fee, payment.amount, payment.currency],
      ['succeeded', '1200.00', '17.40', '1217.40', 'GBP'],
    );
    assert.deepEqual(payment.card, { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 });
    assert.equal(payment.reference, `PAY-${tenant.userId}`);
    assert.equal(payment.session_id, tenant.sessionId);
    assert.equal(payment.next_action, null);
    assert.deepEqual((await tenant.client.payment(payment.payment_id)).body, payment);
    assert.equal((await tenant.client.call('GET', '/session')).body.paid.payment_id, payment.payment_id);
    assert.deepEqual(await paymentEvents(t, payment.payment_id), ['payment_success']);
  });

  it('201 failed for a declined card (not an HTTP error); 201 requires_action with next_action for 3DS', async () => {
    const declined = await (await newTenant(t, api)).client.pay({
      card_token: await cardToken(t, '4000000000009995'),
    });
    assert.equal(declined.status, 201);
    assert.deepEqual(
      [declined.body.status, declined.body.failure_code, declined.body.failure_message],
      ['failed', 'insufficient_funds', 'Your card has insufficient funds.'],
    );
    const waiting = await (await newTenant(t, api)).client.pay({
      card_token: await cardToken(t, PAN.threeDsAlways),
    });
    assert.equal(waiting.status, 201);
    assert.equal(waiting.body.status, 'requires_action');
    assert.equal(waiting.body.next_action.type, 'three_ds');
  });

  it('the same idempotency key again: 200 the same payment; another amount with it: 422; no key: 400; one payment made', async () => {
    const tenant = await newTenant(t, api);
    const token = await cardToken(t, PAN.visa);
    const key = newKey();
    const first = await tenant.client.pay({ card_token: token, idempotency_key: key });
    assert.equal(first.status, 201);
    const noKey = await tenant.client.call('POST', '/payments', {
      pure_amount: '1200.00',
      method: 'card',
      card_token: token,
    });
    assert.deepEqual(noKey.body, {
      idempotency_key: ['This field (or the Idempotency-Key header) is required.'],
    });
    const again = await tenant.client.pay({ card_token: token, idempotency_key: key });
    assert.equal(again.status, 200);
    assert.deepEqual(again.body, first.body);
    assertError(
      await tenant.client.pay({ card_token: token, idempotency_key: key, pure_amount: '1000.00' }),
      422,
      'idempotency_mismatch',
      /was used for payment pay_\w+ of 1200\.00 by card/,
    );
    assert.equal(await paymentsOf(tenant.sessionId), 1);
  });

  it('payments made at the same moment share their statements, yet each gets its own answer: a refusal, a replay, a decline or a double submit touches no other', async () => {
    const tenants = await Promise.all(Array.from({ length: 8 }, () => newTenant(t, api)));
    const [paid, replayed, declined, doubled, ...plain] = tenants;
    const visa = await cardToken(t, PAN.visa);
    assert.equal((await paid!.client.pay({ card_token: visa })).status, 201);
    const earlierKey = newKey();
    const earlier = await replayed!.client.pay({ card_token: visa, idempotency_key: earlierKey });
    assert.equal(earlier.status, 201);
    const doubleKey = newKey();
    const metrics = async () => {
      const text = (await t.app.inject('/metrics')).body;
      const value = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
      return {
        writes: value('rentpay_payment_batch_size_count\\{step="write"\\}'),
        written: value('rentpay_payment_batch_size_sum\\{step="write"\\}'),
      };
    };
    const before = await metrics();
    const answers = await Promise.all([
      paid!.client.pay({ card_token: visa }),
      replayed!.client.pay({ card_token: visa, idempotency_key: earlierKey }),
      declined!.client.pay({ card_token: await cardToken(t, '4000000000000002') }),
      doubled!.client.pay({ card_token: visa, idempotency_key: doubleKey }),
      doubled!.client.pay({ card_token: visa, idempotency_key: doubleKey }),
      ...plain.map((tenant) => tenant.client.pay({ card_token: visa })),
    ]);
    const [again, replay, decline, double1, double2, ...fine] = answers;
    assertError(again!, 409, 'conflict', /already been paid/);
    assert.equal(replay!.status, 200);
    assert.equal(replay!.body.payment_id, earlier.body.payment_id);
    assert.equal(decline!.status, 201);
    assert.equal(decline!.body.failure_code, 'card_declined');
    assert.deepEqual([double1!.status, double2!.status].sort(), [200, 201], 'one made, the other replayed');
    assert.equal(double1!.body.payment_id, double2!.body.payment_id);
    for (const [n, answer] of fine.entries()) {
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      assert.equal(answer.body.status, 'succeeded');
      assert.equal(answer.body.session_id, plain[n]!.sessionId, 'its own session');
      assert.deepEqual(await paymentEvents(t, answer.body.payment_id), ['payment_success']);
    }
    for (const tenant of tenants) assert.equal(await paymentsOf(tenant.sessionId), 1, tenant.email);
    const after = await metrics();
    // The payments of all but the paid session were written, in fewer transactions than payments.
    assert.ok(after.written - before.written >= 8, JSON.stringify({ before, after }));
    assert.ok(
      after.writes - before.writes < after.written - before.written,
      JSON.stringify({ before, after }),
    );
    assert.deepEqual(await paymentEvents(t, decline!.body.payment_id), ['payment_failed']);
  });

  it('the sandbox charges in the transaction that writes the payment: decided at once, no reconciliation job, a 3DS wait has its expiry; an issuer decline counts, a success does not', async () => {
    const outcomeBatches = async () =>
      Number(
        /^rentpay_payment_batch_size_count\{step="outcome"\} (\d+)$/m.exec(
          (await t.app.inject('/metrics')).body,
        )?.[1] ?? 0,
      );
    const jobsOf = async (paymentId: string) =>
      (
        await t.db.query<{ kind: string }>(
          "SELECT kind FROM jobs WHERE payload->>'payment_id' = $1 ORDER BY kind",
          [paymentId],
        )
      ).map((job) => job.kind);
    const declinesOf = (paymentId: string) =>
      t.db.query<{ pending: boolean }>('SELECT pending FROM card_declines WHERE source = $1', [paymentId]);
    const before = await outcomeBatches();
    const paid = await (await newTenant(t, api)).client.pay({ card_token: await cardToken(t, PAN.visa) });
    const declined = await (await newTenant(t, api)).client.pay({
      card_token: await cardToken(t, '4000000000009995'),
    });
    const waiting = await (await newTenant(t, api)).client.pay({
      card_token: await cardToken(t, PAN.threeDsAlways),
    });
    assert.deepEqual(
      [paid.body.status, declined.body.status, waiting.body.status],
      ['succeeded', 'failed', 'requires_action'],
    );
    assert.equal(await outcomeBatches(), before, 'no second transaction wrote an outcome');
    assert.deepEqual(await jobsOf(paid.body.payment_id), []);
    assert.deepEqual(await jobsOf(declined.body.payment_id), []);
    assert.deepEqual(await jobsOf(waiting.body.payment_id), ['payment.expire']);
    assert.deepEqual(await declinesOf(paid.body.payment_id), []);
    assert.deepEqual(await declinesOf(declined.body.payment_id), [{ pending: false }]);
    assert.deepEqual(
      await declinesOf(waiting.body.payment_id),
      [{ pending: true }],
      'counted while it waits',
    );
    const [charge] = await t.db.query<{ id: string }>(
      'SELECT id FROM sandbox_charges WHERE idempotency_key = $1',
      [paid.body.payment_id],
    );
    const [row] = await t.db.query<{ processor_payment_id: string; funds_available_at: Date | null }>(
      'SELECT processor_payment_id, funds_available_at FROM payments WHERE id = $1',
      [paid.body.payment_id],
    );
    assert.equal(row!.processor_payment_id, charge!.id);
    assert.ok(row!.funds_available_at, 'the sandbox settles at once');
  });

  it('400 field errors for bad input, and nothing is written', async () => {
    const tenant = await newTenant(t, api);
    const token = await cardToken(t, PAN.visa);
    await assertFieldErrors(tenant.client.pay, [
      [{}, { card_token: ['This field (or saved_card_id) is required.'] }],
      [
        { card_token: token, saved_card_id: 'card_x' },
        { saved_card_id: ['Send card_token or saved_card_id, not both.'] },
      ],
      [{ method: 'alipay', card_token: token }, { card_token: ['Not allowed with method "alipay".'] }],
      [{ method: 'apple_pay' }, { wallet_token: ['This field is required.'] }],
      [
        { card_token: token, pure_amount: '0.99' },
        { pure_amount: ['Enter an amount from 1.00 to 100000.00.'] },
      ],
      [
        { card_token: token, idempotency_key: 'sch_mine' },
        {
          idempotency_key: [
            'Keys starting with "sch_" are reserved for recurring payments; use another key.',
          ],
        },
      ],
      [
        { card_token: 'tok_sandbox_unknown' },
        { card_token: ['Unknown card token; tokenise the card again.'] },
      ],
    ]);
    const method = await tenant.client.pay({ method: 'cash', card_token: token });
    assert.equal(method.status, 400);
    assert.ok(method.body.method, JSON.stringify(method.body));
    assert.equal(await paymentsOf(tenant.sessionId), 0);
    assert.equal((await tenant.client.call('GET', '/session')).body.paid, null);
  });

  it('409: amount_changed with a quote when expected_amount is not the total; conflict once the session is paid', async () => {
    const tenant = await newTenant(t, api);
    const token = await cardToken(t, PAN.visa);
    const changed = await tenant.client.pay({ card_token: token, expected_amount: '1200.00' });
    assert.equal(changed.status, 409, JSON.stringify(changed.body));
    assert.equal(changed.body.error, 'amount_changed');
    assert.deepEqual(changed.body.quote, { pure_amount: '1200.00', fee: '17.40', amount: '1217.40' });
    assert.equal(await paymentsOf(tenant.sessionId), 0, 'nothing was charged');
    assert.equal((await tenant.client.pay({ card_token: token })).status, 201);
    assertError(
      await tenant.client.pay({ card_token: await cardToken(t, PAN.visa) }),
      409,
      'conflict',
      /already been paid/,
    );
    assert.equal(await paymentsOf(tenant.sessionId), 1);
  });

  it('a repeated key answers its payment before any other check; an unknown token is 400 even on a paid session', async () => {
    const tenant = await newTenant(t, api);
    const key = newKey();
    const first = await tenant.client.pay({ card_token: await cardToken(t, PAN.visa), idempotency_key: key });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    for (const [name, body] of [
      ['another expected total', { card_token: await cardToken(t, PAN.visa), expected_amount: '1.00' }],
      ['an unknown token', { card_token: 'tok_sandbox_unknown' }],
      ['a method not enabled', { method: 'apple_pay', wallet_token: 'tok_sandbox_unknown' }],
    ] as const) {
      const replay = await tenant.client.pay({ ...body, idempotency_key: key });
      if (name === 'a method not enabled') {
        // Another method under the same key is a different payment, whatever else is wrong with it.
        assertError(replay, 422, 'idempotency_mismatch', /use a new key/);
        continue;
      }
      assert.equal(replay.status, 200, `${name}: ${JSON.stringify(replay.body)}`);
      assert.deepEqual(replay.body, first.body, name);
    }
    const unknown = await tenant.client.pay({ card_token: 'tok_sandbox_unknown' });
    assert.equal(unknown.status, 400, JSON.stringify(unknown.body));
    assert.deepEqual(Object.keys(unknown.body), ['card_token']);
    assert.equal(await paymentsOf(tenant.sessionId), 1);
  });

  it('another tenant’s saved card, of this or another integrator, cannot pay: 400 Unknown saved card', async () => {
    const owner = await newTenant(t, api);
    const saved = await owner.client.saveCard(await cardToken(t, PAN.visa));
    assert.equal(saved.status, 201);
    for (const stranger of [await newTenant(t, api), await newTenant(t, otherApi)]) {
      const answer = await stranger.client.pay({ saved_card_id: saved.body.card_id });
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, { saved_card_id: ['Unknown saved card.'] });
      assert.equal(await paymentsOf(stranger.sessionId), 0);
    }
  });

  it('401 without a token, and once the token has lapsed', async () => {
    await assertClientTokenRequired(t, api, {
      method: 'POST',
      url: '/api/client/payments',
      payload: { pure_amount: '1200.00', method: 'card', card_token: 'tok_x', idempotency_key: 'k-1' },
    });
  });
});
