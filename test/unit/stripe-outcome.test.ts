/** Stripe's PaymentIntent and Refund statuses and errors as our outcomes: one mapping each, every case in a table. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { paymentStatusFor } from '../../src/processors/processor.ts';
import {
  failureOf,
  outcomeOfIntent,
  refundOutcome,
  refundUpdateOf,
} from '../../src/processors/stripe/outcome.ts';
import type { PaymentStatus } from '../../src/shared/vocabulary.ts';

const base = { id: 'pi_123', client_secret: 'pi_123_secret_abc', last_payment_error: null };

describe('outcomeOfIntent', () => {
  const table: [string, Record<string, unknown>, PaymentStatus, Record<string, unknown>][] = [
    [
      'succeeded',
      { status: 'succeeded' },
      'succeeded',
      { status: 'authorised', processorPaymentId: 'pi_123' },
    ],
    [
      'requires_action: Stripe.js completes it with the client secret',
      { status: 'requires_action' },
      'requires_action',
      {
        status: 'action_required',
        processorPaymentId: 'pi_123',
        action: { type: 'stripe_next_action', client_secret: 'pi_123_secret_abc' },
      },
    ],
    [
      'processing',
      { status: 'processing' },
      'processing',
      { status: 'pending', processorPaymentId: 'pi_123' },
    ],
    [
      'requires_capture',
      { status: 'requires_capture' },
      'processing',
      { status: 'pending', processorPaymentId: 'pi_123' },
    ],
    [
      'requires_confirmation',
      { status: 'requires_confirmation' },
      'processing',
      { status: 'pending', processorPaymentId: 'pi_123' },
    ],
    ['canceled', { status: 'canceled' }, 'canceled', { status: 'cancelled', processorPaymentId: 'pi_123' }],
    [
      'a status Stripe adds later: pending, asked again',
      { status: 'requires_reauthorization' },
      'processing',
      { status: 'pending', processorPaymentId: 'pi_123' },
    ],
    [
      'requires_payment_method after a decline',
      {
        status: 'requires_payment_method',
        last_payment_error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' },
      },
      'failed',
      {
        status: 'refused',
        processorPaymentId: 'pi_123',
        code: 'insufficient_funds',
        message: 'Your card has insufficient funds.',
      },
    ],
  ];
  for (const [name, fields, ours, outcome] of table) {
    it(name, () => {
      const mapped = outcomeOfIntent({ ...base, ...fields } as never);
      assert.deepEqual(mapped, outcome);
      assert.equal(paymentStatusFor(mapped), ours);
    });
  }
});

describe('failureOf', () => {
  const table: [string, Record<string, unknown> | null, string, string][] = [
    [
      'generic decline',
      { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline' },
      'card_declined',
      'Your card was declined.',
    ],
    [
      'do_not_honor',
      { type: 'card_error', code: 'card_declined', decline_code: 'do_not_honor' },
      'card_declined',
      'Your card was declined.',
    ],
    [
      'insufficient funds',
      { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds' },
      'insufficient_funds',
      'Your card has insufficient funds.',
    ],
    [
      'expired card (error code)',
      { type: 'card_error', code: 'expired_card' },
      'expired_card',
      'Your card has expired.',
    ],
    [
      'incorrect CVC',
      { type: 'card_error', code: 'incorrect_cvc' },
      'incorrect_cvc',
      "Your card's security code is incorrect.",
    ],
    [
      'off-session authentication required',
      { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required' },
      'authentication_required',
      'This card needs the cardholder to authenticate each payment.',
    ],
    [
      '3DS failed',
      { type: 'invalid_request_error', code: 'payment_intent_authentication_failure' },
      'authentication_failed',
      'The card issuer could not authenticate this payment.',
    ],
    [
      'an unknown card error',
      { type: 'card_error', code: 'processing_error' },
      'card_declined',
      'Your card was declined.',
    ],
    ['no error at all', null, 'payment_failed', 'The payment failed.'],
  ];
  for (const [name, error, code, message] of table) {
    it(name, () => assert.deepEqual(failureOf(error as never), { code, message }));
  }
});

describe('refundOutcome and refundUpdateOf', () => {
  const table: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
    [
      'succeeded',
      { status: 'succeeded', failure_reason: null },
      { status: 'refunded', processorRefundId: 're_1' },
      { status: 'succeeded', failureCode: null },
    ],
    [
      'pending: the card network has not confirmed it yet, so it is not refunded',
      { status: 'pending', failure_reason: null },
      { status: 'pending', processorRefundId: 're_1' },
      { status: 'pending', failureCode: null },
    ],
    [
      'requires_action: waits like pending',
      { status: 'requires_action', failure_reason: null },
      { status: 'pending', processorRefundId: 're_1' },
      { status: 'pending', failureCode: null },
    ],
    [
      'failed, with Stripe’s reason',
      { status: 'failed', failure_reason: 'expired_or_canceled_card' },
      {
        status: 'refused',
        code: 'expired_or_canceled_card',
        message: 'Stripe could not refund this payment.',
      },
      { status: 'failed', failureCode: 'expired_or_canceled_card' },
    ],
    [
      'canceled, without a reason',
      { status: 'canceled', failure_reason: null },
      { status: 'refused', code: 'refund_failed', message: 'Stripe could not refund this payment.' },
      { status: 'failed', failureCode: 'refund_failed' },
    ],
  ];
  for (const [name, refund, outcome, update] of table) {
    it(name, () => {
      const stripeRefund = { id: 're_1', metadata: { refund_id: 'ref_1' }, ...refund };
      assert.deepEqual(refundOutcome(stripeRefund as never), outcome);
      assert.deepEqual(refundUpdateOf(stripeRefund as never), {
        processorRefundId: 're_1',
        refundId: 'ref_1',
        ...update,
      });
    });
  }
});
