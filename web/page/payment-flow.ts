/**
 * One payment from the form to its outcome: the card or wallet token, Pay, the step the payment asks for (3DS,
 * a wallet sheet, an APM's page), and how it ends. Built on each render from that render's state, so an
 * attempt reads exactly what the tenant saw when they pressed Pay.
 */

import type { RefObject } from 'preact';
import { ApiProblem, type ClientApi, type Payment, type SavedCard, type Session } from './api.ts';
import type { CardFormHandle } from './CardForm.tsx';
import type { Embed } from './embed.ts';
import { lazyModule } from './lazy.ts';
import { METHOD_LABELS, WALLETS } from './methods.ts';
import { feePence, formatPence, money, moneyOf } from './money.ts';
import {
  errorOf,
  failureOf,
  type Outcome,
  OutcomeError,
  type PaymentError,
  tenantFailureMessage,
} from './outcomes.ts';
import type { StripeFieldsHandle } from './StripeFields.tsx';
import { NEW_CARD, type PageAction, type PageState, type Totals } from './state.ts';
import { type ActionView, pollUntil } from './steps.ts';
import type { StripeError } from './stripe.ts';

/** How long a `processing` payment is polled before pay() settles with `payment_pending`. */
const PROCESSING_DEADLINE_MS = 3 * 60_000;
/** After the deadline the page still checks the payment, less often: it may take minutes more. */
const PENDING_POLL_MS = 5_000;
const ENDED: readonly Payment['status'][] = ['succeeded', 'failed', 'canceled'];

// Loaded on demand: only the page with Stripe needs it; a step's panel only once Pay is pressed.
export type StripeMode = typeof import('./stripe-mode.ts');
export const loadStripeMode = lazyModule(() => import('./stripe-mode.ts'));
export const loadStepPanel = lazyModule(() => import('./StepPanel.tsx'));

function newIdempotencyKey(): string {
  return `page_${crypto.randomUUID()}`;
}

export interface FlowContext {
  api: ClientApi;
  session: Session;
  state: PageState;
  totals: Totals;
  dispatch(action: PageAction): void;
  embed: Embed | undefined;
  cardForm: RefObject<CardFormHandle | null>;
  stripeFields: RefObject<StripeFieldsHandle | null>;
  stepAbort: RefObject<AbortController | undefined>;
  /** Set while an attempt runs: a second Pay (or SVC.pay()) is refused, not queued. */
  busy: RefObject<boolean>;
  /** The latest render's submit: a wallet sheet's token pays through it. */
  submitRef: RefObject<((walletToken?: string) => Promise<Outcome | undefined>) | undefined>;
  amountProblem(): string | undefined;
  expire(failure?: PaymentError): void;
  debug(...args: unknown[]): void;
}

