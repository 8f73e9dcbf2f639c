/**
 * The processor contract suite's drivers: one per payment processor, each knowing how to make the suite's inputs for
 * its processor (a card that behaves so, an APM, the customer's answer to 3DS or an APM page, a refund that ends
 * later, a dispute) and how that processor's asynchronous events reach the app. The cases themselves
 * (test/flows/processor-contract.test.ts) only speak our public APIs and read our events.
 */
import assert from 'node:assert/strict';
import type { PaymentProcessorName } from '../../src/platform/config/config.ts';
import type { DisputeStatus } from '../../src/processors/processor.ts';
import { type Answer, type Api, integrationApi, send, UNLIMITED } from './api-client.ts';
import { runJobs, startTestApp, type TestApp } from './helpers.ts';
import { answerChallenge, cardToken } from './payment-client.ts';
import { confirmationToken, deliverStripeEvents, type StripeApp, startStripeApp } from './stripe-app.ts';

/** The cards the cases pay with, by how they behave (each processor has its own test card for each). */
export type TestCard =
  /** Succeeds, saved or not, on or off session. */
  | 'visa'
  /** Declined: insufficient_funds. */
  | 'insufficient_funds'
  /** Asks for 3DS on every payment on session. */
  | 'three_ds'
  /** Saves fine; every charge of it is declined (card_declined). */
  | 'declined_once_saved'
  /** Succeeds; its refunds stay pending until the processor settles them (see ProcessorDriver.refundsPending). */
  | 'refunds_pending';

export type ApmMethod = 'alipay' | 'wechat_pay';

/** What the customer is asked to do, by what is being paid. */
export type ActionKind = 'three_ds' | ApmMethod;

/** A Payment as the Client API answers it (next_action included). */
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer, asserted on field by field
export type PaymentBody = Record<string, any>;

export interface ProcessorDriver {
  readonly name: PaymentProcessorName;
  /** The app on this processor (set by start). */
  readonly t: TestApp;
  start(): Promise<void>;
  close(): Promise<void>;
  /** The fields of POST /api/client/payments that pay by card with a new card behaving as `card`. */
  card(card: TestCard): Promise<Record<string, unknown>>;
  /** The fields of POST /api/client/payments that pay by this APM. */
  apm(method: ApmMethod): Promise<Record<string, unknown>>;
  /** What POST /api/client/cards takes as `card_token` to save a card behaving as `card`. */
  cardToSave(card: TestCard): Promise<string>;
  /** The `next_action.type` a payment waiting for the customer shows, by what it waits for. */
  readonly nextActionType: Record<ActionKind, string>;
  /** What `processor_reference` looks like. */
  readonly processorReference: RegExp;
  /** The customer approves or fails what a `requires_action` payment waits for; the outcome is then applied. */
  answer(payment: PaymentBody, approve: boolean): Promise<void>;
  /** Delivers what the processor has still to tell the app, and runs the jobs due. */
  deliverEvents(): Promise<void>;
  /**
   * Runs `ask` (a refund request) so that the refunds it makes start `pending`: with the sandbox, refunds of a
   * payment by the `refunds_pending` card always do; with Stripe, refunds made meanwhile do.
   */
  refundsPending<T>(ask: () => Promise<T>): Promise<T>;
  /** The processor ends one of our refunds (by our refund id): a pending one succeeds or fails, or one fails later. */
  settleRefund(refundId: string, status: 'succeeded' | 'failed'): Promise<void>;
  /** The cardholder disputes the payment (`open`), or its dispute ends; the event is then applied. */
  dispute(payment: PaymentBody, status: DisputeStatus): Promise<void>;
}

/** The sandbox processor: its test cards, its 3DS and APM pages, its refund and dispute routes, and jobs. */
export function sandboxDriver(): ProcessorDriver {
  const CARDS: Record<TestCard, string> = {
    visa: '4242424242424242',
    insufficient_funds: '4000000000009995',
    three_ds: '4000002760003184',
    declined_once_saved: '4000000000000341',
    refunds_pending: '4000000000007726',
  };
  let app: TestApp | undefined;
  const t = () => app ?? assert.fail('the sandbox app is not started');
  /** A sandbox route that answers 202 and queues a notification, then the jobs that apply it. */
  const act = async (url: string) => {
    const answer = await send(t(), { method: 'POST', url });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    await runJobs(t());
  };
  return {
    name: 'sandbox',
    get t() {
      return t();
    },
    async start() {
      app = await startTestApp();
    },
    close: () => t().close(),
    card: async (card) => ({ card_token: await cardToken(t(), CARDS[card]) }),
    apm: async (method) => ({ method }),
    cardToSave: (card) => cardToken(t(), CARDS[card]),
    nextActionType: { three_ds: 'three_ds', alipay: 'redirect', wechat_pay: 'qr' },
    processorReference: /^ch_sandbox_/,
    async answer(payment, approve) {
      const answered = await answerChallenge(t(), payment.next_action.url, approve ? 'authorise' : 'fail');
      assert.equal(answered.status, 202, JSON.stringify(answered.body));
      await runJobs(t());
    },
    deliverEvents: async () => {
      await runJobs(t());
    },
    refundsPending: (ask) => ask(),
    settleRefund: (refundId, status) =>
      act(`/sandbox/refunds/${refundId}/${status === 'succeeded' ? 'succeed' : 'fail'}`),
    dispute: (payment, status) => act(`/sandbox/disputes/${payment.processor_reference}/${status}`),
  };
}

