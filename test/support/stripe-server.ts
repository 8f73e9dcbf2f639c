/**
 * A local stand-in for Stripe's API, for tests only (Stripe itself cannot be reached here). The official `stripe`
 * package talks to it through its `host`/`port`/`protocol` options, so request encoding, authentication and
 * idempotency headers are Stripe's own. It keeps Customers, PaymentIntents, ConfirmationTokens and Refunds in
 * memory and follows Stripe's documented behaviour for them and for the test PaymentMethods below; it is not
 * Stripe, and anything it does not know answers 404 like an unknown Stripe route.
 *
 * It refuses what Stripe refuses: a parameter the route does not take (`parameter_unknown`, the lists below come
 * from the `stripe` package's types for our API version), the parameters Stripe requires in context (WeChat Pay's
 * `client`, a `return_url` while redirect methods may be used), a ConfirmationToken used twice, expired, or with a
 * `setup_future_usage` the intent does not have, more than `rateLimitPerSecond` requests a second to one route
 * (429 `rate_limit`). Like Stripe it keeps an idempotent answer only for a request that began executing: a request
 * refused by validation (400, 404) or the rate limit is answered afresh when retried with the same key.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import Stripe from 'stripe';
import { browserRoute } from './stripe-standin-browser.ts';

interface Card {
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

/** One step's result for a test card: Stripe's documented behaviour of each test PaymentMethod. */
type Step =
  | { kind: 'succeed' }
  | { kind: 'decline'; code: string; decline_code?: string; message: string }
  | { kind: 'authenticate' };

/** How a test card behaves when set up for later, charged on session (new or saved), and charged off session. */
interface Behaviour {
  setup: Step;
  onSession: Step;
  onSessionSaved: Step;
  offSession: Step;
}

const OK: Step = { kind: 'succeed' };
const AUTH: Step = { kind: 'authenticate' };
const decline = (code: string, message: string, decline_code?: string): Step => ({
  kind: 'decline',
  code,
  message,
  ...(decline_code ? { decline_code } : {}),
});
const always = (step: Step): Behaviour => ({
  setup: step,
  onSession: step,
  onSessionSaved: step,
  offSession: step,
});
const GENERIC = decline('card_declined', 'Your card was declined.', 'generic_decline');
const AUTH_REQUIRED = decline(
  'authentication_required',
  'Your card was declined. This transaction requires authentication.',
  'authentication_required',
);

const TEST_PAYMENT_METHODS: Record<string, { card: Card; behaviour: Behaviour }> = {
  pm_card_visa: { card: card('visa', '4242'), behaviour: always(OK) },
  pm_card_mastercard: { card: card('mastercard', '4444'), behaviour: always(OK) },
  pm_card_unionpay: { card: card('unionpay', '0005'), behaviour: always(OK) },
  pm_card_chargeDeclined: { card: card('visa', '0002'), behaviour: always(GENERIC) },
  pm_card_chargeDeclinedInsufficientFunds: {
    card: card('visa', '9995'),
    behaviour: always(decline('card_declined', 'Your card has insufficient funds.', 'insufficient_funds')),
  },
  pm_card_chargeDeclinedExpiredCard: {
    card: card('visa', '0069'),
    behaviour: always(decline('expired_card', 'Your card has expired.')),
  },
  // Attaches (saves) fine; every charge afterwards is declined.
  pm_card_chargeCustomerFail: {
    card: card('visa', '0341'),
    behaviour: { setup: OK, onSession: GENERIC, onSessionSaved: GENERIC, offSession: GENERIC },
  },
  // 3DS on every on-session payment and set-up; off session it fails with authentication_required.
  pm_card_authenticationRequired: {
    card: card('visa', '3184'),
    behaviour: { setup: AUTH, onSession: AUTH, onSessionSaved: AUTH, offSession: AUTH_REQUIRED },
  },
  // 3DS when set up (or paid once without saving); once set up, later payments need none.
  pm_card_authenticationRequiredOnSetup: {
    card: card('visa', '3155'),
    behaviour: { setup: AUTH, onSession: AUTH, onSessionSaved: OK, offSession: OK },
  },
};

function card(brand: string, last4: string): Card {
  return { brand, last4, exp_month: 12, exp_year: 2034 };
}

function id(prefix: string): string {
  return `${prefix}_${randomBytes(12).toString('base64url').replace(/[-_]/g, 'x')}`;
}

/** Stripe's form encoding (`a[b][0]=c`) back into an object. */
function parseForm(body: string): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  for (const [rawKey, value] of new URLSearchParams(body)) {
    const path = rawKey.replace(/\]/g, '').split('[');
    let node: Record<string, unknown> = root;
    path.forEach((key, i) => {
      if (i === path.length - 1) {
        node[key] = value;
        return;
      }
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    });
  }
  return root;
}

class StripeError extends Error {
  /**
   * `executed`: the endpoint began executing (a card error, a state error), so an idempotent retry replays this
   * answer; false for a refused validation, which Stripe does not keep.
   */
  constructor(
    readonly status: number,
    readonly body: Record<string, unknown>,
    readonly executed = false,
  ) {
    super(String(body.message));
  }
}

const invalid = (message: string, param?: string) =>
  new StripeError(400, { type: 'invalid_request_error', message, ...(param ? { param } : {}) });
const missingParam = (param: string) =>
  new StripeError(400, {
    type: 'invalid_request_error',
    code: 'parameter_missing',
    message: `Missing required param: ${param}.`,
    param,
  });
/** A request refused by the object's state, after the endpoint began executing: kept for idempotent replay. */
const stateError = (message: string) =>
  new StripeError(400, { type: 'invalid_request_error', message }, true);
const missing = (kind: string, value: string, param = 'id') =>
  new StripeError(404, {
    type: 'invalid_request_error',
    code: 'resource_missing',
    message: `No such ${kind}: '${value}'`,
    param,
  });

type Obj = Record<string, unknown> & { id: string };

/** A PaymentMethod as the stand-in keeps it: Stripe's object plus how it behaves. */
type Method = Obj & { type: string; card: Card | null; customer: string | null; behaviour: Behaviour };

/** An event Stripe would send, kept in order; `deliverStripeEvents` (or a webhook URL) sends them on. */
export interface StandInEvent {
  id: string;
  type: string;
  object: Obj;
  delivered: boolean;
}

