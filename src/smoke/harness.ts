/**
 * What every part of `npm run smoke:stripe` shares: numbered step lines, FAILED messages naming the part that
 * failed, calls to rentpay's APIs in this process, and Stripe's events delivered to our webhook endpoint (Stripe
 * cannot reach this machine, so its Events API is read and each event posted, signed as Stripe signs them).
 */
import { randomBytes } from 'node:crypto';
import Stripe from 'stripe';
import type { buildApp } from '../app.ts';
import type { Worker } from '../platform/jobs/worker.ts';

export type App = Awaited<ReturnType<typeof buildApp>>;

/** An answer of rentpay's API: the status and the JSON body. */
export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer
  body: any;
}

let steps = 0;
let part = 'setup';

/** The part of the run the next steps and failures belong to (e.g. "WeChat Pay"). */
export function section(name: string): void {
  part = name;
}

/** One numbered step line: `· 7. WeChat Pay: …`. */
export function step(message: string): void {
  steps += 1;
  console.log(`· ${steps}. ${part}: ${message}`);
}

export function fail(message: string, detail?: unknown): never {
  console.error(`smoke:stripe FAILED: ${part}: ${message}`);
  if (detail !== undefined)
    console.error(typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2));
  process.exit(1);
}

/** What Stripe said when a call to it threw: its type, code, parameter and request id, for support to look up. */
export function stripeErrorDetail(error: unknown): Record<string, unknown> | undefined {
  if (!(error instanceof Stripe.errors.StripeError)) return undefined;
  return {
    type: error.type,
    status: error.statusCode,
    code: error.code,
    param: error.param,
    request_id: error.requestId,
  };
}

