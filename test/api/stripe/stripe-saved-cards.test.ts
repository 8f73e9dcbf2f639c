/**
 * Saved cards, recurring charges, refunds and production mode with the Stripe processor (the local stand-in
 * behind the official `stripe` package): SetupIntents, off-session PaymentIntents and the Refunds API.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { stripeClient } from '../../../src/processors/stripe/processor.ts';
import { OPERATOR_TOKEN, runJobs } from '../../support/helpers.ts';
import { newTenant, paymentEvents, type Tenant } from '../../support/payment-client.ts';
import {
  createSchedule,
  integrationSchedules,
  schedulePaymentEvents,
} from '../../support/schedule-helpers.ts';
import {
  confirmationToken,
  deliverStripeEvents,
  postStripeEvent,
  STRIPE_WEBHOOK_SECRET,
  type StripeApp,
  saveStripeCard,
  startStripeApp,
  stripeConfig,
} from '../../support/stripe-app.ts';

let s: StripeApp;
before(async () => {
  s = await startStripeApp();
});
after(() => s.close());

const savedCard = (tenant: Tenant, testCard: string) => saveStripeCard(s, tenant, testCard);

describe('Stripe saved cards', () => {
  it('a card needing 3DS on set-up: a SetupIntent waits for Stripe.js, its event activates the card; later payments need no 3DS', async () => {
    const tenant = await newTenant(s.t, s.api);
    const saved = await tenant.client.saveCard(
      confirmationToken(s.stand, 'pm_card_authenticationRequiredOnSetup'),
    );
    assert.equal(saved.status, 201, JSON.stringify(saved.body));
    assert.equal(saved.body.status, 'requires_action');
    assert.equal(saved.body.next_action.type, 'stripe_next_action');
    assert.match(saved.body.next_action.client_secret, /^seti_\w+_secret_/);
    const setup = [...s.stand.setupIntents.values()].find(
      (x) => x.client_secret === saved.body.next_action.client_secret,
    )!;
    assert.equal(setup.usage, 'off_session');
    s.stand.completeAction(setup.id, true);
    await deliverStripeEvents(s.t, s.stand);
    const card = await tenant.client.card(saved.body.card_id);
    assert.equal(card.body.status, 'active');
    assert.equal(card.body.last4, '3155');

    // The PaymentMethod is attached to the user's Customer, and a payment with the saved card uses both.
    const pm = s.stand.paymentMethods.get(setup.payment_method as string)!;
    assert.equal(pm.customer, setup.customer);
    const paid = await tenant.client.pay({ saved_card_id: saved.body.card_id });
    assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
    const intent = s.stand.paymentIntents.get(paid.body.processor_reference)!;
    assert.equal(intent.customer, setup.customer);
    assert.equal(intent.payment_method, pm.id);
  });

  it('a declined card is not saved: 400 with the reason, nothing stored', async () => {
    const tenant = await newTenant(s.t, s.api);
    const refused = await tenant.client.saveCard(confirmationToken(s.stand, 'pm_card_chargeDeclined'));
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, { card_token: ['Your card was declined.'] });
    assert.deepEqual((await tenant.client.cards()).body, { cards: [] });
  });

  it('a saved card that always needs 3DS asks for it on session (stripe_next_action)', async () => {
    const tenant = await newTenant(s.t, s.api);
    const cardId = await savedCard(tenant, 'pm_card_authenticationRequired');
    const started = await tenant.client.pay({ saved_card_id: cardId });
    assert.equal(started.body.status, 'requires_action', JSON.stringify(started.body));
    s.stand.completeAction(started.body.processor_reference, true);
    await deliverStripeEvents(s.t, s.stand);
    assert.equal((await tenant.client.payment(started.body.payment_id)).body.status, 'succeeded');
  });
});

describe('Stripe recurring charges', () => {
  it('due charges are off-session PaymentIntents: charged once each; a card that needs 3DS waits for its tenant', async () => {
    const schedules = integrationSchedules(s.t, s.api);
    const good = await newTenant(s.t, s.api);
    const goodCard = await savedCard(good, 'pm_card_authenticationRequiredOnSetup');
    const strict = await newTenant(s.t, s.api);
    const strictCard = await savedCard(strict, 'pm_card_authenticationRequired');
    // biome-ignore lint/suspicious/noExplicitAny: JSON answers
    const created: any[] = [];
    for (const [tenant, cardId] of [
      [good, goodCard],
      [strict, strictCard],
    ] as const) {
      const answer = await createSchedule({ client: tenant.client, cardId }, { pure_amount: '500.00' });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      created.push(answer.body);
    }
    const dueDate = created[0].next_due_date;
    const before = s.stand.paymentIntents.size;
    assert.equal((await schedules.run(dueDate)).status, 200);
    await runJobs(s.t);
    assert.equal((await schedules.run(dueDate)).status, 200, 'a second run charges nothing more');
    await runJobs(s.t);

    const [paid] = await schedulePaymentEvents(s.t, created[0].schedule_id);
    assert.equal(paid?.type, 'payment_success');
    const intent = s.stand.paymentIntents.get(paid!.data.payment.processor_reference as string)!;
    assert.equal(intent.amount, 50725, '£500.00 plus the 1.45 % card fee');
    assert.equal(
      intent.metadata && (intent.metadata as Record<string, string>).schedule_id,
      created[0].schedule_id,
    );
    assert.ok(
      s.stand.requests.some(
        (r) => r.path === '/v1/payment_intents' && r.idempotencyKey?.startsWith(created[0].schedule_id),
      ),
      'keyed by schedule, due date and attempt',
    );

    // The bank wants the cardholder: the charge waits for them, its PaymentIntent kept for them to confirm.
    const [waiting] = await schedulePaymentEvents(s.t, created[1].schedule_id);
    assert.equal(waiting?.type, 'payment_action_required');
    assert.equal(waiting!.data.payment.status, 'requires_action');
    assert.equal(waiting!.data.payment.failure_code, null);
    const kept = s.stand.paymentIntents.get(waiting!.data.payment.processor_reference as string)!;
    assert.equal(kept.status, 'requires_payment_method', 'not canceled');
    assert.equal(s.stand.paymentIntents.size, before + 2, 'one PaymentIntent per due charge');
  });
});

describe('Stripe refunds', () => {
  it('the operator refunds in part then in full through the Refunds API, keyed by our refund ids', async () => {
    const tenant = await newTenant(s.t, s.api);
    const paid = await tenant.client.pay({ confirmation_token: confirmationToken(s.stand, 'pm_card_visa') });
    const refund = (payload: Record<string, unknown>) =>
      s.t.app.inject({
        method: 'POST',
        url: `/api/operator/payments/${paid.body.payment_id}/refunds`,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
        payload,
      });
    s.t.clock.advance(1000);
    const part = await refund({ amount: '200.00' });
    assert.equal(part.statusCode, 201, part.body);
    assert.equal(part.json().status, 'succeeded');
    s.t.clock.advance(1000);
    const rest = await refund({});
    assert.equal(rest.json().amount, '1017.40');
    const atStripe = [...s.stand.refunds.values()].filter(
      (r) => r.payment_intent === paid.body.processor_reference,
    );
    assert.deepEqual(
      atStripe.map((r) => r.amount),
      [20000, 101740],
    );
    for (const r of [part.json(), rest.json()]) {
      assert.ok(s.stand.requests.some((x) => x.path === '/v1/refunds' && x.idempotencyKey === r.refund_id));
    }
    assert.deepEqual(await paymentEvents(s.t, paid.body.payment_id), [
      'payment_success',
      'payment_refunded',
      'payment_refunded',
    ]);
    // Stripe's charge.refunded events afterwards change nothing.
    await deliverStripeEvents(s.t, s.stand);
    assert.equal((await paymentEvents(s.t, paid.body.payment_id)).length, 3);
  });

  it('a refund made in Stripe’s Dashboard is recorded once from charge.refunded, with payment_refunded', async () => {
    const tenant = await newTenant(s.t, s.api);
    const paid = await tenant.client.pay({ confirmation_token: confirmationToken(s.stand, 'pm_card_visa') });
    await deliverStripeEvents(s.t, s.stand);
    // The Dashboard calls Stripe's Refunds API itself: rentpay only hears of it through the event.
    s.t.clock.advance(1000);
    const dashboard = stripeClient(stripeConfig(s.stand).stripe!);
    await dashboard.refunds.create({ payment_intent: paid.body.processor_reference, amount: 30000 });
    await deliverStripeEvents(s.t, s.stand);
    // Stripe may send an event again: it is applied once.
    const [event] = s.stand.events.filter((e) => e.type === 'charge.refunded').slice(-1);
    const again = s.stand.signedEvent(event!.type, event!.object, STRIPE_WEBHOOK_SECRET);
    assert.equal((await postStripeEvent(s.t, again.body, again.signature)).status, 200);
    await runJobs(s.t);

    const shown = await s.t.app.inject({
      method: 'GET',
      url: `/api/operator/payments/${paid.body.payment_id}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    assert.equal(shown.json().refunded, '300.00');
    const events = await s.t.db.query<{ type: string; refund: { amount: string; status: string } | null }>(
      `SELECT type, data->'refund' AS refund FROM events WHERE data->'payment'->>'payment_id' = $1
        ORDER BY created_at, id`,
      [paid.body.payment_id],
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.refund?.amount ?? null, e.refund?.status ?? null]),
      [
        ['payment_success', null, null],
        ['payment_refunded', '300.00', 'succeeded'],
      ],
    );
  });
});

describe('production with Stripe', () => {
  it('starts with live keys, issues rp_live_ tokens, has no sandbox routes, no test clock and no demo, and takes payments', async () => {
    const live = await startStripeApp({ serviceEnv: 'production' });
    try {
      assert.match(live.api.serverToken, /^rp_live_/);
      for (const url of ['/sandbox/tokens', '/demo', '/demo/', '/sandbox/sample-documents/lease.pdf']) {
        const answer = await live.t.app.inject({
          method: url.startsWith('/sandbox/tokens') ? 'POST' : 'GET',
          url,
        });
        assert.equal(answer.statusCode, 404, url);
      }
      const run = await integrationSchedules(live.t, live.api).run('2026-04-01');
      assert.equal(run.status, 404);
      const tenant = await newTenant(live.t, live.api);
      const session = await live.api.clientSession(tenant.client.token);
      assert.equal(session.body.environment, 'production');
      assert.equal(session.body.processor.stripe.publishable_key, 'pk_live_rentpay_standin');
      const paid = await tenant.client.pay({
        confirmation_token: confirmationToken(live.stand, 'pm_card_visa'),
      });
      assert.equal(paid.body.status, 'succeeded', JSON.stringify(paid.body));
    } finally {
      await live.close();
    }
  });
});