const APM_TYPES = ['alipay', 'wechat_pay'];
/** APMs that send the customer to the provider's page (WeChat Pay shows a QR code in the page instead). */
const REDIRECT_TYPES = ['alipay'];

const PAYMENT_INTENT_CONFIRM = [
  'allowed_payment_method_types',
  'amount_details',
  'amount_to_confirm',
  'capture_method',
  'confirmation_token',
  'error_on_requires_action',
  'excluded_payment_method_types',
  'expand',
  'hooks',
  'mandate',
  'mandate_data',
  'off_session',
  'payment_details',
  'payment_method',
  'payment_method_data',
  'payment_method_options',
  'radar_options',
  'receipt_email',
  'return_url',
  'setup_future_usage',
  'shipping',
  'use_stripe_sdk',
];

/** The parameters each route takes, from the `stripe` package's `…Params` types; `:id` is an object id. */
const ROUTE_PARAMS: Record<string, readonly string[]> = {
  'POST /v1/customers': [
    'address',
    'balance',
    'business_name',
    'cash_balance',
    'description',
    'email',
    'expand',
    'individual_name',
    'invoice_prefix',
    'invoice_settings',
    'metadata',
    'name',
    'next_invoice_sequence',
    'payment_method',
    'phone',
    'preferred_locales',
    'shipping',
    'source',
    'tax',
    'tax_exempt',
    'tax_id_data',
    'test_clock',
    'validate',
  ],
  'GET /v1/customers/:id': ['expand'],
  'POST /v1/payment_intents': [
    ...PAYMENT_INTENT_CONFIRM,
    'amount',
    'currency',
    'application_fee_amount',
    'automatic_payment_methods',
    'confirm',
    'confirmation_method',
    'customer',
    'customer_account',
    'description',
    'metadata',
    'on_behalf_of',
    'payment_method_configuration',
    'statement_descriptor',
    'statement_descriptor_suffix',
    'transfer_data',
    'transfer_group',
  ],
  'GET /v1/payment_intents/:id': ['client_secret', 'expand'],
  'POST /v1/payment_intents/:id/confirm': PAYMENT_INTENT_CONFIRM,
  'POST /v1/payment_intents/:id/cancel': ['cancellation_reason', 'expand'],
  'POST /v1/setup_intents': [
    'allowed_payment_method_types',
    'attach_to_self',
    'automatic_payment_methods',
    'confirm',
    'confirmation_token',
    'customer',
    'customer_account',
    'description',
    'excluded_payment_method_types',
    'expand',
    'flow_directions',
    'mandate_data',
    'metadata',
    'on_behalf_of',
    'payment_method',
    'payment_method_configuration',
    'payment_method_data',
    'payment_method_options',
    'return_url',
    'single_use',
    'usage',
    'use_stripe_sdk',
  ],
  'GET /v1/setup_intents/:id': ['client_secret', 'expand'],
  'POST /v1/setup_intents/:id/cancel': ['cancellation_reason', 'expand'],
  'GET /v1/payment_methods/:id': ['expand'],
  'POST /v1/payment_methods/:id/detach': ['expand'],
  // `wallet` is the stand-in's own: Stripe.js's Express Checkout Element makes wallet tokens for real.
  'POST /v1/test_helpers/confirmation_tokens': [
    'expand',
    'payment_method',
    'payment_method_data',
    'payment_method_options',
    'return_url',
    'setup_future_usage',
    'shipping',
    'wallet',
  ],
  'GET /v1/confirmation_tokens/:id': ['expand'],
  'POST /v1/refunds': [
    'amount',
    'charge',
    'currency',
    'customer',
    'expand',
    'instructions_email',
    'metadata',
    'origin',
    'payment_intent',
    'reason',
    'refund_application_fee',
    'reverse_transfer',
  ],
  'GET /v1/refunds/:id': ['expand'],
  'GET /v1/charges/:id': ['expand'],
  'GET /v1/balance_transactions/:id': ['expand'],
  'GET /v1/events': [
    'created',
    'delivery_success',
    'ending_before',
    'expand',
    'limit',
    'starting_after',
    'type',
    'types',
  ],
};

/** The nested parameters checked as strictly: `automatic_payment_methods`, and the APMs' options. */
const NESTED_PARAMS: Record<string, readonly string[]> = {
  automatic_payment_methods: ['enabled', 'allow_redirects'],
  'payment_method_options.wechat_pay': ['app_id', 'client', 'setup_future_usage'],
  'payment_method_options.alipay': ['setup_future_usage'],
};

/** `POST /v1/payment_intents/pi_123/confirm` → `POST /v1/payment_intents/:id/confirm`. */
function routeOf(method: string, path: string): string {
  const parts = path.split('/').filter(Boolean);
  const shaped = parts.map((part, i) =>
    i === 2 && !(parts[1] === 'test_helpers' && part === 'confirmation_tokens') ? ':id' : part,
  );
  return `${method} /${shaped.join('/')}`;
}

/** The first parameter of `params` the route does not take (as Stripe names it: `a[b]`), or undefined. */
function unknownParameter(route: string, params: Record<string, unknown>): string | undefined {
  const allowed = ROUTE_PARAMS[route];
  if (!allowed) return undefined;
  const top = Object.keys(params).find((key) => !allowed.includes(key));
  if (top !== undefined) return top;
  for (const [path, keys] of Object.entries(NESTED_PARAMS)) {
    let node: unknown = params;
    for (const key of path.split('.')) node = (node as Record<string, unknown> | undefined)?.[key];
    if (typeof node !== 'object' || node === null) continue;
    const extra = Object.keys(node).find((key) => !keys.includes(key));
    if (extra !== undefined)
      return `${path.split('.').join('[')}${']'.repeat(path.split('.').length - 1)}[${extra}]`;
  }
  return undefined;
}

