/**
 * An off-session recurring charge: a card saved through the Client API (a SetupIntent confirmed with the
 * ConfirmationToken), a schedule set up as the page does it (the preview's authorisation sentence sent back),
 * then the sandbox test clock runs it on its next due date: an off-session PaymentIntent with the saved
 * PaymentMethod, which succeeds.
 *
 * Not covered: a saved card whose bank wants the cardholder (`pm_card_authenticationRequired`). Its SetupIntent
 * needs 3DS when the card is saved, and 3DS can only be completed in a browser (Stripe.js), so the script
 * cannot get that card saved; the stand-in suites (test/api/stripe/stripe-saved-cards.test.ts) cover its charge instead.
 */
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { fail, login, type Smoke, section, step } from './harness.ts';

export async function recurringCharge(
  smoke: Smoke,
  server: string,
  user: { userId: number; email: string },
): Promise<void> {
  section('recurring');
  const { sessionId, client } = await login(smoke, server, user.email);
  step(`session ${sessionId}`);

  const token = await smoke.stripe.testHelpers.confirmationTokens.create({ payment_method: 'pm_card_visa' });
  const saved = await smoke.call('POST', '/api/client/cards', client, { card_token: token.id });
  if (saved.status !== 201) fail(`saving the card: HTTP ${saved.status}, not 201`, saved.body);
  if (saved.body.status !== 'active') fail(`the saved card is ${saved.body.status}, not active`, saved.body);
  const cardId = saved.body.card_id as string;
  // The card's PaymentMethod, and the user's Customer it is attached to.
  const card = await firstRow(
    smoke.app.ctx.db,
    qb
      .selectFrom('saved_cards as k')
      .leftJoin('processor_customers as c', (join) =>
        join.on('c.processor', '=', 'stripe').onRef('c.user_id', '=', 'k.user_id'),
      )
      .select(['k.processor_token', 'c.customer_id'])
      .where('k.id', '=', cardId),
  );
  step(`card ${cardId} saved: ${saved.body.brand} ${saved.body.last4}, active (${card?.processor_token})`);

  const request = { saved_card_id: cardId };
  const preview = await smoke.call('POST', '/api/client/schedules/preview', client, request);
  if (preview.status !== 200) fail(`the schedule preview: HTTP ${preview.status}`, preview.body);
  const created = await smoke.call('POST', '/api/client/schedules', client, {
    ...request,
    authorization_text: preview.body.authorization.text,
  });
  if (created.status !== 201) fail(`setting up the schedule: HTTP ${created.status}`, created.body);
  const schedule = created.body as { schedule_id: string; next_due_date: string; amount: string };
  step(`schedule ${schedule.schedule_id}: ${schedule.amount} due ${schedule.next_due_date}`);

  const run = await smoke.call('POST', '/api/third-party/sandbox/run-schedules/', server, {
    as_of: schedule.next_due_date,
  });
  if (run.status !== 200) fail(`run-schedules as of ${schedule.next_due_date}: HTTP ${run.status}`, run.body);
  if (run.body.charged !== 1 || run.body.failed !== 0) {
    fail(`run-schedules charged ${run.body.charged} and failed ${run.body.failed}, not 1 and 0`, run.body);
  }
  await smoke.worker.drain();
  step(`run-schedules as of ${schedule.next_due_date}: 1 charged`);

  const listed = await smoke.call('GET', `/api/third-party/payments/?user_id=${user.userId}`, server);
  if (listed.status !== 200) fail('listing the user’s payments', listed.body);
  const payment = (listed.body.data as { schedule_id: string | null }[]).find(
    (p) => p.schedule_id === schedule.schedule_id,
  ) as { payment_id: string; status: string; amount: string; processor_reference: string } | undefined;
  if (!payment) fail(`no payment of schedule ${schedule.schedule_id} is listed`, listed.body);
  if (payment.status !== 'succeeded') fail(`the scheduled payment is ${payment.status}`, payment);

  // Stripe does not show `off_session` on a PaymentIntent: what it shows is the saved card of the user's Customer
  // confirmed by the server, without redirects (our off-session confirmation is the one that takes none).
  const intent = await smoke.stripe.paymentIntents.retrieve(payment.processor_reference);
  const problems = [
    intent.status !== 'succeeded' && `status ${intent.status}`,
    intent.metadata?.schedule_id !== schedule.schedule_id &&
      `metadata.schedule_id ${intent.metadata?.schedule_id}`,
    intent.payment_method !== card?.processor_token && `payment_method ${String(intent.payment_method)}`,
    (!intent.customer || intent.customer !== card?.customer_id) && `customer ${String(intent.customer)}`,
    intent.automatic_payment_methods?.allow_redirects !== 'never' &&
      `automatic_payment_methods ${JSON.stringify(intent.automatic_payment_methods)}`,
  ].filter(Boolean);
  if (problems.length > 0) {
    fail(
      `PaymentIntent ${intent.id} is not the saved card's succeeded off-session charge: ${problems.join('; ')}`,
    );
  }
  step(`payment ${payment.payment_id}: succeeded, ${payment.amount} off session (${intent.id})`);
}
