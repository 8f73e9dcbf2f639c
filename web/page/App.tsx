// The page's root: loads the session, holds the state (state.ts reduces it) and picks the view; the views, the
// payment flow and the Stripe parts live in their own files. What remains is the wiring between them: the effects
// that load, refresh and expire one state, which read best together (hence a little over 400 lines).
import { useEffect, useMemo, useReducer, useRef, useState } from 'preact/hooks';
import { ClientApi, type PaymentMethod, type SavedCard, type Session } from './api.ts';
import type { CardFormHandle } from './CardForm.tsx';
import { Expired, Loading, Pending, Receipt, Unavailable } from './EndViews.tsx';
import type { Embed, FeatureName } from './embed.ts';
import { lazyModule, PART_FAILED, usePart } from './lazy.ts';
import { APMS, WALLETS } from './methods.ts';
import { formatPence, moneyOf, parseTypedPence } from './money.ts';
import { errorOf, type Outcome, type PaymentError, SESSION_EXPIRED } from './outcomes.ts';
import { PayForm } from './PayForm.tsx';
import { loadStepPanel, loadStripeMode, paymentFlow, type StripeMode } from './payment-flow.ts';
import { RentHeader } from './RentHeader.tsx';
import { suggestedAmount } from './rent-position.ts';
import { useSessionExpiry } from './SessionExpiry.tsx';
import type { StripeFieldsHandle } from './StripeFields.tsx';
import { initialState, pageReducer, totalsOf } from './state.ts';

export type { PaymentError } from './outcomes.ts';

// Loaded on demand: the Recurring rent tab once the tenant opens it; a payment's step (3DS, a wallet sheet, an
// APM's page) from the moment Pay is pressed; the recurring charges waiting for the tenant to confirm them (the
// session's action_required) only when there is one.
const loadRecurring = lazyModule(() => import('./Recurring.tsx'));
const loadActionRequired = lazyModule(() => import('./ActionRequired.tsx'));
// Only inside the SDK's iframe.
const loadSdkFrame = lazyModule(() => import('./sdk-frame.ts'));

export interface Credentials {
  token: string;
  /** Absent inside the SDK's iframe: the SDK has the token only. */
  sessionId: string | undefined;
}