export class StripeStandIn {
  readonly customers = new Map<string, Obj>();
  readonly paymentIntents = new Map<string, Obj>();
  readonly setupIntents = new Map<string, Obj>();
  readonly paymentMethods = new Map<string, Method>();
  readonly confirmationTokens = new Map<string, Obj>();
  readonly refunds = new Map<string, Obj>();
  readonly charges = new Map<string, Obj>();
  readonly balanceTransactions = new Map<string, Obj>();
  readonly disputes = new Map<string, Obj>();
  /**
   * The stand-in's clock (milliseconds), for `available_on`; a test with a fake clock points it there. Every other
   * timestamp it gives is the wall clock, which nothing reads.
   */
  now: () => number = () => Date.now();
  /** Days from a charge to its funds' `available_on` (midnight UTC), as an account's payout schedule sets it. */
  settlementDays = 2;
  readonly events: StandInEvent[] = [];
  /** Every request as it arrived: method, path, the Idempotency-Key, for tests that count calls. */
  readonly requests: { method: string; path: string; idempotencyKey: string | undefined }[] = [];
  /** Stripe's test-mode limit per route and second (live mode allows more); a test may lower or raise it. */
  rateLimitPerSecond = 25;
  /** The clock the rate limit counts seconds on: the wall clock, whatever `now` a test fakes. */
  rateClock: () => number = () => Date.now();
  /** The most requests one route got in one second so far (how close a suite came to the limit). */
  peakRequestsPerSecond = 0;
  readonly #rates = new Map<string, { second: number; count: number }>();
  /**
   * How many answers to lose: the request is executed (and kept for idempotent replay), then the connection is
   * dropped before the answer, as a network failure would. Only requests whose path starts with `losePath`.
   */
  loseAnswers = 0;
  losePath = '/v1/';
  readonly #replays = new Map<string, { params: string; status: number; body: unknown }>();
  #server?: http.Server;
  port = 0;

