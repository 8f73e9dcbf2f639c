import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import {
  ApiProblem,
  ClientApi,
  type Payment,
  type PaymentMethod,
  type Quote,
  type SavedCard,
  type Session,
  type SessionAmount,
} from './api.ts';
import { CardForm, type CardFormHandle } from './CardForm.tsx';
import {
  applyAppearance,
  type Embed,
  type EmbedOptions,
  type FeatureName,
  readChanges,
  readOptions,
} from './embed.ts';
import { lazyModule, PART_FAILED } from './lazy.ts';
import { feePence, formatPence, longDate, money, moneyOf, parsePence } from './money.ts';
import { SavedCards } from './SavedCards.tsx';
import { type ActionView, StepPanel } from './StepPanel.tsx';
import type { StripeFieldsHandle } from './StripeFields.tsx';
import { pollUntil } from './steps.ts';

const METHOD_LABELS: Record<PaymentMethod, string> = {
  card: 'Card',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
  alipay: 'Alipay',
  wechat_pay: 'WeChat Pay',
  unionpay: 'UnionPay',
};
const WALLETS: PaymentMethod[] = ['apple_pay', 'google_pay'];
const APMS: PaymentMethod[] = ['alipay', 'wechat_pay', 'unionpay'];
const NEW_CARD = 'new';
/** How long a `processing` payment is polled before pay() settles with `payment_pending`. */
const PROCESSING_DEADLINE_MS = 3 * 60_000;

// Loaded on demand: the page with Stripe, and the Recurring rent tab once the tenant opens it.
type StripeMode = typeof import('./stripe-mode.ts');
const loadStripeMode = lazyModule(() => import('./stripe-mode.ts'));
type RecurringPart = typeof import('./Recurring.tsx');
const loadRecurring = lazyModule(() => import('./Recurring.tsx'));

type Phase =
  | { name: 'loading' }
  /** `inPage`: it lapsed while the page was open and nothing was paid (else the link was stale when opened). */
  | { name: 'expired'; inPage?: boolean }
  | { name: 'unavailable'; title: string; message: string }
  | { name: 'ready' }
  | { name: 'step'; view: ActionView }
  /** `reopened`: the session was paid before this page opened (a receipt, not a fresh success). */
  | { name: 'succeeded'; payment: Payment; reopened?: boolean };

export interface Credentials {
  token: string;
  /** Absent inside the SDK's iframe: the SDK has the token only. */
  sessionId: string | undefined;
}

/** What the SDK's promise rejects with (contract §3): `{code, message, payment_id?, decline_code?}`. */
export interface PaymentError {
  code: string;
  message: string;
  payment_id?: string;
  decline_code?: string;
  pure_amount?: string;
  quote?: Quote;
}

type Outcome = { payment: Payment } | { error: PaymentError };

const MONTH = new Intl.DateTimeFormat('en-GB', { month: 'long', timeZone: 'UTC' });

/** "December rent, due 1 December 2026, to Acme Lettings": what the tenant is paying for, and to whom. */
function rentContext(tenancy: Session['tenancy']): string {
  const due = tenancy.next_due_date;
  if (!due) return `Rent to ${tenancy.payee}`;
  const month = MONTH.format(new Date(`${due}T00:00:00Z`));
  return `${month} rent, due ${longDate(due)}, to ${tenancy.payee}`;
}

function newIdempotencyKey(): string {
  return `page_${crypto.randomUUID()}`;
}

/** An outcome the page decided itself (a cancelled card check, a payment still processing), with its code. */
class OutcomeError extends Error {
  constructor(readonly outcome: PaymentError) {
    super(outcome.message);
  }
}

/** What the tenant reads for refusals that are about the service, not the form (the code goes to the SDK as is). */
const TENANT_MESSAGES: Record<string, string> = {
  integrator_suspended:
    'Payments are unavailable right now. You have not been charged. Please try again later.',
  too_many_attempts:
    'Too many declined cards: for your security, no more payments can be tried for now. You have not been charged. Please try again later.',
  rate_limited:
    'Too many attempts in a short time. You have not been charged. Please wait a moment and try again.',
};

function errorOf(error: unknown): PaymentError {
  if (error instanceof OutcomeError) return error.outcome;
  if (error instanceof ApiProblem) {
    if (error.sessionExpired) return { code: 'session_expired', message: 'The payment session has expired.' };
    return {
      code: error.code,
      message: TENANT_MESSAGES[error.code] ?? error.message,
      ...(error.quote ? { quote: error.quote } : {}),
    };
  }
  return { code: 'unexpected', message: error instanceof Error ? error.message : String(error) };
}

/**
 * Whether the SDK's options fit the session's amount: the platform's server fixes it at user-login and the
 * integrator's page can only narrow it (contract: the browser never widens the amount).
 */