export function App({
  credentials,
  embed,
}: {
  credentials: Credentials | undefined;
  embed?: Embed | undefined;
}) {
  const api = useMemo(() => credentials && new ClientApi(credentials.token), [credentials]);
  const [state, dispatch] = useReducer(pageReducer, initialState);
  const { phase, session, options } = state;
  const busy = useRef(false);
  /** The session's fixed amount once loaded (read by the SDK message listener). */
  const fixedAmount = useRef<string | null>(null);
  const cardForm = useRef<CardFormHandle>(null);
  const stripeFields = useRef<StripeFieldsHandle>(null);
  const stepAbort = useRef<AbortController | undefined>(undefined);
  const headingRef = useRef<HTMLHeadingElement>(null);
  const alertRef = useRef<HTMLDivElement>(null);
  const savedCardsRef = useRef<HTMLLegendElement>(null);
  /** After a saved card is deleted its button is gone: focus goes to the saved cards (or the new card form). */
  const focusAfterDelete = useRef(false);
  const submitRef = useRef<((walletToken?: string) => Promise<Outcome | undefined>) | undefined>(undefined);
  const phaseName = useRef(phase.name);
  phaseName.current = phase.name;
  const debug = (...args: unknown[]) => {
    if (options?.debug) console.info('[rentpay frame]', ...args);
  };
  /** The session lapsed: every path ends here, so the SDK hears of it (`error`) as well as the tenant. */
  const expire = (failure: PaymentError = SESSION_EXPIRED) => {
    stepAbort.current?.abort();
    dispatch({ type: 'phase', phase: { name: 'expired', inPage: true } });
    embed?.post('error', { error: failure });
    embed?.post('expired', { error: failure });
  };

  // Inside the SDK's iframe: load what talks to the SDK, say we are here, then wait for SVC.init's options.
  useEffect(() => {
    if (!embed) return;
    let stop: (() => void) | undefined;
    let stopped = false;
    loadSdkFrame().then(
      ({ connectSdk }) => {
        if (stopped) return;
        stop = connectSdk(embed, {
          onInit: (received) => dispatch({ type: 'options', options: received }),
          onUpdate: (changes) => {
            // The SDK refuses another amount on a fixed session; a message that still carries one changes nothing.
            if (fixedAmount.current !== null) delete changes.pure_amount;
            dispatch({ type: 'optionsChanged', changes });
          },
          onPay: async () => {
            const run = submitRef.current;
            if (!run) return { error: { code: 'not_ready', message: 'The payment form is not ready yet.' } };
            const outcome = await run().catch((error: unknown) => ({ error: errorOf(error) }));
            return (
              outcome ?? {
                error: { code: 'validation_error', message: 'Check the highlighted fields and try again.' },
              }
            );
          },
        });
      },
      () => embed.post('init_error', { error: { code: 'load_failed', message: PART_FAILED } }),
    );
    return () => {
      stopped = true;
      stop?.();
    };
  }, [embed]);

  useEffect(() => {
    if (!api || !credentials) {
      dispatch({ type: 'phase', phase: { name: 'expired' } });
      embed?.post('init_error', { error: { code: 'session_expired', message: 'No valid session token.' } });
      return;
    }
    if (embed && !options) return;
    (async () => {
      try {
        const loaded = await api.session();
        if (credentials.sessionId !== undefined && loaded.session_id !== credentials.sessionId) {
          return dispatch({ type: 'phase', phase: { name: 'expired' } });
        }
        const ready = {
          environment: loaded.environment,
          session_id: loaded.session_id,
          amount: loaded.amount,
        };
        if (embed && options) {
          // The SDK's part is loaded: its options came through it.
          const mismatch = (await loadSdkFrame()).amountMismatch(loaded.amount, options);
          if (mismatch) {
            embed.post('init_error', { error: mismatch });
            const title = 'Payment form not available';
            return dispatch({
              type: 'phase',
              phase: { name: 'unavailable', title, message: mismatch.message },
            });
          }
        }
        fixedAmount.current = loaded.amount.editable ? null : loaded.amount.pure_amount;
        if (loaded.paid) {
          // A session paid already (a reload, the link opened again): its receipt, never a new Pay form.
          dispatch({ type: 'reopened', session: loaded, payment: { ...loaded.paid, next_action: null } });
          embed?.post('ready', ready);
          return;
        }
        const amount = embed
          ? (options?.pure_amount ?? loaded.amount.pure_amount ?? '')
          : (loaded.amount.pure_amount ?? suggestedAmount(loaded.tenancy.ledger));
        const withCards = loaded.features.savedCards && options?.features.savedCards !== false;
        const cards = withCards ? await api.cards() : [];
        dispatch({ type: 'loaded', session: loaded, amount, cards });
        embed?.post('ready', ready);
      } catch (error) {
        const failure = errorOf(error);
        embed?.post('init_error', { error: failure });
        if (failure.code === 'session_expired')
          return dispatch({ type: 'phase', phase: { name: 'expired' } });
        if (failure.code === 'integrator_suspended') {
          const title = 'Payments unavailable';
          return dispatch({ type: 'phase', phase: { name: 'unavailable', title, message: failure.message } });
        }
        dispatch({ type: 'loadFailed', message: failure.message });
      }
    })();
    // Options change later only through 'update', which must not reload the session.
  }, [api, credentials, embed, options === undefined]);

  // The heading takes focus when the page moves to another state (the outcome, back from a step), never on load:
  // focusing inside a frame scrolls the integrator's page to it. A step focuses its own heading.
  const previousPhase = useRef(phase.name);
  useEffect(() => {
    const previous = previousPhase.current;
    previousPhase.current = phase.name;
    if (
      phase.name !== 'loading' &&
      phase.name !== 'step' &&
      previous !== 'loading' &&
      previous !== phase.name
    )
      headingRef.current?.focus();
  }, [phase.name]);

  // An alert the tenant caused (Pay, a card action) takes focus.
  useEffect(() => {
    if (state.alertFocus > 0) alertRef.current?.focus();
  }, [state.alertFocus]);

  // The receipt says what the payment paid and what is still owed: the session as it is now, once paid.
  const [paidSession, setPaidSession] = useState<Session>();
  useEffect(() => {
    if (phase.name !== 'succeeded' || phase.reopened || !api) return;
    api.session().then(setPaidSession, () => undefined);
  }, [phase.name]);

  // A payment already made keeps its receipt when the session lapses.
  // A payment on its way is not cut short: its outcome (or the pending panel) says what happened to the money.
  const { warning: expiryWarning } = useSessionExpiry(api, session, () => {
    if ((phaseName.current === 'ready' || phaseName.current === 'step') && !busy.current) expire();
  });

  useEffect(() => {
    if (!focusAfterDelete.current) return;
    focusAfterDelete.current = false;
    if (savedCardsRef.current) savedCardsRef.current.focus();
    else document.getElementById('card-number')?.focus();
  }, [state.cards]);

  const totals = totalsOf(state);
  const { purePence, fee, total } = totals;
  useEffect(() => {
    if (phase.name !== 'ready') return;
    embed?.post('change', {
      method: state.method,
      pure_amount: purePence === undefined ? null : formatPence(purePence),
      fee: formatPence(fee),
      amount: total ?? null,
    });
  }, [embed, phase.name, state.method, purePence, fee, total]);

  // The parts loaded on demand, requested as soon as they can be needed (hooks, so before any early return).
  const [stripeMode, setStripeMode] = useState<StripeMode>();
  const partFailed = () => dispatch({ type: 'alert', problem: PART_FAILED, focus: false });
  const recurringPart = usePart(loadRecurring, state.view === 'recurring', partFailed);
  const stepPart = usePart(loadStepPanel, phase.name === 'step', partFailed);
  const actionPart = usePart(loadActionRequired, !!session?.action_required.length, partFailed);
  const withStripe = session?.processor.stripe !== undefined;
  /** With Stripe: the wallets Stripe.js says this device can pay with (none until it has said). */
  const [stripeWallets, setStripeWallets] = useState<string[]>([]);
  useEffect(() => {
    if (!withStripe) return;
    loadStripeMode().then((part) => {
      setStripeMode(part);
      const keys = session?.processor.stripe;
      if (keys && session?.features.wallets)
        part.availableWallets(keys).then(setStripeWallets, () => setStripeWallets([]));
    }, partFailed);
  }, [withStripe]);

  if (phase.name === 'loading') return <Loading />;
  if (phase.name === 'unavailable') {
    return <Unavailable title={phase.title} message={phase.message} headingRef={headingRef} />;
  }
  if (phase.name === 'expired' || !session || !api) {
    return (
      <Expired
        inPage={phase.name === 'expired' && phase.inPage === true}
        framed={!embed && window.parent !== window}
        headingRef={headingRef}
      />
    );
  }
  if (phase.name === 'succeeded') {
    return (
      <Receipt
        api={api}
        payment={phase.payment}
        session={paidSession ?? session}
        reopened={phase.reopened === true}
        headingRef={headingRef}
      />
    );
  }
  if (phase.name === 'pending') {
    return <Pending payment={phase.payment} unchecked={phase.unchecked === true} headingRef={headingRef} />;
  }

  const enabled = (feature: FeatureName) => session.features[feature] && options?.features[feature] !== false;
  // The platform's server decides: a fixed amount is never editable; the SDK may narrow an editable one further.
  const amountEditable = session.amount.editable && (!embed || options?.isAmountEditable === true);
  const amountProblem = (): string | undefined => {
    const minPence = parseTypedPence(session.limits.min_amount) ?? 100;
    const maxPence = parseTypedPence(session.limits.max_amount) ?? Number.MAX_SAFE_INTEGER;
    if (purePence === undefined) return 'Enter an amount in pounds, e.g. 1,200.00.';
    if (purePence < minPence || purePence > maxPence) {
      return `Enter an amount from ${moneyOf(session.limits.min_amount)} to ${moneyOf(session.limits.max_amount)}.`;
    }
    return undefined;
  };
  // What the processor declares: its Stripe keys when the Payment Element collects the method.
  const stripeKeys = session.processor.stripe;

  const flow = paymentFlow({
    api,
    session,
    state,
    totals,
    dispatch,
    embed,
    cardForm,
    stripeFields,
    stepAbort,
    busy,
    submitRef,
    amountProblem,
    expire,
    debug,
  });
  submitRef.current = flow.submit;

  /** `conflictMessage`: what the tenant reads when the service refuses the action (409 conflict). */
  const cardAction = async (action: () => Promise<unknown>, conflictMessage?: string) => {
    dispatch({ type: 'alert', notice: state.notice, focus: false });
    try {
      await action();
    } catch (error) {
      const failure = errorOf(error);
      if (failure.code === 'session_expired') expire(failure);
      else {
        const problem = failure.code === 'conflict' && conflictMessage ? conflictMessage : failure.message;
        dispatch({ type: 'alert', problem, focus: true });
      }
    }
  };

  const onDelete = (card: SavedCard) =>
    cardAction(async () => {
      await api.deleteCard(card.card_id);
      const remaining = await api.cards();
      focusAfterDelete.current = true;
      const choice =
        state.choice === card.card_id ? (remaining.find((c) => c.is_default)?.card_id ?? 'new') : undefined;
      dispatch({ type: 'cards', cards: remaining, ...(choice ? { choice } : {}) });
    }, 'This card pays your recurring rent, so it can’t be deleted yet. Cancel recurring rent first (in the Recurring rent tab), then delete the card.');

  const onMakeDefault = (card: SavedCard) =>
    cardAction(async () => {
      await api.makeDefault(card.card_id);
      dispatch({ type: 'cards', cards: await api.cards() });
    });

  // A wallet is offered only where it can work: with Stripe, where Stripe.js says this device has it; the sandbox
  // simulates both in any browser.
  const wallets = stripeKeys
    ? WALLETS.filter((wallet) => stripeWallets.includes(wallet))
    : session.processor.wallet_url
      ? WALLETS
      : [];
  const methods: PaymentMethod[] = [
    'card',
    ...(enabled('wallets') ? wallets : []),
    ...(enabled('apms') ? APMS : []),
  ];
  const savedCardsOn = enabled('savedCards');
  // Recurring rent charges a saved card off-session; wallets and APMs are one-time.
  const recurringOn = enabled('recurring') && savedCardsOn;
  const stepView = phase.name === 'step' ? phase.view : undefined;
  const recurringView = recurringOn && state.view === 'recurring';
  const { problem, notice } = state;

  return (
    <section class="panel" aria-labelledby="pay-title">
      <h1 id="pay-title" ref={headingRef} tabIndex={-1} class={embed ? 'visually-hidden' : undefined}>
        Pay rent
      </h1>
      <RentHeader session={session} inSdk={embed !== undefined} />

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
      {expiryWarning}
      {/* Says what happens while the Pay button waits, to screen readers too (the button keeps focus). */}
      <p class="visually-hidden" role="status" data-testid="progress">
        {state.busy ? 'Processing your payment…' : ''}
      </p>

      {/* First, before the Pay form; hidden during a step like the form, so what it shows stays. */}
      {actionPart ? (
        <div hidden={stepView !== undefined}>
          <actionPart.ActionRequired flow={flow} />
        </div>
      ) : null}
      {recurringOn && !stepView ? (
        <div class="views" role="tablist" aria-label="Payment options">
          {(['pay', 'recurring'] as const).map((view) => (
            <button
              key={view}
              type="button"
              role="tab"
              id={`tab-${view}`}
              aria-selected={state.view === view}
              aria-controls={`panel-${view}`}
              tabIndex={state.view === view ? 0 : -1}
              onClick={() => dispatch({ type: 'view', view })}
              onKeyDown={(event) => {
                // The tabs pattern: arrow keys move between the tabs (and choose), Tab leaves them.
                if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
                const other = view === 'pay' ? 'recurring' : 'pay';
                dispatch({ type: 'view', view: other });
                document.getElementById(`tab-${other}`)?.focus();
              }}
            >
              {view === 'pay' ? 'Pay now' : 'Recurring rent'}
            </button>
          ))}
        </div>
      ) : null}

      {stepView ? (
        stepPart ? (
          <stepPart.StepPanel view={stepView} />
        ) : (
          <p class="status" role="status">
            Loading…
          </p>
        )
      ) : recurringView ? (
        <div role="tabpanel" id="panel-recurring" aria-labelledby="tab-recurring">
          {recurringPart ? (
            <recurringPart.Recurring
              api={api}
              session={session}
              cards={state.cards}
              onExpired={() => expire()}
            />
          ) : (
            <p>Loading your recurring rent…</p>
          )}
        </div>
      ) : null}
      {/* Hidden, not removed, during a step or on the other tab: what the tenant typed is there on coming back. */}
      <div
        hidden={stepView !== undefined || recurringView}
        {...(recurringOn ? { role: 'tabpanel', id: 'panel-pay', 'aria-labelledby': 'tab-pay' } : {})}
      >
        <PayForm
          state={state}
          session={session}
          totals={totals}
          dispatch={dispatch}
          methods={methods}
          amountEditable={amountEditable}
          savedCardsOn={savedCardsOn}
          inSdk={embed !== undefined}
          stripeMode={stripeMode}
          cardForm={cardForm}
          stripeFields={stripeFields}
          savedCardsRef={savedCardsRef}
          amountProblem={amountProblem}
          onSubmit={() => void flow.submit()}
          onWalletToken={(token) => void submitRef.current?.(token)}
          onDelete={onDelete}
          onMakeDefault={onMakeDefault}
        />
      </div>
    </section>
  );
}