  /** On `port` of 127.0.0.1 (0: any free one). */
  static async start(port = 0): Promise<StripeStandIn> {
    const stand = new StripeStandIn();
    stand.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8');
        try {
          if (browserRoute(stand, req, res, raw)) return;
        } catch (error) {
          if (!(error instanceof StripeError)) throw error;
          res.writeHead(error.status, {
            'content-type': 'application/json',
            'access-control-allow-origin': '*',
          });
          res.end(JSON.stringify({ error: error.body }));
          return;
        }
        const answer = stand.#handle(req, raw);
        if (stand.loseAnswers > 0 && (req.url ?? '').startsWith(stand.losePath)) {
          stand.loseAnswers -= 1;
          res.destroy();
          return;
        }
        res.writeHead(answer.status, {
          'content-type': 'application/json',
          'request-id': id('req'),
          ...(answer.replayed ? { 'idempotent-replayed': 'true' } : {}),
        });
        res.end(JSON.stringify(answer.body));
      });
    });
    await new Promise<void>((resolve, reject) => {
      stand.#server!.once('error', reject);
      stand.#server!.listen(port, '127.0.0.1', resolve);
    });
    stand.port = (stand.#server.address() as AddressInfo).port;
    return stand;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** The official SDK pointed at this stand-in. */
  client(secretKey = 'sk_test_standin'): Stripe {
    return new Stripe(secretKey, {
      host: '127.0.0.1',
      port: this.port,
      protocol: 'http',
      maxNetworkRetries: 0,
    });
  }

  async close(): Promise<void> {
    this.webhook = undefined;
    await this.#sending;
    this.#server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.#server ? this.#server.close(() => resolve()) : resolve()));
  }

  /** A ConfirmationToken as Stripe.js would create it from the Payment Element: a test card, or an APM. */
  /** `wallet` (apple_pay, google_pay): the card came from that wallet, as from Stripe's Express Checkout Element. */
  /** `setupFutureUsage`: what the Elements group was configured with (`off_session` while saving). */
  createConfirmationToken(paymentMethod: string, wallet?: string, setupFutureUsage?: string): Obj {
    return this.#createConfirmationToken({
      ...(APM_TYPES.includes(paymentMethod)
        ? { payment_method_data: { type: paymentMethod } }
        : { payment_method: paymentMethod, ...(wallet ? { wallet } : {}) }),
      ...(setupFutureUsage ? { setup_future_usage: setupFutureUsage } : {}),
    });
  }

  /**
   * The customer finishes (or fails) what a PaymentIntent or SetupIntent waits for: 3DS, or the APM's page.
   * Returns the intent, as Stripe.js would see it afterwards.
   */
  completeAction(intentId: string, succeed: boolean): Obj {
    const setup = intentId.startsWith('seti_');
    const intent = (setup ? this.setupIntents : this.paymentIntents).get(intentId);
    if (intent?.status !== 'requires_action') {
      throw new Error(`${intentId} is not waiting for the customer (${String(intent?.status)})`);
    }
    const pm = this.paymentMethods.get(String(intent.payment_method))!;
    if (succeed) {
      if (setup) this.#setupSucceeded(intent, pm);
      else this.#paymentSucceeded(intent);
      return intent;
    }
    const error = {
      type: 'invalid_request_error',
      code: setup ? 'setup_intent_authentication_failure' : 'payment_intent_authentication_failure',
      message:
        'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      payment_method: { id: pm.id, type: pm.type },
    };
    Object.assign(intent, {
      status: 'requires_payment_method',
      next_action: null,
      payment_method: null,
      [setup ? 'last_setup_error' : 'last_payment_error']: error,
    });
    this.#emit(setup ? 'setup_intent.setup_failed' : 'payment_intent.payment_failed', intent);
    return intent;
  }

  #handle(req: http.IncomingMessage, raw: string): { status: number; body: unknown; replayed?: boolean } {
    const method = req.method ?? 'GET';
    const url = new URL(req.url ?? '/', 'http://stripe');
    const key = req.headers['idempotency-key'] as string | undefined;
    this.requests.push({ method, path: url.pathname, idempotencyKey: key });
    const auth = req.headers.authorization ?? '';
    if (!/^Bearer (sk|rk)_(test|live)_\S+$/.test(auth)) {
      return {
        status: 401,
        body: { error: { type: 'invalid_request_error', message: 'Invalid API Key provided.' } },
      };
    }
    const route = routeOf(method, url.pathname);
    if (this.#overRateLimit(route)) {
      return {
        status: 429,
        body: {
          error: {
            type: 'invalid_request_error',
            code: 'rate_limit',
            message:
              'Request rate limit exceeded. You can learn more about rate limits here https://docs.stripe.com/rate-limits.',
          },
        },
      };
    }
    if (method === 'POST' && key) {
      const earlier = this.#replays.get(`${auth} ${key}`);
      if (earlier) {
        if (earlier.params !== `${url.pathname}?${raw}`) {
          return {
            status: 400,
            body: {
              error: {
                type: 'idempotency_error',
                message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
              },
            },
          };
        }
        return { status: earlier.status, body: earlier.body, replayed: true };
      }
    }
    let answer: { status: number; body: unknown };
    let executed = true;
    const params = parseForm(method === 'GET' ? url.search.slice(1) : raw);
    try {
      const unknown = unknownParameter(route, params);
      if (unknown !== undefined) {
        throw new StripeError(400, {
          type: 'invalid_request_error',
          code: 'parameter_unknown',
          message: `Received unknown parameter: ${unknown}`,
          param: unknown,
        });
      }
      answer = { status: 200, body: this.#expand(this.#route(method, url.pathname, params), params) };
    } catch (error) {
      if (!(error instanceof StripeError)) throw error;
      answer = { status: error.status, body: { error: this.#expandError(error.body, params) } };
      executed = error.executed;
    }
    // Answers are copies: a later change to the object must not change an answer already given (or replayed).
    answer = structuredClone(answer);
    // Stripe keeps an idempotent result only once the endpoint began executing, not for a refused validation.
    if (method === 'POST' && key && executed)
      this.#replays.set(`${auth} ${key}`, { params: `${url.pathname}?${raw}`, ...answer });
    return answer;
  }

  /** Counts a request to `route` in the current second of `rateClock`; true past `rateLimitPerSecond`. */
  #overRateLimit(route: string): boolean {
    const second = Math.floor(this.rateClock() / 1000);
    const window = this.#rates.get(route);
    const count = window?.second === second ? window.count + 1 : 1;
    this.#rates.set(route, { second, count });
    this.peakRequestsPerSecond = Math.max(this.peakRequestsPerSecond, count);
    return count > this.rateLimitPerSecond;
  }

  #route(method: string, path: string, params: Record<string, unknown>): Obj {
    const parts = path.split('/').filter(Boolean);
    if (parts[0] !== 'v1') throw missing('route', path);
    const [, resource, objectId, action] = parts;
    if (resource === 'customers' && method === 'POST' && !objectId) return this.#createCustomer(params);
    if (resource === 'customers' && method === 'GET' && objectId)
      return this.#get(this.customers, 'customer', objectId);
    if (resource === 'payment_intents') {
      if (method === 'POST' && !objectId) return this.#createPaymentIntent(params);
      const intent = this.#get(this.paymentIntents, 'payment_intent', objectId!);
      if (method === 'GET' && !action) return intent;
      if (method === 'POST' && action === 'confirm') return this.#confirm(intent, params);
      if (method === 'POST' && action === 'cancel') return this.#cancel(intent, 'payment_intent');
    }
    if (resource === 'setup_intents') {
      if (method === 'POST' && !objectId) return this.#createSetupIntent(params);
      const setup = this.#get(this.setupIntents, 'setup_intent', objectId!);
      if (method === 'GET' && !action) return setup;
      if (method === 'POST' && action === 'cancel') return this.#cancel(setup, 'setup_intent');
    }
    if (resource === 'payment_methods' && objectId) {
      const pm = this.#method(objectId);
      if (method === 'GET' && !action) return pm;
      if (method === 'POST' && action === 'detach') return Object.assign(pm, { customer: null });
    }
    if (resource === 'test_helpers' && objectId === 'confirmation_tokens' && method === 'POST') {
      return this.#createConfirmationToken(params);
    }
    if (resource === 'confirmation_tokens' && method === 'GET' && objectId) {
      return this.#get(this.confirmationTokens, 'confirmationtoken', objectId);
    }
    if (resource === 'refunds' && method === 'POST' && !objectId) return this.#refund(params);
    if (resource === 'refunds' && method === 'GET' && objectId)
      return this.#get(this.refunds, 'refund', objectId);
    if (resource === 'charges' && method === 'GET' && objectId)
      return this.#get(this.charges, 'charge', objectId);
    if (resource === 'balance_transactions' && method === 'GET' && objectId) {
      return this.#get(this.balanceTransactions, 'balance_transaction', objectId);
    }
    if (resource === 'events' && method === 'GET' && !objectId) return this.#listEvents(params);
    throw missing('route', path);
  }

  /**
   * `expand[]=payment_method`: the PaymentMethod object in place of its id (without the stand-in's notes);
   * `latest_charge` and `latest_charge.balance_transaction`: the Charge, and its BalanceTransaction in it.
   */
  #expand(object: Obj, params: Record<string, unknown>): Obj {
    const expand = Object.values((params.expand as Record<string, string>) ?? {});
    let expanded = object;
    if (expand.includes('payment_method') && typeof object.payment_method === 'string') {
      expanded = {
        ...expanded,
        payment_method: publicMethod(this.paymentMethods.get(object.payment_method)),
      };
    }
    const chargeId = object.latest_charge;
    const withTransaction = expand.includes('latest_charge.balance_transaction');
    if ((withTransaction || expand.includes('latest_charge')) && typeof chargeId === 'string') {
      const charge = this.charges.get(chargeId) ?? null;
      expanded = {
        ...expanded,
        latest_charge:
          charge && withTransaction
            ? {
                ...charge,
                balance_transaction: this.balanceTransactions.get(String(charge.balance_transaction)),
              }
            : charge,
      };
    }
    return expanded;
  }

  #expandError(body: Record<string, unknown>, params: Record<string, unknown>): Record<string, unknown> {
    if (body.setup_intent) return { ...body, setup_intent: this.#expand(body.setup_intent as Obj, params) };
    return body;
  }

  #get(map: Map<string, Obj>, kind: string, objectId: string): Obj {
    const found = map.get(objectId);
    if (!found) throw missing(kind, objectId);
    return found;
  }

  #method(pmId: string): Method {
    const pm = this.paymentMethods.get(pmId);
    if (!pm) throw missing('payment_method', pmId, 'payment_method');
    return pm;
  }

  #createCustomer(params: Record<string, unknown>): Obj {
    const customer: Obj = {
      id: id('cus'),
      object: 'customer',
      email: params.email ?? null,
      name: params.name ?? null,
      metadata: params.metadata ?? {},
      created: Math.floor(Date.now() / 1000),
      livemode: false,
    };
    this.customers.set(customer.id, customer);
    return customer;
  }

  /** A new PaymentMethod from a test card's name (`pm_card_visa`) or an APM type, as a confirmation creates. */
  #newMethod(template: string): Method {
    const known = TEST_PAYMENT_METHODS[template];
    if (!known && !APM_TYPES.includes(template)) throw missing('payment_method', template, 'payment_method');
    const pm: Method = {
      id: id('pm'),
      object: 'payment_method',
      type: known ? 'card' : template,
      card: known ? { ...known.card } : null,
      customer: null,
      behaviour: known ? known.behaviour : always(AUTH),
      created: Math.floor(Date.now() / 1000),
      livemode: false,
    };
    this.paymentMethods.set(pm.id, pm);
    return pm;
  }

  /** The PaymentMethod a confirmation uses: a saved one by id, or a new one from a test card's name. */
  #methodFor(pmId: string): Method {
    return this.paymentMethods.get(pmId) ?? this.#newMethod(pmId);
  }

  #createConfirmationToken(params: Record<string, unknown>): Obj {
    const data = params.payment_method_data as Record<string, unknown> | undefined;
    const source =
      typeof params.payment_method === 'string' ? params.payment_method : String(data?.type ?? '');
    const known = TEST_PAYMENT_METHODS[source] ?? this.paymentMethods.get(source);
    if (!known && !APM_TYPES.includes(source)) throw missing('payment_method', source, 'payment_method');
    const usage = params.setup_future_usage;
    if (usage !== undefined && usage !== 'off_session' && usage !== 'on_session') {
      throw invalid(
        `Invalid setup_future_usage: must be one of off_session or on_session`,
        'setup_future_usage',
      );
    }
    // `wallet` is the stand-in's own parameter: Stripe.js's Express Checkout Element sets it for real.
    const wallet = typeof params.wallet === 'string' ? { type: params.wallet } : null;
    const preview = known?.card
      ? { type: 'card', card: { ...known.card, wallet } }
      : { type: source, [source]: {} };
    const created = Math.floor(this.now() / 1000);
    const token: Obj = {
      id: id('ctoken'),
      object: 'confirmation_token',
      // Stripe's field is null until a PaymentMethod exists; the stand-in keeps the test method's name in it.
      payment_method: source,
      payment_method_preview: preview,
      payment_intent: null,
      setup_intent: null,
      return_url: typeof params.return_url === 'string' ? params.return_url : null,
      setup_future_usage: usage ?? null,
      use_stripe_sdk: true,
      created,
      expires_at: created + 12 * 3600,
      livemode: false,
    };
    this.confirmationTokens.set(token.id, token);
    return token;
  }

  #createPaymentIntent(params: Record<string, unknown>): Obj {
    const amount = Number(params.amount);
    if (!Number.isInteger(amount) || amount < 1) throw invalid('Invalid integer: amount', 'amount');
    if (typeof params.currency !== 'string') throw missingParam('currency');
    if (params.customer !== undefined) this.#get(this.customers, 'customer', String(params.customer));
    if (params.off_session !== undefined && params.confirm !== 'true') {
      throw invalid('You can only set `off_session` when `confirm` is true.', 'off_session');
    }
    const intentId = id('pi');
    const intent: Obj = {
      id: intentId,
      object: 'payment_intent',
      amount,
      amount_received: 0,
      currency: params.currency,
      customer: params.customer ?? null,
      description: params.description ?? null,
      metadata: params.metadata ?? {},
      status: 'requires_payment_method',
      payment_method: null,
      client_secret: `${intentId}_secret_${randomBytes(12).toString('hex')}`,
      last_payment_error: null,
      next_action: null,
      latest_charge: null,
      capture_method: 'automatic',
      confirmation_method: 'automatic',
      automatic_payment_methods: automaticPaymentMethods(params),
      payment_method_options: params.payment_method_options ?? {},
      setup_future_usage: params.setup_future_usage ?? null,
      created: Math.floor(Date.now() / 1000),
      livemode: false,
    };
    // A confirmation Stripe refuses by validation leaves no PaymentIntent behind.
    if (params.confirm === 'true') this.#checkConfirmation(intent, params);
    this.paymentIntents.set(intentId, intent);
    if (params.payment_method !== undefined) {
      intent.payment_method = this.#methodFor(String(params.payment_method)).id;
      intent.status = 'requires_confirmation';
    }
    return params.confirm === 'true' ? this.#confirm(intent, params) : intent;
  }

  /**
   * What Stripe checks before it confirms an intent (a PaymentIntent, or a SetupIntent with `setup`): a usable
   * ConfirmationToken or PaymentMethod, a `return_url` while the intent may use redirect methods (Stripe's
   * default, `automatic_payment_methods` with `allow_redirects: always`), and WeChat Pay's `client`. Returns the
   * type of the PaymentMethod that will pay. Throws a validation error (400/404) that changes nothing.
   */
  #checkConfirmation(intent: Obj, params: Record<string, unknown>, setup = false): string {
    let template: string | undefined;
    if (params.confirmation_token !== undefined) {
      const token = this.#get(
        this.confirmationTokens,
        'confirmationtoken',
        String(params.confirmation_token),
      );
      if (token.payment_intent !== null || token.setup_intent !== null) {
        throw invalid(
          `ConfirmationToken ${token.id} has already been used to confirm an intent; create a new one.`,
          'confirmation_token',
        );
      }
      if (Number(token.expires_at) * 1000 <= this.now()) {
        throw invalid(`ConfirmationToken ${token.id} has expired; create a new one.`, 'confirmation_token');
      }
      const expected = params.setup_future_usage ?? intent.setup_future_usage ?? null;
      if (!setup && token.setup_future_usage !== expected) {
        throw invalid(
          `The provided setup_future_usage (${String(token.setup_future_usage ?? 'none')}) does not match the expected setup_future_usage (${String(expected ?? 'none')}). Try confirming with an Intent that is configured to use the same parameters as Stripe Elements.`,
          'setup_future_usage',
        );
      }
      template = String(token.payment_method);
    } else if (params.payment_method !== undefined) {
      template = String(params.payment_method);
    } else if (intent.payment_method) {
      template = String(intent.payment_method);
    }
    if (template === undefined) {
      throw invalid(
        `You cannot confirm this ${setup ? 'SetupIntent' : 'PaymentIntent'} because it’s missing a payment method.`,
      );
    }
    const known = this.paymentMethods.get(template);
    const type = known ? known.type : TEST_PAYMENT_METHODS[template] ? 'card' : template;
    if (!known && !TEST_PAYMENT_METHODS[template] && !APM_TYPES.includes(template)) {
      throw missing('payment_method', template, 'payment_method');
    }
    const automatic = intent.automatic_payment_methods as {
      enabled: boolean;
      allow_redirects: string;
    } | null;
    const returnUrl = params.return_url ?? this.#tokenReturnUrl(params);
    if (automatic?.enabled && automatic.allow_redirects !== 'never' && typeof returnUrl !== 'string') {
      throw invalid(
        `A return_url must be specified because this ${setup ? 'Setup Intent' : 'Payment Intent'} is configured to automatically accept the payment methods enabled in the Dashboard, some of which may require a full page redirect to succeed. If you do not want to accept redirect-based payment methods, set \`automatic_payment_methods[enabled]\` to \`true\` and \`automatic_payment_methods[allow_redirects]\` to \`never\` when creating Setup Intents and Payment Intents.`,
        'return_url',
      );
    }
    if (automatic?.allow_redirects === 'never' && REDIRECT_TYPES.includes(type)) {
      throw invalid(
        `The PaymentMethod of type ${type} requires a redirect, but this intent's automatic_payment_methods[allow_redirects] is never.`,
        'payment_method',
      );
    }
    if (type === 'wechat_pay' && !setup) {
      const options = (params.payment_method_options ?? intent.payment_method_options) as
        | { wechat_pay?: { client?: unknown; app_id?: unknown } }
        | undefined;
      const client = options?.wechat_pay?.client;
      if (client === undefined) throw missingParam('payment_method_options[wechat_pay][client]');
      if (client !== 'web' && client !== 'ios' && client !== 'android') {
        throw invalid(
          'Invalid payment_method_options[wechat_pay][client]: must be one of android, ios, or web',
          'payment_method_options[wechat_pay][client]',
        );
      }
      if (client !== 'web' && options?.wechat_pay?.app_id === undefined) {
        throw missingParam('payment_method_options[wechat_pay][app_id]');
      }
    }
    return type;
  }

  #tokenReturnUrl(params: Record<string, unknown>): unknown {
    if (params.confirmation_token === undefined) return undefined;
    return this.confirmationTokens.get(String(params.confirmation_token))?.return_url ?? undefined;
  }

  /**
   * The PaymentMethod a confirmation names: the token's (a new one each time, as Stripe does; the token is then
   * used up) or the param.
   */
  #attach(intent: Obj, params: Record<string, unknown>, setup = false): Method {
    if (params.confirmation_token !== undefined) {
      const token = this.#get(
        this.confirmationTokens,
        'confirmationtoken',
        String(params.confirmation_token),
      );
      const pm = this.#methodFor(String(token.payment_method));
      intent.payment_method = pm.id;
      token[setup ? 'setup_intent' : 'payment_intent'] = intent.id;
    } else if (params.payment_method !== undefined) {
      intent.payment_method = this.#methodFor(String(params.payment_method)).id;
    }
    return this.#method(String(intent.payment_method));
  }

  /** Stripe's state machine for one confirmation; a card error answers 402 with the intent in the error. */
  #confirm(intent: Obj, params: Record<string, unknown>): Obj {
    if (!['requires_payment_method', 'requires_confirmation'].includes(String(intent.status))) {
      throw stateError(
        `You cannot confirm this PaymentIntent because it has a status of ${String(intent.status)}.`,
      );
    }
    this.#checkConfirmation(intent, params);
    if (params.payment_method_options !== undefined)
      intent.payment_method_options = params.payment_method_options;
    const pm = this.#attach(intent, params);
    const returnUrl = (params.return_url ?? this.#tokenReturnUrl(params)) as string | undefined;
    if (pm.type !== 'card') {
      const back = returnUrl ? `?return_url=${encodeURIComponent(returnUrl)}` : '';
      const url = `${this.url}/_standin/action/${intent.id}${back}`;
      intent.status = 'requires_action';
      intent.next_action =
        pm.type === 'alipay'
          ? { type: 'alipay_handle_redirect', alipay_handle_redirect: { url, return_url: returnUrl } }
          : {
              type: 'wechat_pay_display_qr_code',
              wechat_pay_display_qr_code: { data: url, hosted_instructions_url: url },
            };
      return intent;
    }
    const saved = pm.customer !== null && pm.customer === intent.customer;
    const step =
      params.off_session === 'true'
        ? pm.behaviour.offSession
        : saved
          ? pm.behaviour.onSessionSaved
          : pm.behaviour.onSession;
    if (step.kind === 'succeed') return this.#paymentSucceeded(intent);
    if (step.kind === 'authenticate') {
      return this.#awaitAuthentication(intent, this.#usesStripeSdk(params), returnUrl);
    }
    const lastError = cardError(step, pm);
    Object.assign(intent, {
      status: 'requires_payment_method',
      last_payment_error: lastError,
      payment_method: null,
      latest_charge: id('ch'),
    });
    this.#emit('payment_intent.payment_failed', intent);
    throw new StripeError(402, { ...lastError, payment_intent: structuredClone(intent) }, true);
  }

  /** Whether the client's Stripe SDK will handle the next action: asked for, or the ConfirmationToken's default. */
  #usesStripeSdk(params: Record<string, unknown>): boolean {
    if (params.use_stripe_sdk !== undefined) return params.use_stripe_sdk === 'true';
    if (params.confirmation_token === undefined) return false;
    return this.confirmationTokens.get(String(params.confirmation_token))?.use_stripe_sdk === true;
  }

  /**
   * 3DS. With Stripe's SDK (`use_stripe_sdk`) Stripe.js shows the issuer's page in the page (the stand-in's, at
   * `/_standin/action/<id>`); without, the customer is sent to it (`redirect_to_url`) and back to `return_url`.
   */
  #awaitAuthentication(intent: Obj, sdk: boolean, returnUrl: string | undefined): Obj {
    const page = `${this.url}/_standin/action/${intent.id}`;
    return Object.assign(intent, {
      status: 'requires_action',
      next_action:
        sdk || !returnUrl
          ? {
              type: 'use_stripe_sdk',
              use_stripe_sdk: { type: 'three_d_secure_redirect', stripe_js: page },
            }
          : {
              type: 'redirect_to_url',
              redirect_to_url: {
                url: `${page}?return_url=${encodeURIComponent(returnUrl)}`,
                return_url: returnUrl,
              },
            },
    });
  }

  #paymentSucceeded(intent: Obj): Obj {
    const chargeId = id('ch');
    const transactionId = id('txn');
    const nowSeconds = Math.floor(this.now() / 1000);
    const availableOn = (Math.floor(nowSeconds / 86_400) + this.settlementDays) * 86_400;
    this.balanceTransactions.set(transactionId, {
      id: transactionId,
      object: 'balance_transaction',
      amount: intent.amount,
      currency: intent.currency,
      available_on: availableOn,
      created: nowSeconds,
      status: 'pending',
      type: 'charge',
      source: chargeId,
    });
    this.charges.set(chargeId, {
      id: chargeId,
      object: 'charge',
      amount: intent.amount,
      amount_refunded: 0,
      currency: intent.currency,
      payment_intent: intent.id,
      balance_transaction: transactionId,
      disputed: false,
      status: 'succeeded',
      created: nowSeconds,
    });
    Object.assign(intent, {
      status: 'succeeded',
      amount_received: intent.amount,
      latest_charge: chargeId,
      last_payment_error: null,
      next_action: null,
    });
    this.#emit('payment_intent.succeeded', intent);
    return intent;
  }

  #createSetupIntent(params: Record<string, unknown>): Obj {
    if (params.customer !== undefined) this.#get(this.customers, 'customer', String(params.customer));
    const setupId = id('seti');
    const setup: Obj = {
      id: setupId,
      object: 'setup_intent',
      customer: params.customer ?? null,
      usage: params.usage ?? 'off_session',
      metadata: params.metadata ?? {},
      status: 'requires_payment_method',
      payment_method: null,
      client_secret: `${setupId}_secret_${randomBytes(12).toString('hex')}`,
      last_setup_error: null,
      next_action: null,
      automatic_payment_methods: automaticPaymentMethods(params),
      created: Math.floor(Date.now() / 1000),
      livemode: false,
    };
    if (params.confirm === 'true') this.#checkConfirmation(setup, params, true);
    this.setupIntents.set(setupId, setup);
    if (params.confirm !== 'true') return setup;
    const pm = this.#attach(setup, params, true);
    const step = pm.behaviour.setup;
    if (step.kind === 'succeed') return this.#setupSucceeded(setup, pm);
    if (step.kind === 'authenticate') {
      return this.#awaitAuthentication(
        setup,
        this.#usesStripeSdk(params),
        (params.return_url ?? this.#tokenReturnUrl(params)) as string | undefined,
      );
    }
    const lastError = cardError(step, pm);
    Object.assign(setup, {
      status: 'requires_payment_method',
      last_setup_error: lastError,
      payment_method: null,
    });
    this.#emit('setup_intent.setup_failed', setup);
    throw new StripeError(
      402,
      { ...lastError, setup_intent: { ...structuredClone(setup), payment_method: pm.id } },
      true,
    );
  }

  #setupSucceeded(setup: Obj, pm: Method): Obj {
    pm.customer = (setup.customer as string | null) ?? null;
    Object.assign(setup, { status: 'succeeded', next_action: null, last_setup_error: null });
    this.#emit('setup_intent.succeeded', setup);
    return setup;
  }

  /** Canceling clears the last error, as Stripe does: whoever needs the refusal must read it first. */
  #cancel(intent: Obj, kind: 'payment_intent' | 'setup_intent'): Obj {
    if (['succeeded', 'canceled', 'processing'].includes(String(intent.status))) {
      const name = kind === 'payment_intent' ? 'PaymentIntent' : 'SetupIntent';
      throw stateError(
        `You cannot cancel this ${name} because it has a status of ${String(intent.status)}. Only a ${name} with one of the following statuses may be canceled: requires_payment_method, requires_capture, requires_confirmation, requires_action.`,
      );
    }
    Object.assign(intent, {
      status: 'canceled',
      canceled_at: Math.floor(Date.now() / 1000),
      next_action: null,
      [kind === 'payment_intent' ? 'last_payment_error' : 'last_setup_error']: null,
    });
    this.#emit(`${kind}.canceled`, intent);
    return intent;
  }

  /**
   * A refund, `succeeded` at once or, with `refundsPending`, `pending` until `settleRefund` (as card refunds may
   * stay while the network confirms). The charge's `amount_refunded` counts it either way, as Stripe's does.
   */
  #refund(params: Record<string, unknown>): Obj {
    if (params.payment_intent === undefined && params.charge === undefined) {
      throw invalid(
        'One of the following params should be provided for this request: payment_intent or charge.',
      );
    }
    const intent = this.#get(this.paymentIntents, 'payment_intent', String(params.payment_intent ?? ''));
    if (intent.status !== 'succeeded') {
      throw invalid(`This PaymentIntent (${intent.id}) does not have a successful charge to refund.`);
    }
    const refunded = this.#refundedOf(intent.id);
    const amount = params.amount === undefined ? Number(intent.amount) - refunded : Number(params.amount);
    if (amount < 1 || refunded + amount > Number(intent.amount)) {
      throw invalid(
        `Refund amount (£${(amount / 100).toFixed(2)}) is greater than unrefunded amount on charge (£${((Number(intent.amount) - refunded) / 100).toFixed(2)})`,
        'amount',
      );
    }
    const refund: Obj = {
      id: id('re'),
      object: 'refund',
      amount,
      currency: intent.currency,
      payment_intent: intent.id,
      charge: intent.latest_charge,
      status: this.refundsPending ? 'pending' : 'succeeded',
      failure_reason: null,
      metadata: params.metadata ?? {},
      created: Math.floor(Date.now() / 1000),
    };
    this.refunds.set(refund.id, refund);
    const charge = this.#get(this.charges, 'charge', String(intent.latest_charge));
    charge.amount_refunded = refunded + amount;
    this.#emit('refund.created', refund);
    this.#emit('charge.refunded', charge);
    return refund;
  }

  /** What a PaymentIntent's refunds take back: all but those that failed or were canceled. */
  #refundedOf(intentId: string): number {
    return [...this.refunds.values()]
      .filter((r) => r.payment_intent === intentId && r.status !== 'failed' && r.status !== 'canceled')
      .reduce((sum, r) => sum + Number(r.amount), 0);
  }

  /** Refunds start `pending` (set before refunding) instead of `succeeded`, until `settleRefund`. */
  refundsPending = false;

  /**
   * A refund ends: a `pending` one succeeds or fails, or a `succeeded` one fails later (Stripe's test card
   * 4000 0000 0000 5126 does this), e.g. because the card was closed. Sends `refund.updated` and
   * `charge.refund.updated`, and `refund.failed` on failure; a failed refund's amount is no longer refunded.
   */
  settleRefund(
    refundId: string,
    status: 'succeeded' | 'failed',
    failureReason = 'expired_or_canceled_card',
  ): void {
    const refund = this.#get(this.refunds, 'refund', refundId);
    if (refund.status === 'failed' || (refund.status === 'succeeded' && status === 'succeeded')) {
      throw new Error(`${refundId} is ${String(refund.status)}: it cannot become ${status}`);
    }
    Object.assign(refund, { status, failure_reason: status === 'failed' ? failureReason : null });
    if (status === 'failed') {
      const charge = this.#get(this.charges, 'charge', String(refund.charge));
      charge.amount_refunded = this.#refundedOf(String(refund.payment_intent));
      this.#emit('refund.failed', refund);
    }
    this.#emit('refund.updated', refund);
    this.#emit('charge.refund.updated', refund);
  }

  /**
   * The cardholder disputes a succeeded payment (in test mode, Stripe's `pm_card_createDispute` card does this):
   * a Dispute (of `amount` pence, default all that is not refunded) needing a response, and `charge.dispute.created`.
   * Returns the dispute's id.
   */
  openDispute(intentId: string, amount?: number, status = 'needs_response'): string {
    const intent = this.#get(this.paymentIntents, 'payment_intent', intentId);
    const charge = this.#get(this.charges, 'charge', String(intent.latest_charge));
    const dispute: Obj = {
      id: id('dp'),
      object: 'dispute',
      // Usually what is left of the charge; less when only part of it is disputed.
      amount: amount ?? Number(charge.amount) - Number(charge.amount_refunded),
      currency: charge.currency,
      charge: charge.id,
      payment_intent: intent.id,
      reason: 'fraudulent',
      status,
      created: Math.floor(this.now() / 1000),
    };
    this.disputes.set(dispute.id, dispute);
    charge.disputed = true;
    this.#emit('charge.dispute.created', dispute);
    return dispute.id;
  }

  /** The dispute ends (`won`, `lost`, or `warning_closed` for an inquiry): `charge.dispute.closed`. */
  closeDispute(disputeId: string, status: 'won' | 'lost' | 'warning_closed'): void {
    const dispute = this.#get(this.disputes, 'dispute', disputeId);
    dispute.status = status;
    this.#emit('charge.dispute.closed', dispute);
  }

  /**
   * Where events are POSTed as they happen (signed with `secret`), as Stripe sends them to a registered endpoint;
   * unset, tests deliver them with deliverStripeEvents.
   */
  webhook: { url: string; secret: string } | undefined;
  #sending: Promise<void> = Promise.resolve();

  #emit(type: string, object: Obj): void {
    const event: StandInEvent = { id: id('evt'), type, object: structuredClone(object), delivered: false };
    this.events.push(event);
    const webhook = this.webhook;
    if (!webhook) return;
    // In order, one at a time, as Stripe's retries would eventually deliver them.
    this.#sending = this.#sending.then(async () => {
      const { body, signature } = this.signedEvent(event.type, event.object, webhook.secret, event.id);
      const response = await fetch(webhook.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body,
      }).catch(() => undefined);
      event.delivered = response?.ok === true;
    });
  }

  /** GET /v1/events: newest first, optionally of one `type`, as Stripe's Events API lists them. */
  #listEvents(params: Record<string, unknown>): Obj {
    const limit = Math.min(Number(params.limit ?? 10), 100);
    const data = this.events
      .filter((event) => params.type === undefined || event.type === params.type)
      .reverse()
      .slice(0, limit)
      .map((event) => JSON.parse(this.signedEvent(event.type, event.object, 'whsec_list', event.id).body));
    return { object: 'list', url: '/v1/events', has_more: false, data } as unknown as Obj;
  }

  /** Resolves once every event emitted so far has been POSTed to `webhook`. */
  eventsSent(): Promise<void> {
    return this.#sending;
  }

  /** A Stripe-signed event for `object`, as Stripe would POST it to an endpoint with `webhookSecret`. */
  signedEvent(
    type: string,
    object: Record<string, unknown>,
    webhookSecret: string,
    eventId = id('evt'),
  ): { body: string; signature: string; eventId: string } {
    const body = JSON.stringify({
      id: eventId,
      object: 'event',
      type,
      // The version of the official package, which the webhook endpoint is registered with.
      api_version: Stripe.API_VERSION,
      created: Math.floor(Date.now() / 1000),
      data: { object },
      livemode: false,
    });
    const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret: webhookSecret });
    return { body, signature, eventId };
  }
}