function amountMismatch(amount: SessionAmount, options: EmbedOptions): PaymentError | undefined {
  if (!amount.editable && amount.pure_amount !== null) {
    const differs =
      options.pure_amount !== null && parsePence(options.pure_amount) !== parsePence(amount.pure_amount);
    if (differs || options.isAmountEditable) {
      return {
        code: 'amount_mismatch',
        message: differs
          ? `The amount of this session is fixed at ${amount.pure_amount} by the platform; pure_amount ${options.pure_amount} does not match it.`
          : `The amount of this session is fixed at ${amount.pure_amount} by the platform; isAmountEditable cannot be true.`,
        pure_amount: amount.pure_amount,
      };
    }
    return undefined;
  }
  if (options.pure_amount === null && amount.pure_amount === null && !options.isAmountEditable) {
    return {
      code: 'invalid_option',
      message: 'pure_amount is required unless the session has an amount or isAmountEditable is true.',
    };
  }
  return undefined;
}

/** The integrator is suspended: no form, whether found at load or at Pay. */
function suspendedPhase(failure: PaymentError): Phase {
  return { name: 'unavailable', title: 'Payments unavailable', message: failure.message };
}

/** What the tenant can do after a failed payment, by its reason; every failure says nothing was charged. */
const NEXT_STEPS: Record<string, string> = {
  card_declined: 'Try another card, or ask your bank why it was declined.',
  insufficient_funds: 'Try another card or another way to pay.',
  expired_card: 'Check the expiry date, or use another card.',
  incorrect_cvc: 'Check the 3-digit security code on the back of your card and try again.',
  authentication_failed: 'Try again and complete your bank’s check, or use another card.',
};

/** The failure as the tenant reads it on the page: the reason, that nothing was charged, and what to do next. */
function tenantFailureMessage(failure: PaymentError): string {
  if (failure.code !== 'payment_failed') return failure.message;
  const next = NEXT_STEPS[failure.decline_code ?? ''] ?? 'Try again, or choose another way to pay.';
  return `${failure.message} You have not been charged. ${next}`;
}

function failureOf(payment: Payment): PaymentError {
  if (payment.status === 'canceled') {
    return {
      code: 'payment_canceled',
      message: 'The payment was cancelled. You have not been charged.',
      payment_id: payment.payment_id,
    };
  }
  return {
    code: 'payment_failed',
    message: payment.failure_message ?? 'The payment failed.',
    payment_id: payment.payment_id,
    ...(payment.failure_code ? { decline_code: payment.failure_code } : {}),
  };
}

