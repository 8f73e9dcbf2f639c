import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { buildApp } from '../../src/app.ts';
import { paymentNotificationJob } from '../../src/processors/jobs/payment-notification.ts';
import { type ProcessorOutcome, paymentStatusFor } from '../../src/processors/processor.ts';
import { cardBrand, luhnValid, TEST_CARDS } from '../../src/processors/sandbox/cards.ts';
import { SandboxProcessor } from '../../src/processors/sandbox/processor.ts';
import { createTestDatabase, startTestApp, type TestApp, testConfig } from '../support/helpers.ts';

async function answer(t: TestApp, options: InjectOptions) {
  const response = await t.app.inject(options);
  return { status: response.statusCode, body: response.json() };
}

function tokenise(t: TestApp, card: Record<string, unknown>) {
  return answer(t, {
    method: 'POST',
    url: '/sandbox/tokens',
    payload: { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2030, cvc: '123', ...card },
  });
}

let keys = 0;
const charge = (processor: SandboxProcessor, paymentToken: string, idempotencyKey = `pay_test_${++keys}`) =>
  processor.authorise({
    idempotencyKey,
    userId: 'usr_test',
    metadata: {},
    amountPence: 10_000,
    currency: 'GBP',
    method: 'card',
    paymentToken,
    reference: 'R',
  });