/** A declined step as Stripe's API reports it (a card_error naming the PaymentMethod). */
function cardError(step: Extract<Step, { kind: 'decline' }>, pm: Method): Record<string, unknown> {
  return {
    type: 'card_error',
    code: step.code,
    ...(step.decline_code ? { decline_code: step.decline_code } : {}),
    message: step.message,
    payment_method: publicMethod(pm),
  };
}

/** A PaymentMethod as Stripe's API shows it (the stand-in's behaviour notes left out). */
function publicMethod(pm: Method | undefined): Obj | null {
  if (!pm) return null;
  const { behaviour: _behaviour, ...rest } = pm;
  return { ...rest, ...(pm.type === 'card' ? {} : { [pm.type]: {} }) };
}

/**
 * An intent's `automatic_payment_methods`: as asked, or Stripe's default for our API version (the Dashboard's
 * methods, redirects allowed) when no payment method types are named.
 */
function automaticPaymentMethods(params: Record<string, unknown>): Record<string, unknown> | null {
  const asked = params.automatic_payment_methods as
    | { enabled?: string; allow_redirects?: string }
    | undefined;
  if (asked) {
    if (asked.allow_redirects !== undefined && !['always', 'never'].includes(asked.allow_redirects)) {
      throw invalid(
        'Invalid automatic_payment_methods[allow_redirects]: must be one of always or never',
        'automatic_payment_methods[allow_redirects]',
      );
    }
    return { enabled: asked.enabled === 'true', allow_redirects: asked.allow_redirects ?? 'always' };
  }
  if (params.allowed_payment_method_types !== undefined) return null;
  return { enabled: true, allow_redirects: 'always' };
}