export function paymentFlow(context: FlowContext) {
  const { api, session, state, dispatch, embed, stepAbort } = context;
  const { method, choice, options } = state;
  const { purePence, fee, total } = context.totals;
  // What the processor declares: its Stripe keys when the Payment Element collects the method.
  const stripeKeys = session.processor.stripe;
  const stepPhase = (view: ActionView) => dispatch({ type: 'phase', phase: { name: 'step', view } });
  const ready = () => dispatch({ type: 'phase', phase: { name: 'ready' } });

  /**
   * Stripe's step for a payment or a card being saved: a redirect method (Alipay) opens its page in a window
   * (`redirect` answers with the URL); anything else (3DS, a WeChat Pay QR code) Stripe.js shows in the page.
   * Resolves once Stripe.js is done, with the error Stripe.js answered if it gave up (a failed or closed 3DS
   * check, a lost connection); the outcome is read from our server.
   */
  const stripeStep = async (
    clientSecret: string,
    redirect?: (url: string) => Promise<void>,
  ): Promise<StripeError | undefined> => {
    if (!stripeKeys) throw new Error('A Stripe step without Stripe keys.');
    const { loadStripe, redirectUrlOf } = await loadStripeMode();
    const stripe = await loadStripe(stripeKeys.js_url, stripeKeys.publishable_key);
    if (redirect && !clientSecret.startsWith('seti_')) {
      const url = redirectUrlOf((await stripe.retrievePaymentIntent(clientSecret)).paymentIntent);
      if (url) {
        await redirect(url);
        return undefined;
      }
    }
    context.debug('stripe next action');
    return (await stripe.handleNextAction({ clientSecret })).error;
  };

  /** Shows the step (3DS, APM) and waits for the payment to leave it; returns the payment as it ends. */
  const followPayment = async (payment: Payment): Promise<Payment> => {
    const action = payment.next_action;
    if (payment.status === 'requires_action' && action?.type === 'stripe_next_action') {
      let redirected: Payment | undefined;
      const stepError = await stripeStep(action.client_secret, async (url) => {
        redirected = await followPayment({ ...payment, next_action: { type: 'redirect', url } });
      });
      if (redirected) return redirected;
      if (stepError)
        return followPayment(await (await loadStripeMode()).afterStepError(api, payment, stepError));
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
      context.debug('next action', action.type, payment.payment_id);
      const ended = await new Promise<Payment>((resolve, reject) => {
        stepPhase({
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
        });
      });
      controller.abort();
      context.debug('next action ended', ended.status);
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
      dispatch({ type: 'phase', phase: { name: 'succeeded', payment } });
      embed?.post('success', { payment });
      return { payment };
    }
    const error = failureOf(payment);
    dispatch({ type: 'failed', message: tenantFailureMessage(error) });
    embed?.post('error', { error });
    return { error };
  };

  /**
   * A payment past the deadline: the SDK hears `payment_pending` as before, the tenant sees it is being
   * processed (no form to pay again with), and the page checks it until it ends, then settles as Pay would.
   */
  const watchPending = (payment: Payment, failure: PaymentError): Outcome => {
    dispatch({ type: 'phase', phase: { name: 'pending', payment } });
    embed?.post('error', { error: failure });
    const check = () =>
      api.payment(payment.payment_id).catch((error: unknown) => {
        if (error instanceof ApiProblem && error.sessionExpired) throw error;
        // A lost connection: asked again at the next tick.
        return payment;
      });
    pollUntil(
      check,
      (current) => ENDED.includes(current.status),
      new AbortController().signal,
      undefined,
      PENDING_POLL_MS,
    )
      .then(settle, () => dispatch({ type: 'phase', phase: { name: 'pending', payment, unchecked: true } }))
      .finally(() => {
        context.busy.current = false;
      });
    return { error: failure };
  };

  /** Saves a new card, with 3DS when the card asks, and returns it once active. */
  const saveCard = async (cardToken: string): Promise<SavedCard> => {
    let card = await api.saveCard(cardToken);
    if (card.status === 'requires_action' && card.next_action?.type === 'stripe_next_action') {
      const stepError = await stripeStep(card.next_action.client_secret);
      const pending = card;
      if (stepError) {
        card = await (await loadStripeMode()).afterCardStepError(api, pending, stepError);
      } else {
        const controller = new AbortController();
        stepAbort.current = controller;
        card = await pollUntil(
          () => api.card(pending.card_id),
          (current) => current.status !== 'requires_action',
          controller.signal,
        );
      }
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
          stepPhase({
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
          });
        });
      } finally {
        controller.abort();
      }
      ready();
    }
    if (card.status !== 'active') {
      throw new OutcomeError({
        code: 'payment_failed',
        message: 'Your card could not be verified, so it was not saved. You have not been charged.',
      });
    }
    dispatch({ type: 'cards', cards: await api.cards(), choice: card.card_id });
    return card;
  };

  const openWallet = () => {
    if (!session.processor.wallet_url || total === undefined) return;
    const controller = new AbortController();
    stepAbort.current = controller;
    stepPhase({
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
        ready();
      },
      onWalletToken: (token) => {
        controller.abort();
        ready();
        void context.submitRef.current?.(token);
      },
      wait: () => Promise.resolve(),
    });
  };

  /** The token or card the payment is made with, into `body`; false when the form needs fixing (shown inline). */
  const addPaymentSource = async (
    body: Record<string, unknown>,
    walletToken: string | undefined,
  ): Promise<boolean | Outcome> => {
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
        const collected = await context.stripeFields.current?.collect();
        if (!collected) return false;
        const entered = (await loadStripeMode()).methodOfToken(collected.token) as typeof method | undefined;
        if (entered && entered !== method && purePence !== undefined && session.fees[entered] !== undefined) {
          // E.g. a UnionPay card typed under Card: its own fee applies, so the tenant sees the new total first.
          const enteredFee = feePence(purePence, session.fees[entered]);
          dispatch({ type: 'method', method: entered });
          if (enteredFee !== fee) {
            const message = `This is a ${METHOD_LABELS[entered]} card, so the fee is ${money(enteredFee)} and the total ${money(purePence + enteredFee)}. You have not been charged. Check the new total and pay again.`;
            dispatch({ type: 'alert', notice: message, focus: false });
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
        const tokenised = await context.cardForm.current!.tokenise(session.processor.tokenize_url ?? '');
        if (!tokenised) return false;
        if (tokenised.save) body.saved_card_id = (await saveCard(tokenised.token)).card_id;
        else body.card_token = tokenised.token;
      } else {
        body.saved_card_id = choice;
      }
    } else if (WALLETS.includes(method)) {
      if (!walletToken) {
        openWallet();
        return { error: { code: 'wallet_required', message: 'Use the wallet button to pay with a wallet.' } };
      }
      body.wallet_token = walletToken;
    }
    return true;
  };

  const failed = async (error: unknown): Promise<Outcome> => {
    const failure = errorOf(error);
    if (failure.code === 'session_expired') {
      context.expire(failure);
    } else if (failure.code === 'integrator_suspended') {
      dispatch({
        type: 'phase',
        phase: { name: 'unavailable', title: 'Payments unavailable', message: failure.message },
      });
      embed?.post('error', { error: failure });
    } else if (failure.code === 'amount_changed' && failure.quote) {
      const quote = failure.quote;
      // The quote's total is shown and sent next; the session brings the new fees of the other methods.
      const message = `The total has changed to ${moneyOf(quote.amount)} (fee ${moneyOf(quote.fee)}). You have not been charged. Check the new total and pay again.`;
      const fresh = await api.session().catch(() => session);
      dispatch({ type: 'quoted', method, quote, session: fresh, notice: message });
      const changed = { ...failure, message };
      embed?.post('error', { error: changed });
      return { error: changed };
    } else {
      dispatch({ type: 'failed', message: failure.message });
      embed?.post('error', { error: failure });
    }
    return { error: failure };
  };

  /** One payment attempt from the form; undefined when the form needs fixing first (shown inline). */
  const submit = async (walletToken?: string): Promise<Outcome | undefined> => {
    if (context.busy.current) {
      return { error: { code: 'payment_in_progress', message: 'A payment is already in progress.' } };
    }
    if (state.view === 'recurring') {
      return {
        error: {
          code: 'validation_error',
          message: 'The Recurring rent view is showing: switch to Pay now to pay.',
        },
      };
    }
    dispatch({ type: 'alert', focus: false });
    const amountIssue = context.amountProblem();
    dispatch({ type: 'amountChecked', error: amountIssue });
    const body: Record<string, unknown> = {
      pure_amount: purePence === undefined ? state.amount : formatPence(purePence),
      // The total shown: if the server's differs (the fee changed), it answers 409 and charges nothing.
      ...(total === undefined ? {} : { expected_amount: total }),
      method,
      ...(options?.reference ? { reference: options.reference } : {}),
    };
    if (!stripeKeys && method === 'card' && choice === NEW_CARD) {
      const valid = context.cardForm.current?.validate() ?? false;
      if (!valid || amountIssue) return undefined;
    } else if (amountIssue) {
      return undefined;
    }
    context.busy.current = true;
    dispatch({ type: 'busy', busy: true });
    // Fetched while the payment is made, so a 3DS or wallet step shows at once (a failure shows when needed).
    loadStepPanel().catch(() => undefined);
    let made: Payment | undefined;
    let watching = false;
    try {
      const source = await addPaymentSource(body, walletToken);
      if (source === false) return undefined;
      if (source !== true) return source;
      context.debug('paying', body.method);
      made = await api.pay(body, newIdempotencyKey());
      const outcome = settle(await followPayment(made));
      if ('payment' in outcome) context.cardForm.current?.clear();
      return outcome;
    } catch (error) {
      const failure = errorOf(error);
      if (made && failure.code === 'payment_pending') {
        watching = true;
        return watchPending(made, failure);
      }
      return failed(error);
    } finally {
      // While a pending payment is checked, another Pay (SVC.pay()) is refused: the first may still succeed.
      context.busy.current = watching;
      dispatch({ type: 'busy', busy: false });
    }
  };

  // `follow` and the context: the recurring charges waiting for the tenant (ActionRequired.tsx) follow their step
  // exactly as Pay does.
  return { submit, openWallet, follow: followPayment, context };
}

export type PaymentFlow = ReturnType<typeof paymentFlow>;