describe('sandbox processor', () => {
  let t: TestApp;
  let processor: SandboxProcessor;
  const tokenFor = async (number: string) => {
    const response = await tokenise(t, { number });
    assert.equal(response.status, 201, JSON.stringify(response.body));
    return response.body.token as string;
  };

  before(async () => {
    // The fake clock starts on 2026-03-01.
    t = await startTestApp();
    assert.ok(t.app.ctx.processor instanceof SandboxProcessor);
    processor = t.app.ctx.processor;
  });
  after(() => t.close());

  it('tokenises a valid card: a token, brand, last4 and expiry; the row holds no number and no CVC', async () => {
    const response = await tokenise(t, { number: '5555-5555-5555-4444', cvc: '4321' });
    assert.equal(response.status, 201);
    assert.match(response.body.token, /^tok_sandbox_[A-Za-z0-9]{24}$/);
    assert.deepEqual(response.body.card, {
      brand: 'mastercard',
      last4: '4444',
      exp_month: 12,
      exp_year: 2030,
    });
    const [row] = await t.db.query<{ row: string }>(
      'SELECT r::text AS row FROM sandbox_tokens r WHERE id = $1',
      [response.body.token],
    );
    assert.ok(row);
    assert.ok(!row.row.includes('5555555555554444') && !row.row.includes('4321'), row.row);
  });

  it('refuses a number failing Luhn, an expired card and a malformed CVC with field errors', async () => {
    const luhn = await tokenise(t, { number: '4242424242424241' });
    assert.equal(luhn.status, 400);
    assert.deepEqual(Object.keys(luhn.body), ['number']);
    const expired = await tokenise(t, { exp_month: 2, exp_year: 2026 });
    assert.equal(expired.status, 400);
    assert.deepEqual(Object.keys(expired.body), ['exp_year']);
    assert.equal(
      (await tokenise(t, { exp_month: 3, exp_year: 2026 })).status,
      201,
      'this month is still valid',
    );
    const cvc = await tokenise(t, { cvc: '12' });
    assert.equal(cvc.status, 400);
    assert.deepEqual(Object.keys(cvc.body), ['cvc']);
    const shape = await tokenise(t, { exp_month: 13, cvc: 123 });
    assert.equal(shape.status, 400);
    assert.ok(shape.body.exp_month && shape.body.cvc);
  });

  it('every sandbox test card passes Luhn and has its brand', () => {
    for (const number of Object.keys(TEST_CARDS)) assert.ok(luhnValid(number), number);
    assert.equal(cardBrand('4242424242424242'), 'visa');
    assert.equal(cardBrand('5555555555554444'), 'mastercard');
    assert.equal(cardBrand('2223003122003222'), 'mastercard');
  });

  it('the same idempotency key answers the first charge again and charges nothing more', async () => {
    const token = await tokenFor('4242424242424242');
    const first = await charge(processor, token, 'pay_same');
    const second = await charge(processor, token, 'pay_same');
    assert.equal(first.status, 'authorised');
    assert.deepEqual(second, first);
    const [row] = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM sandbox_charges WHERE idempotency_key = 'pay_same'",
    );
    assert.equal(row!.n, 1);
  });

  it('declines answer refused with their code', async () => {
    const expected: Record<string, string> = {
      '4000000000000002': 'card_declined',
      '4000000000009995': 'insufficient_funds',
      '4000000000000069': 'expired_card',
      '4000000000000127': 'incorrect_cvc',
    };
    for (const [number, code] of Object.entries(expected)) {
      const outcome = await charge(processor, await tokenFor(number));
      assert.equal(outcome.status, 'refused');
      assert.equal(outcome.status === 'refused' && outcome.code, code);
    }
    const unknown = await charge(processor, 'tok_sandbox_unknown');
    assert.equal(unknown.status === 'refused' && unknown.code, 'invalid_token');
  });

  it('4000 0000 0000 3220: 3DS on the first payment only; once authenticated, later payments succeed', async () => {
    const token = await tokenFor('4000000000003220');
    const first = await charge(processor, token);
    assert.equal(first.status, 'action_required');
    if (first.status !== 'action_required') return;
    assert.equal(first.action.type, 'three_ds');
    assert.equal(first.action.url, `${t.config.publicUrl}/sandbox/3ds/${first.processorPaymentId}`);
    assert.equal(await processor.answerChallenge(first.processorPaymentId, 'three_ds', true), true);
    assert.equal((await processor.complete(first.processorPaymentId)).status, 'authorised');
    assert.equal((await charge(processor, token)).status, 'authorised');
  });

  it('4000 0027 6000 3184: 3DS on every payment; off-session fails with authentication_required', async () => {
    const token = await tokenFor('4000002760003184');
    const first = await charge(processor, token);
    assert.equal(first.status, 'action_required');
    if (first.status === 'action_required')
      await processor.answerChallenge(first.processorPaymentId, 'three_ds', true);
    assert.equal((await charge(processor, token)).status, 'action_required');
    const offSession = await processor.chargeOffSession({
      idempotencyKey: 'pay_off_session',
      userId: 'usr_test',
      metadata: {},
      amountPence: 10_000,
      currency: 'GBP',
      method: 'card',
      paymentToken: token,
      reference: 'R',
    });
    assert.equal(offSession.status === 'refused' && offSession.code, 'authentication_required');
  });

  it('a 3DS decision is a notification job the engine can parse; a second decision is refused', async () => {
    const outcome = await charge(processor, await tokenFor('4000002760003184'));
    assert.equal(outcome.status, 'action_required');
    const chargeId = outcome.processorPaymentId!;
    const failed = await answer(t, { method: 'POST', url: `/sandbox/3ds/${chargeId}/fail` });
    assert.equal(failed.status, 202);
    const jobs = await t.db.query<{ payload: { processor: string; body: unknown } }>(
      `SELECT payload FROM jobs WHERE kind = $1 AND payload->'body'->>'charge_id' = $2`,
      [paymentNotificationJob.kind, chargeId],
    );
    assert.equal(jobs.length, 1);
    assert.equal(jobs[0]!.payload.processor, 'sandbox');
    const parsed = processor.parseNotification(jobs[0]!.payload.body);
    assert.equal(parsed?.processorPaymentId, chargeId);
    assert.ok(parsed && 'outcome' in parsed, 'a payment outcome');
    assert.equal(parsed.outcome.status === 'refused' && parsed.outcome.code, 'authentication_failed');
    assert.equal(processor.parseNotification({ type: 'something.else' }), undefined);
    const again = await answer(t, { method: 'POST', url: `/sandbox/3ds/${chargeId}/authorise` });
    assert.equal(again.status, 409);
    assert.equal(
      (await answer(t, { method: 'POST', url: '/sandbox/3ds/ch_sandbox_nope/authorise' })).status,
      409,
    );
  });

  it('refunds up to the charged amount, in parts', async () => {
    const outcome = await charge(processor, await tokenFor('4242424242424242'));
    const id = outcome.processorPaymentId!;
    const refund = (amountPence: number) =>
      processor.refund({ idempotencyKey: `ref_${amountPence}`, processorPaymentId: id, amountPence });
    assert.equal((await refund(4_000)).status, 'refunded');
    assert.equal((await refund(6_000)).status, 'refunded');
    assert.equal((await refund(1)).status, 'refused');
  });

  it('maps every acquirer status to ours in one place', () => {
    const cases: [ProcessorOutcome, string][] = [
      [{ status: 'authorised', processorPaymentId: 'x' }, 'succeeded'],
      [
        { status: 'action_required', processorPaymentId: 'x', action: { type: 'qr', url: 'u' } },
        'requires_action',
      ],
      [{ status: 'refused', processorPaymentId: null, code: 'c', message: 'm' }, 'failed'],
      [{ status: 'pending', processorPaymentId: null }, 'processing'],
      [{ status: 'cancelled', processorPaymentId: 'x' }, 'canceled'],
    ];
    for (const [outcome, status] of cases) assert.equal(paymentStatusFor(outcome), status);
  });
});

describe('sandbox processor in production', () => {
  it('does not exist: an app configured for production with the sandbox processor refuses to build', async () => {
    const database = await createTestDatabase();
    const db = await database.open();
    const config = testConfig({ serviceEnv: 'production', databaseUrl: database.databaseUrl });
    try {
      await assert.rejects(buildApp(config, { db }), /The sandbox processor never runs in production/);
    } finally {
      await db.close();
      await database.drop();
      fs.rmSync(config.documentsDir, { recursive: true, force: true });
    }
  });
});