export const newKey = (prefix = 'smoke') => `${prefix}-${randomBytes(8).toString('hex')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** How long (about, in seconds) a step waits for Stripe's events before it fails. */
export const EVENT_WAIT_SECONDS = 20;

/** The PaymentIntent an event's object is about: the intent itself, or a refund's or charge's payment_intent. */
function intentOf(object: { id?: string; object?: string; payment_intent?: unknown }): string | undefined {
  if (object.object === 'payment_intent') return object.id;
  const intent = object.payment_intent;
  if (typeof intent === 'string') return intent;
  return (intent as { id?: string } | null | undefined)?.id;
}

/** rentpay in this process with its job worker, and Stripe as the script talks to it. */
export class Smoke {
  readonly #delivered = new Set<string>();

  constructor(
    readonly app: App,
    readonly stripe: Stripe,
    readonly worker: Worker,
    readonly operatorToken: string,
    readonly webhookSecret: string,
  ) {}

  async call(
    method: 'GET' | 'POST',
    url: string,
    token: string,
    payload?: unknown,
    headers: Record<string, string> = {},
  ): Promise<Answer> {
    const answer = await this.app.inject({
      method,
      url,
      headers: { authorization: token, ...headers },
      ...(payload === undefined ? {} : { payload: payload as Record<string, unknown> }),
    });
    return { status: answer.statusCode, body: answer.body ? answer.json() : undefined };
  }

  operator(method: 'GET' | 'POST', url: string, payload?: unknown): Promise<Answer> {
    return this.call(method, url, `Bearer ${this.operatorToken}`, payload);
  }

  /**
   * Stripe's events of `types` about the PaymentIntent `intentId` that were not delivered yet, listed from the
   * Events API (newest first, as many as one page holds) and posted oldest first to our webhook endpoint; then
   * the worker applies them. Returns the types of the events posted.
   */
  async deliverEvents(types: readonly string[], intentId: string): Promise<string[]> {
    const found: Stripe.Event[] = [];
    for (const type of types) {
      const events = await this.stripe.events.list({ type, limit: 20 });
      for (const event of events.data) {
        if (this.#delivered.has(event.id)) continue;
        if (intentOf(event.data.object as { id?: string }) === intentId) found.push(event);
      }
    }
    found.sort((a, b) => a.created - b.created);
    for (const event of found) {
      const body = JSON.stringify(event);
      const signature = this.stripe.webhooks.generateTestHeaderString({
        payload: body,
        secret: this.webhookSecret,
      });
      const answer = await this.app.inject({
        method: 'POST',
        url: '/api/processors/stripe/webhook',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        payload: body,
      });
      if (answer.statusCode !== 200)
        fail(`the webhook endpoint refused Stripe’s ${event.type} event ${event.id}`, answer.body);
      this.#delivered.add(event.id);
    }
    if (found.length > 0) await this.worker.drain();
    return found.map((event) => event.type);
  }

  /**
   * Delivers Stripe's events of `types` about `intentId` (deliverEvents) about once a second until `done` says
   * what they should have done is done, for up to EVENT_WAIT_SECONDS. Returns the types delivered, or undefined
   * if it was not done in time.
   */
  async deliverEventsUntil(
    types: readonly string[],
    intentId: string,
    done: (delivered: string[]) => Promise<boolean>,
  ): Promise<string[] | undefined> {
    const delivered: string[] = [];
    for (let attempt = 0; attempt < EVENT_WAIT_SECONDS; attempt++) {
      if (attempt > 0) await sleep(1_000);
      delivered.push(...(await this.deliverEvents(types, intentId)));
      if (await done(delivered)) return delivered;
    }
    return undefined;
  }
}

/** How many events were applied and of which types, e.g. "2 event(s) applied (charge.refunded, refund.updated)". */
export function eventsApplied(types: string[]): string {
  return `${types.length} event(s) applied (${[...new Set(types)].sort().join(', ')})`;
}

/** A tenancy paying £12.00 on the 1st of each month, from the 1st of this month for a year. */
export function tenancyBody(reference: string): Record<string, unknown> {
  const today = new Date();
  const month = String(today.getUTCMonth() + 1).padStart(2, '0');
  return {
    post_code: 'SW1A 1AA',
    address_1: '10 Downing Street',
    city: 'London',
    country: 'United Kingdom',
    is_primary: true,
    start_rent_date: `${today.getUTCFullYear()}-${month}-01`,
    end_rent_date: `${today.getUTCFullYear() + 1}-${month}-01`,
    rent_due_day: 1,
    amount: '12.00',
    frequency: 'every_1_month',
    is_active: true,
    payment_reference: reference,
    recipient_bank_sort_code: '12-34-56',
    recipient_bank_account_number: '12345678',
    recipient_bank_account_name: 'Landlord Ltd',
    agreement: 'https://example.com/tenancy-agreement.pdf',
  };
}

/** A new user (`userId`) of the integrator with one tenancy, onboarded; their email. */
export async function onboard(smoke: Smoke, server: string, userId: number): Promise<string> {
  const email = `smoke-${Date.now()}-${userId}@example.com`;
  const answer = await smoke.call('POST', '/api/third-party/onboarding/', server, {
    user_id: userId,
    email,
    first_name: 'Ada',
    last_name: 'Lovelace',
    phone_number: '+447700900123',
    date_of_birth: '1990-12-10',
    kyc: { pii_front: null, pii_back: null, photo: null, status: 'pending' },
    tenant: [tenancyBody(`SMOKE-${userId}`)],
  });
  if (answer.status >= 300) fail(`onboarding user ${userId}`, answer.body);
  return email;
}

/** A new payment session of the user: its id and the Client API's authorization header. */
export async function login(
  smoke: Smoke,
  server: string,
  email: string,
): Promise<{ sessionId: string; client: string }> {
  const answer = await smoke.call('POST', '/api/third-party/user-login/', server, { email });
  if (answer.status !== 200) fail(`user-login of ${email}`, answer.body);
  return { sessionId: answer.body.session_id, client: `Bearer ${answer.body.token}` };
}