export function App({
  credentials,
  embed,
}: {
  credentials: Credentials | undefined;
  embed?: Embed | undefined;
}) {
  const api = useMemo(() => credentials && new ClientApi(credentials.token), [credentials]);
  const [phase, setPhase] = useState<Phase>({ name: 'loading' });
  const [session, setSession] = useState<Session>();
  const [options, setOptions] = useState<EmbedOptions>();
  const [cards, setCards] = useState<SavedCard[]>([]);
  const [amount, setAmount] = useState('');
  const [amountError, setAmountError] = useState<string>();
  const [method, setMethod] = useState<PaymentMethod>('card');
  const [choice, setChoice] = useState(NEW_CARD);
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [view, setView] = useState<'pay' | 'recurring'>('pay');
  const busyRef = useRef(false);
  /** The session's fixed amount once loaded (read by the SDK message listener). */
  const fixedAmount = useRef<string | null>(null);
  const [notice, setNotice] = useState<string>();
  /** After 409 amount_changed: the service's price, shown (and sent) while the amount and method stay the same. */
  const [quoted, setQuoted] = useState<{ method: PaymentMethod; quote: Quote }>();
  const cardForm = useRef<CardFormHandle>(null);
  const stripeFields = useRef<StripeFieldsHandle>(null);
  const stepAbort = useRef<AbortController | undefined>(undefined);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const savedCardsRef = useRef<HTMLLegendElement>(null);
  /** After a saved card is deleted its button is gone: focus goes to the saved cards (or the new card form). */
  const focusAfterDelete = useRef(false);
  const submitRef = useRef<((walletToken?: string) => Promise<Outcome | undefined>) | undefined>(undefined);
  /** The session lapsed: every path ends here, so the SDK hears of it (`error`) as well as the tenant. */
  const expire = (
    failure: PaymentError = { code: 'session_expired', message: 'The payment session has expired.' },
  ) => {
    stepAbort.current?.abort();
    setPhase({ name: 'expired', inPage: true });
    embed?.post('error', { error: failure });
    embed?.post('expired', { error: failure });
  };
  /** Set with a problem or notice the tenant caused (Pay, a card action): focus goes to it, never on load. */
  const focusAlert = useRef(false);
  const alertRef = useRef<HTMLDivElement>(null);
  const showProblem = (message: string) => {
    focusAlert.current = true;
    setProblem(message);
  };
  const phaseName = useRef(phase.name);
  phaseName.current = phase.name;
  const [expiringSoon, setExpiringSoon] = useState(false);
  const debug = (...args: unknown[]) => {
    if (options?.debug) console.info('[rentpay frame]', ...args);
  };

  // Inside the SDK's iframe: say we are here, then wait for SVC.init's options.
  useEffect(() => {
    if (!embed) return;
    embed.watchHeight();
    const stop = embed.listen((message) => {
      if (message.type === 'init') {
        const received = readOptions(message.options);
        if (!received.ok) {
          embed.post('init_error', { error: { code: 'invalid_option', message: received.message } });
          return;
        }
        applyAppearance(received.value.appearance);
        setOptions(received.value);
      } else if (message.type === 'update') {
        const read = readChanges(message.changes);
        // The SDK checked them already; anything else did not come from it, and changes nothing.
        if (!read.ok) return;
        const changes = read.value;
        if (changes.appearance !== undefined) applyAppearance(changes.appearance);
        // The SDK refuses another amount on a fixed session; a message that still carries one changes nothing.
        if (fixedAmount.current !== null) delete changes.pure_amount;
        setOptions((current) => current && { ...current, ...changes });
        if (typeof changes.pure_amount === 'string') setAmount(changes.pure_amount);
      } else if (message.type === 'pay') {
        const id = message.id;
        const run = submitRef.current;
        const done = (outcome: Outcome | undefined) =>
          embed.post('pay_result', {
            id,
            ...(outcome ?? {
              error: { code: 'validation_error', message: 'Check the highlighted fields and try again.' },
            }),
          });
        if (!run) {
          done({ error: { code: 'not_ready', message: 'The payment form is not ready yet.' } });
          return;
        }
        run().then(done, (error: unknown) => done({ error: errorOf(error) }));
      }
    });
    embed.post('loaded');
    return stop;
  }, [embed]);

  useEffect(() => {
    if (!api || !credentials) {
      setPhase({ name: 'expired' });
      embed?.post('init_error', { error: { code: 'session_expired', message: 'No valid session token.' } });
      return;
    }
    if (embed && !options) return;
    (async () => {
      try {
        const loaded = await api.session();
        if (credentials.sessionId !== undefined && loaded.session_id !== credentials.sessionId) {
          return setPhase({ name: 'expired' });
        }
        if (embed && options) {
          const mismatch = amountMismatch(loaded.amount, options);
          if (mismatch) {
            embed.post('init_error', { error: mismatch });
            return setPhase({
              name: 'unavailable',
              title: 'Payment form not available',
              message: mismatch.message,
            });
          }
        }
        fixedAmount.current = loaded.amount.editable ? null : loaded.amount.pure_amount;
        setSession(loaded);
        if (loaded.paid) {
          // A session paid already (a reload, the link opened again): its receipt, never a new Pay form.
          setPhase({ name: 'succeeded', payment: { ...loaded.paid, next_action: null }, reopened: true });
          embed?.post('ready', {
            environment: loaded.environment,
            session_id: loaded.session_id,
            amount: loaded.amount,
          });
          return;
        }
        setAmount(
          embed
            ? (options?.pure_amount ?? loaded.amount.pure_amount ?? '')
            : (loaded.amount.pure_amount ?? loaded.tenancy.rent_amount),
        );
        if (loaded.features.savedCards && options?.features.savedCards !== false) {
          const saved = await api.cards();
          setCards(saved);
          const preferred = saved.find((card) => card.is_default) ?? saved[0];
          if (preferred) setChoice(preferred.card_id);
        }
        setPhase({ name: 'ready' });
        embed?.post('ready', {
          environment: loaded.environment,
          session_id: loaded.session_id,
          amount: loaded.amount,
        });
      } catch (error) {
        const failure = errorOf(error);
        embed?.post('init_error', { error: failure });
        if (failure.code === 'session_expired') return setPhase({ name: 'expired' });
        if (failure.code === 'integrator_suspended') return setPhase(suspendedPhase(failure));
        setProblem(failure.message);
        setPhase({ name: 'ready' });
      }
    })();
    // Options change later only through 'update', which must not reload the session.
  }, [api, credentials, embed, options === undefined]);

  // The heading takes focus when the page moves to another state (a step, the outcome), never on load: focusing
  // inside a frame scrolls the integrator's page to it.
  const previousPhase = useRef(phase.name);
  useEffect(() => {
    const previous = previousPhase.current;
    previousPhase.current = phase.name;
    // A step (3DS, a wallet sheet, an APM) focuses its own heading.
    if (
      phase.name !== 'loading' &&
      phase.name !== 'step' &&
      previous !== 'loading' &&
      previous !== phase.name
    )
      headingRef.current?.focus();
  }, [phase.name]);

  useEffect(() => {
    if (!focusAlert.current || !(problem || notice)) return;
    focusAlert.current = false;
    alertRef.current?.focus();
  }, [problem, notice]);

  // A minute before the token or the session lapses, say so; when it lapses, end on "Session expired" at once
  // rather than at the next click (a payment already made keeps its receipt).
  const expiresIn = session?.expires_in_seconds;
  useEffect(() => {
    if (expiresIn === undefined) return;
    const warn = setTimeout(() => setExpiringSoon(true), Math.max(0, expiresIn - 60) * 1000);
    const lapse = setTimeout(() => {
      if (phaseName.current === 'ready' || phaseName.current === 'step') expire();
    }, expiresIn * 1000);
    return () => {
      clearTimeout(warn);
      clearTimeout(lapse);
    };
  }, [expiresIn]);

  useEffect(() => {
    if (!focusAfterDelete.current) return;
    focusAfterDelete.current = false;
    if (savedCardsRef.current) savedCardsRef.current.focus();
    else document.getElementById('card-number')?.focus();
  }, [cards]);

  const purePence = parsePence(amount);
  const quotedFee =
    quoted?.method === method && purePence === parsePence(quoted.quote.pure_amount)
      ? parsePence(quoted.quote.fee)
      : undefined;
  const fee =
    purePence === undefined || !session ? 0 : (quotedFee ?? feePence(purePence, session.fees[method]));
  const total = purePence === undefined ? undefined : formatPence(purePence + fee);

  useEffect(() => {
    if (phase.name !== 'ready') return;
    embed?.post('change', {
      method,
      pure_amount: purePence === undefined ? null : formatPence(purePence),
      fee: formatPence(fee),
      amount: total ?? null,
    });
  }, [embed, phase.name, method, purePence, fee, total]);

  // The parts loaded on demand, requested as soon as they can be needed (hooks, so before any early return).
  const [stripeMode, setStripeMode] = useState<StripeMode>();
  const [recurringPart, setRecurringPart] = useState<RecurringPart>();
  useEffect(() => {
    if (view === 'recurring') loadRecurring().then(setRecurringPart, () => setProblem(PART_FAILED));
  }, [view]);
  const withStripe = session?.processor.name === 'stripe';
  useEffect(() => {
    if (withStripe) loadStripeMode().then(setStripeMode, () => setProblem(PART_FAILED));
  }, [withStripe]);

  if (phase.name === 'loading') {
    return (
      <p class="status" role="status">
        Loading your payment…
      </p>
    );
  }
  if (phase.name === 'unavailable') {
    return (
      <section class="panel" aria-labelledby="unavailable-title">
        <h1 id="unavailable-title" ref={headingRef} tabIndex={-1}>
          {phase.title}
        </h1>
        <p>{phase.message}</p>
      </section>
    );
  }
  if (phase.name === 'expired' || !session || !api) {
    return (
      <section class="panel" aria-labelledby="expired-title">
        <h1 id="expired-title" ref={headingRef} tabIndex={-1}>
          Session expired
        </h1>
        {phase.name === 'expired' && phase.inPage ? (
          <p>
            Your payment session timed out before a payment was made, so{' '}
            <strong>you have not been charged</strong>.
          </p>
        ) : (
          <p>This payment link has expired or is not valid.</p>
        )}
        <p>To pay, go back to your rental platform and open the payment again: it starts a new session.</p>
      </section>
    );
  }

  const enabled = (feature: FeatureName) => session.features[feature] && options?.features[feature] !== false;
  // The platform's server decides: a fixed amount is never editable; the SDK may narrow an editable one further.
  const amountEditable = session.amount.editable && (!embed || options?.isAmountEditable === true);
  const minPence = parsePence(session.limits.min_amount) ?? 100;
  const maxPence = parsePence(session.limits.max_amount) ?? Number.MAX_SAFE_INTEGER;

  if (phase.name === 'succeeded') {
    const paid = phase.payment;
    return (
      <section class="panel result success" aria-labelledby="success-title">
        <h1 id="success-title" ref={headingRef} tabIndex={-1}>
          {phase.reopened ? 'Rent paid' : 'Payment successful'}
        </h1>
        <p>
          You paid <strong>{moneyOf(paid.amount)}</strong> for your rent at {session.tenancy.address_1}
          {phase.reopened ? ` on ${longDate(paid.updated_at)}` : ''}.
        </p>
        {phase.reopened ? <p>This payment is complete: there is nothing more to pay here.</p> : null}
        <dl class="summary">
          <dt>Payment</dt>
          <dd>{paid.payment_id}</dd>
          <dt>Reference</dt>
          <dd>{paid.reference}</dd>
          <dt>Method</dt>
          <dd>
            {METHOD_LABELS[paid.method]}
            {paid.card ? ` •••• ${paid.card.last4}` : ''}
          </dd>
        </dl>
      </section>
    );
  }

  const amountProblem = (): string | undefined => {
    if (purePence === undefined) return 'Enter an amount in pounds, e.g. 1,200.00.';
    if (purePence < minPence || purePence > maxPence) {
      return `Enter an amount from ${moneyOf(session.limits.min_amount)} to ${moneyOf(session.limits.max_amount)}.`;
    }
    return undefined;
  };

  const stripeKeys = session.processor.name === 'stripe' ? session.processor.stripe : undefined;

  /**
   * Stripe's step for a payment or a card being saved: a redirect method (Alipay) opens its page in a window
   * (`redirect` answers with the URL); anything else (3DS, a WeChat Pay QR code) Stripe.js shows in the page.
   * Resolves once Stripe.js is done; the outcome is read from our server.
   */
  const stripeStep = async (clientSecret: string, redirect?: (url: string) => Promise<void>) => {
    if (!stripeKeys) throw new Error('A Stripe step without Stripe keys.');
    const { loadStripe, redirectUrlOf } = await loadStripeMode();
    const stripe = await loadStripe(stripeKeys.js_url, stripeKeys.publishable_key);
    if (redirect && !clientSecret.startsWith('seti_')) {
      const url = redirectUrlOf((await stripe.retrievePaymentIntent(clientSecret)).paymentIntent);
      if (url) return redirect(url);
    }
    debug('stripe next action');
    await stripe.handleNextAction({ clientSecret });
  };

  /** Shows the step (3DS, APM) and waits for the payment to leave it; returns the payment as it ends. */
  const followPayment = async (first: Payment): Promise<Payment> => {
    const payment = first;
    const action = payment.next_action;
    if (payment.status === 'requires_action' && action?.type === 'stripe_next_action') {
      let redirected: Payment | undefined;
      await stripeStep(action.client_secret, async (url) => {
        redirected = await followPayment({ ...payment, next_action: { type: 'redirect', url } });
      });
      if (redirected) return redirected;
      const controller = new AbortController();
      stepAbort.current = controller;
      const ended = await pollUntil(
        () => api.payment(payment.payment_id),
        (current) => current.status !== 'requires_action',
        controller.signal,
      );
      return followPayment(ended);
    }
    if (payment.status === 'requires_action' && action && action.type !== 'stripe_next_action') {
      const controller = new AbortController();
      stepAbort.current = controller;
      debug('next action', action.type, payment.payment_id);
      const ended = await new Promise<Payment>((resolve, reject) => {
        setPhase({
          name: 'step',
          view: {
            kind: 'payment',
            action,
            // After a redirect with Stripe, our own return page says the tenant is back.
            ...(stripeKeys ? { messageOrigin: location.origin } : {}),
            method: payment.method,
            amount: payment.amount,
            signal: controller.signal,
            onCancel: async () => {
              try {
                resolve(await api.cancelPayment(payment.payment_id));
              } catch (error) {
                // E.g. 409: the customer answered first and the payment already ended. Its real status wins.
                if (error instanceof ApiProblem && error.sessionExpired) return reject(error);
                try {
                  const current = await api.payment(payment.payment_id);
                  if (current.status === 'requires_action' || current.status === 'processing') reject(error);
                  else resolve(current);
                } catch (refetchError) {
                  reject(refetchError);
                }
              } finally {
                controller.abort();
              }
            },
            wait: (wake) =>
              pollUntil(
                () => api.payment(payment.payment_id),
                (current) => current.status !== 'requires_action' && current.status !== 'processing',
                controller.signal,
                wake,
              ).then(resolve, reject),
          },
        });
      });
      controller.abort();
      debug('next action ended', ended.status);
      return followPayment(ended);
    }
    if (payment.status === 'processing') {
      const deadline = new AbortController();
      const timer = setTimeout(
        () =>
          deadline.abort(
            new OutcomeError({
              code: 'payment_pending',
              message:
                'The payment is still being processed. It will show in your payments once it is done; do not pay again.',
              payment_id: payment.payment_id,
            }),
          ),
        PROCESSING_DEADLINE_MS,
      );
      try {
        return await pollUntil(
          () => api.payment(payment.payment_id),
          (current) => current.status !== 'processing',
          deadline.signal,
        );
      } finally {
        clearTimeout(timer);
      }
    }
    return payment;
  };

  const settle = (payment: Payment): Outcome => {
    if (payment.status === 'succeeded') {
      setPhase({ name: 'succeeded', payment });
      embed?.post('success', { payment });
      return { payment };
    }
    const error = failureOf(payment);
    setPhase({ name: 'ready' });
    showProblem(tenantFailureMessage(error));
    embed?.post('error', { error });
    return { error };
  };

  /** Saves a new card, with 3DS when the card asks, and returns it once active. */
  const saveCard = async (cardToken: string): Promise<SavedCard> => {
    let card = await api.saveCard(cardToken);
    if (card.status === 'requires_action' && card.next_action?.type === 'stripe_next_action') {
      await stripeStep(card.next_action.client_secret);
      const controller = new AbortController();
      stepAbort.current = controller;
      const pending = card;
      card = await pollUntil(
        () => api.card(pending.card_id),
        (current) => current.status !== 'requires_action',
        controller.signal,
      );
    }
    if (
      card.status === 'requires_action' &&
      card.next_action &&
      card.next_action.type !== 'stripe_next_action'
    ) {
      const action = card.next_action;
      const controller = new AbortController();
      stepAbort.current = controller;
      const pending = card;
      try {
        card = await new Promise<SavedCard>((resolve, reject) => {
          setPhase({
            name: 'step',
            view: {
              kind: 'card',
              action,
              method: 'card',
              amount: undefined,
              signal: controller.signal,
              onCancel: () => {
                reject(
                  new OutcomeError({
                    code: 'payment_canceled',
                    message: 'Saving the card was cancelled. You have not been charged.',
                  }),
                );
              },
              wait: (wake) =>
                pollUntil(
                  () => api.card(pending.card_id),
                  (current) => current.status !== 'requires_action',
                  controller.signal,
                  wake,
                ).then(resolve, reject),
            },
          });
        });
      } finally {
        controller.abort();
      }
      setPhase({ name: 'ready' });
    }
    if (card.status !== 'active') {
      throw new OutcomeError({
        code: 'payment_failed',
        message: 'Your card could not be verified, so it was not saved. You have not been charged.',
      });
    }
    setCards(await api.cards());
    setChoice(card.card_id);
    return card;
  };

  /** One payment attempt from the form; undefined when the form needs fixing first (shown inline). */
  const submit = async (walletToken?: string): Promise<Outcome | undefined> => {
    if (busyRef.current) {
      return { error: { code: 'payment_in_progress', message: 'A payment is already in progress.' } };
    }
    if (recurringOn && view === 'recurring') {
      return {
        error: {
          code: 'validation_error',
          message: 'The Recurring rent view is showing: switch to Pay now to pay.',
        },
      };
    }
    setProblem(undefined);
    setNotice(undefined);
    const amountIssue = amountProblem();
    setAmountError(amountIssue);
    const body: Record<string, unknown> = {
      pure_amount: purePence === undefined ? amount : formatPence(purePence),
      // The total shown: if the server's differs (the fee changed), it answers 409 and charges nothing.
      ...(total === undefined ? {} : { expected_amount: total }),
      method,
      ...(options?.reference ? { reference: options.reference } : {}),
    };
    if (!stripeKeys && method === 'card' && choice === NEW_CARD) {
      const valid = cardForm.current?.validate() ?? false;
      if (!valid || amountIssue) return undefined;
    } else if (amountIssue) {
      return undefined;
    }
    busyRef.current = true;
    setBusy(true);
    try {
      if (stripeKeys) {
        if (WALLETS.includes(method)) {
          // The wallet's own button (Stripe's Express Checkout Element) made the token when its sheet approved.
          if (!walletToken) {
            return {
              error: {
                code: 'wallet_required',
                message: `Use the ${METHOD_LABELS[method]} button to pay with a wallet.`,
              },
            };
          }
          body.confirmation_token = walletToken;
        } else if (method === 'card' && choice !== NEW_CARD) {
          body.saved_card_id = choice;
        } else {
          const collected = await stripeFields.current?.collect();
          if (!collected) return undefined;
          const entered = (await loadStripeMode()).methodOfToken(collected.token) as
            | PaymentMethod
            | undefined;
          if (
            entered &&
            entered !== method &&
            purePence !== undefined &&
            session.fees[entered] !== undefined
          ) {
            // E.g. a UnionPay card typed under Card: its own fee applies, so the tenant sees the new total first.
            const enteredFee = feePence(purePence, session.fees[entered]);
            setMethod(entered);
            if (enteredFee !== fee) {
              const message = `This is a ${METHOD_LABELS[entered]} card, so the fee is ${money(enteredFee)} and the total ${money(purePence + enteredFee)}. You have not been charged. Check the new total and pay again.`;
              setNotice(message);
              return { error: { code: 'amount_changed', message } };
            }
          }
          const paidWith = entered ?? method;
          body.method = paidWith;
          if (collected.save && paidWith === 'card') {
            body.saved_card_id = (await saveCard(collected.token.id)).card_id;
          } else {
            body.confirmation_token = collected.token.id;
          }
        }
      } else if (method === 'card') {
        if (choice === NEW_CARD) {
          const tokenised = await cardForm.current!.tokenise(session.processor.tokenize_url ?? '');
          if (!tokenised) return undefined;
          if (tokenised.save) body.saved_card_id = (await saveCard(tokenised.token)).card_id;
          else body.card_token = tokenised.token;
        } else {
          body.saved_card_id = choice;
        }
      } else if (WALLETS.includes(method)) {
        if (!walletToken) {
          openWallet();
          return {
            error: { code: 'wallet_required', message: 'Use the wallet button to pay with a wallet.' },
          };
        }
        body.wallet_token = walletToken;
      }
      debug('paying', method);
      const payment = await api.pay(body, newIdempotencyKey());
      const outcome = settle(await followPayment(payment));
      if ('payment' in outcome) cardForm.current?.clear();
      return outcome;
    } catch (error) {
      const failure = errorOf(error);
      if (failure.code === 'session_expired') {
        expire(failure);
      } else if (failure.code === 'integrator_suspended') {
        setPhase(suspendedPhase(failure));
        embed?.post('error', { error: failure });
      } else if (failure.code === 'amount_changed' && failure.quote) {
        const quote = failure.quote;
        // The quote's total is shown and sent next; the session brings the new fees of the other methods.
        setQuoted({ method, quote });
        setSession(await api.session().catch(() => session));
        setPhase({ name: 'ready' });
        const message = `The total has changed to ${moneyOf(quote.amount)} (fee ${moneyOf(quote.fee)}). You have not been charged. Check the new total and pay again.`;
        focusAlert.current = true;
        setNotice(message);
        const changed = { ...failure, message };
        embed?.post('error', { error: changed });
        return { error: changed };
      } else {
        setPhase({ name: 'ready' });
        showProblem(failure.message);
        embed?.post('error', { error: failure });
      }
      return { error: failure };
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };
  submitRef.current = submit;

  const openWallet = () => {
    if (!session.processor.wallet_url || total === undefined) return;
    const controller = new AbortController();
    stepAbort.current = controller;
    setPhase({
      name: 'step',
      view: {
        kind: 'wallet',
        action: {
          type: 'three_ds',
          url: `${session.processor.wallet_url}/${method}?amount=${encodeURIComponent(total)}`,
        },
        method,
        amount: total,
        signal: controller.signal,
        onCancel: () => {
          controller.abort();
          setPhase({ name: 'ready' });
        },
        onWalletToken: (token) => {
          controller.abort();
          setPhase({ name: 'ready' });
          void submitRef.current?.(token);
        },
        wait: () => Promise.resolve(),
      },
    });
  };

  /** `conflictMessage`: what the tenant reads when the service refuses the action (409 conflict). */
  const cardAction = async (action: () => Promise<unknown>, conflictMessage?: string) => {
    setProblem(undefined);
    try {
      await action();
    } catch (error) {
      const failure = errorOf(error);
      if (failure.code === 'session_expired') expire(failure);
      else showProblem(failure.code === 'conflict' && conflictMessage ? conflictMessage : failure.message);
    }
  };

  const onDelete = (card: SavedCard) =>
    cardAction(async () => {
      await api.deleteCard(card.card_id);
      const remaining = await api.cards();
      focusAfterDelete.current = true;
      setCards(remaining);
      if (choice === card.card_id) setChoice(remaining.find((c) => c.is_default)?.card_id ?? NEW_CARD);
    }, 'This card pays your recurring rent, so it can’t be deleted yet. Cancel recurring rent first (in the Recurring rent tab), then delete the card.');

  const onMakeDefault = (card: SavedCard) =>
    cardAction(async () => {
      await api.makeDefault(card.card_id);
      setCards(await api.cards());
    });

  const methods: PaymentMethod[] = [
    'card',
    ...(enabled('wallets') && (session.processor.wallet_url || stripeKeys) ? WALLETS : []),
    ...(enabled('apms') ? APMS : []),
  ];
  // Each method's fee on its option, once any method has one: "+£17.40", or "no fee".
  const methodFee = (option: PaymentMethod) =>
    purePence === undefined ? 0 : feePence(purePence, session.fees[option]);
  const showMethodFees = methods.some((option) => methodFee(option) > 0);
  const savedCardsOn = enabled('savedCards');
  // Recurring rent charges a saved card off-session; wallets and APMs are one-time (spec).
  const recurringOn = enabled('recurring') && savedCardsOn;
  const stepView = phase.name === 'step' ? phase.view : undefined;
  const payLabel = total === undefined ? 'Pay' : `Pay ${moneyOf(total)}`;
  const isWallet = WALLETS.includes(method);
  // In the SDK the integrator's own button calls SVC.pay(); wallets still complete from their own button.
  // With Stripe a wallet pays from its own button (the Express Checkout Element), never from ours.
  const showPayButton = (!embed || isWallet) && !(stripeKeys && isWallet);

  return (
    <section class="panel" aria-labelledby="pay-title">
      <h1 id="pay-title" ref={headingRef} tabIndex={-1} class={embed ? 'visually-hidden' : undefined}>
        Pay rent
      </h1>
      <p class="rent-context">{rentContext(session.tenancy)}</p>
      {embed ? null : (
        <p class="who">
          {session.tenant.first_name} {session.tenant.last_name} · {session.tenancy.address_1},{' '}
          {session.tenancy.city} {session.tenancy.post_code} · Reference{' '}
          <span class="mono">{session.tenancy.payment_reference}</span>
          {session.environment === 'sandbox' ? <span class="badge">Sandbox</span> : null}
        </p>
      )}

      {problem ? (
        <div class="alert" role="alert" tabIndex={-1} ref={alertRef}>
          {problem}
        </div>
      ) : null}
      {notice ? (
        <div class="alert notice-changed" role="alert" tabIndex={-1} ref={problem ? undefined : alertRef}>
          {notice}
        </div>
      ) : null}
      {expiringSoon ? (
        <div class="alert notice-expiring" role="alert">
          Your session ends in about a minute. Pay now, or go back to your rental platform to start again.
        </div>
      ) : null}

      {recurringOn && !stepView ? (
        <nav class="views" aria-label="Payment options">
          <button type="button" aria-pressed={view === 'pay'} onClick={() => setView('pay')}>
            Pay now
          </button>
          <button type="button" aria-pressed={view === 'recurring'} onClick={() => setView('recurring')}>
            Recurring rent
          </button>
        </nav>
      ) : null}

      {stepView ? (
        <StepPanel view={stepView} />
      ) : recurringOn && view === 'recurring' ? (
        recurringPart ? (
          <recurringPart.Recurring api={api} session={session} cards={cards} onExpired={() => expire()} />
        ) : (
          <p>Loading your recurring rent…</p>
        )
      ) : (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void submit();
          }}
        >
          {/* Nothing the tenant entered can change while a payment is on its way. */}
          <fieldset class="plain" disabled={busy}>
            {amountEditable ? (
              <div class="field">
                <label for="amount">Amount (£)</label>
                <input
                  id="amount"
                  name="amount"
                  inputMode="decimal"
                  autoComplete="off"
                  value={amount}
                  aria-invalid={amountError ? 'true' : undefined}
                  aria-describedby={amountError ? 'amount-error' : undefined}
                  onInput={(event) => setAmount(event.currentTarget.value)}
                  onBlur={() => setAmountError(amountProblem())}
                />
                {amountError ? (
                  <p id="amount-error" class="error">
                    {amountError}
                  </p>
                ) : null}
              </div>
            ) : (
              <div class="field">
                <p class="fixed-amount" data-testid="fixed-amount">
                  <span class="label">Amount</span>{' '}
                  <strong>{purePence === undefined ? '—' : money(purePence)}</strong>
                  {session.amount.editable ? null : <span class="hint"> set by your platform</span>}
                </p>
                {amountError ? (
                  <p class="error" role="alert">
                    {amountError}
                  </p>
                ) : null}
              </div>
            )}

            {methods.length > 1 ? (
              <fieldset class="methods">
                <legend>Payment method</legend>
                {methods.map((option) => (
                  <label key={option} class={option === method ? 'method selected' : 'method'}>
                    <input
                      type="radio"
                      name="method"
                      value={option}
                      // The option's name is the method; its fee is read as its description.
                      aria-label={METHOD_LABELS[option]}
                      aria-describedby={showMethodFees ? `fee-${option}` : undefined}
                      checked={option === method}
                      onChange={() => {
                        setMethod(option);
                        setProblem(undefined);
                      }}
                    />
                    {METHOD_LABELS[option]}
                    {showMethodFees && purePence !== undefined ? (
                      <span class="method-fee" id={`fee-${option}`}>
                        {methodFee(option) === 0 ? 'no fee' : `+${money(methodFee(option))}`}
                      </span>
                    ) : null}
                  </label>
                ))}
              </fieldset>
            ) : null}

            {method === 'card' && savedCardsOn && cards.length > 0 ? (
              <SavedCards
                legendRef={savedCardsRef}
                cards={cards}
                choice={choice}
                newCard={NEW_CARD}
                onChoose={setChoice}
                onDelete={onDelete}
                onMakeDefault={onMakeDefault}
              />
            ) : null}
            {(choice === NEW_CARD || !savedCardsOn || cards.length === 0) && !stripeKeys ? (
              // Hidden, not removed, under another method: what the tenant typed is still there on coming back.
              <div hidden={method !== 'card'}>
                <CardForm handleRef={cardForm} allowSave={savedCardsOn} />
              </div>
            ) : null}

            {stripeKeys &&
            (method !== 'card' || choice === NEW_CARD || !savedCardsOn || cards.length === 0) ? (
              stripeMode ? (
                <stripeMode.StripeFields
                  keys={stripeKeys}
                  method={method}
                  amountPence={purePence === undefined ? undefined : purePence + fee}
                  allowSave={savedCardsOn}
                  handleRef={stripeFields}
                  onWalletToken={(token) => void submitRef.current?.(token)}
                />
              ) : (
                <p class="hint">Loading the payment form…</p>
              )
            ) : null}

            {APMS.includes(method) && !(stripeKeys && method === 'unionpay') ? (
              <p class="hint">
                You will confirm the payment with {METHOD_LABELS[method]}
                {method === 'wechat_pay' ? ' by scanning a QR code.' : ' in a new window.'}
              </p>
            ) : null}
          </fieldset>

          <dl class="summary totals" aria-live="polite">
            <dt>Rent</dt>
            <dd>{purePence === undefined ? '—' : money(purePence)}</dd>
            <dt>Fee</dt>
            <dd>{money(fee)}</dd>
            <dt class="total">Total</dt>
            <dd class="total">{total === undefined ? '—' : moneyOf(total)}</dd>
          </dl>

          {showPayButton ? (
            <button
              type="submit"
              class="pay"
              disabled={busy}
              aria-busy={busy ? 'true' : undefined}
              // Keeps focus (and the field's blur check, whose message would push this button down) where it is
              // until the click lands; submit checks every field anyway.
              onMouseDown={(event) => event.preventDefault()}
            >
              {busy ? 'Processing…' : isWallet ? `${payLabel} with ${METHOD_LABELS[method]}` : payLabel}
            </button>
          ) : null}
        </form>
      )}
    </section>
  );
}