/** The Stripe processor against its local stand-in: test PaymentMethods, the stand-in's controls and its events. */
export function stripeDriver(): ProcessorDriver {
  const CARDS: Record<TestCard, string> = {
    visa: 'pm_card_visa',
    insufficient_funds: 'pm_card_chargeDeclinedInsufficientFunds',
    three_ds: 'pm_card_authenticationRequired',
    declined_once_saved: 'pm_card_chargeCustomerFail',
    // Any card's refunds start pending while refundsPending runs.
    refunds_pending: 'pm_card_visa',
  };
  let s: StripeApp | undefined;
  const stripe = () => s ?? assert.fail('the Stripe app is not started');
  const deliver = () => deliverStripeEvents(stripe().t, stripe().stand);
  return {
    name: 'stripe',
    get t() {
      return stripe().t;
    },
    async start() {
      s = await startStripeApp();
    },
    close: () => stripe().close(),
    card: async (card) => ({ confirmation_token: confirmationToken(stripe().stand, CARDS[card]) }),
    apm: async (method) => ({ method, confirmation_token: confirmationToken(stripe().stand, method) }),
    cardToSave: async (card) => confirmationToken(stripe().stand, CARDS[card]),
    nextActionType: {
      three_ds: 'stripe_next_action',
      alipay: 'stripe_next_action',
      wechat_pay: 'stripe_next_action',
    },
    processorReference: /^pi_/,
    async answer(payment, approve) {
      // What Stripe.js does in the page with the client secret: 3DS, or the APM's page or QR code.
      stripe().stand.completeAction(payment.processor_reference, approve);
      await deliver();
    },
    deliverEvents: deliver,
    async refundsPending(ask) {
      stripe().stand.refundsPending = true;
      try {
        return await ask();
      } finally {
        stripe().stand.refundsPending = false;
      }
    },
    async settleRefund(refundId, status) {
      const refund = [...stripe().stand.refunds.values()].find(
        (r) => (r.metadata as Record<string, string>).refund_id === refundId,
      );
      assert.ok(refund, `Stripe has no refund for ${refundId}`);
      stripe().stand.settleRefund(refund.id, status);
      await deliver();
    },
    async dispute(payment, status) {
      const { stand } = stripe();
      if (status === 'open') stand.openDispute(payment.processor_reference);
      else {
        const dispute = [...stand.disputes.values()].find(
          (d) => d.payment_intent === payment.processor_reference,
        );
        assert.ok(dispute, `Stripe has no dispute of ${payment.processor_reference}`);
        stand.closeDispute(dispute.id, status);
      }
      await deliver();
    },
  };
}

/** An event as the integrator lists it (GET /api/third-party/events/). */
// biome-ignore lint/suspicious/noExplicitAny: a JSON answer, asserted on field by field
export type ListedEvent = { type: string; data: Record<string, any> };

/** The same fee for every method the cases pay by: £1,200.00 costs £1,217.40. */
const FEE = { percent: '1.45', fixed: '0.00' };

/**
 * A new integrator on the driver's app, so that a case sees only its own events and runs only its own schedules,
 * with the public API calls the cases make.
 */
export async function integratorOn(driver: ProcessorDriver) {
  const { t } = driver;
  const integrator = await t.createIntegrator({
    ...UNLIMITED,
    fees: { card: FEE, alipay: FEE, wechat_pay: FEE },
  });
  const api: Api = integrationApi(t, integrator);
  const auth = { authorization: `Token ${integrator.token}` };
  return {
    api,
    /** Every event of this integrator, oldest first (events are listed newest first). */
    async events(): Promise<ListedEvent[]> {
      const listed = await send(t, {
        method: 'GET',
        url: '/api/third-party/events/?limit=100',
        headers: auth,
      });
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.equal(listed.body.has_more, false);
      return [...listed.body.data].reverse();
    },
    /** POST /api/third-party/payments/{id}/refunds/ of `amount` (everything left without one). */
    refund(paymentId: string, amount?: string): Promise<Answer> {
      return send(t, {
        method: 'POST',
        url: `/api/third-party/payments/${paymentId}/refunds/`,
        headers: auth,
        ...(amount === undefined ? {} : { payload: { amount } }),
      });
    },
  };
}
