import type { RefObject } from 'preact';
import { AmountField } from './AmountField.tsx';
import type { PaymentMethod, SavedCard, Session } from './api.ts';
import { CardForm, type CardFormHandle } from './CardForm.tsx';
import { MethodOptions } from './MethodOptions.tsx';
import { APMS, METHOD_LABELS, WALLETS } from './methods.ts';
import { feePence, money, moneyOf } from './money.ts';
import type { StripeMode } from './payment-flow.ts';
import { SavedCards } from './SavedCards.tsx';
import type { StripeFieldsHandle } from './StripeFields.tsx';
import { NEW_CARD, type PageAction, type PageState, type Totals } from './state.ts';

/** The Pay now form: the amount, the method, the card (saved, typed, or Stripe's fields), the totals and Pay. */
export function PayForm(props: {
  state: PageState;
  session: Session;
  totals: Totals;
  dispatch(action: PageAction): void;
  methods: PaymentMethod[];
  amountEditable: boolean;
  savedCardsOn: boolean;
  /** Inside the SDK the integrator's own button calls SVC.pay(); a sandbox wallet still pays from ours. */
  inSdk: boolean;
  stripeMode: StripeMode | undefined;
  cardForm: RefObject<CardFormHandle | null>;
  stripeFields: RefObject<StripeFieldsHandle | null>;
  savedCardsRef: RefObject<HTMLLegendElement | null>;
  amountProblem(): string | undefined;
  onSubmit(): void;
  onWalletToken(token: string): void;
  onDelete(card: SavedCard): void;
  onMakeDefault(card: SavedCard): void;
}) {
  const { state, session, dispatch, methods } = props;
  const { method, choice, cards, busy, amountError } = state;
  const { purePence, fee, total } = props.totals;
  // What the processor declares: its Stripe keys when the Payment Element collects the method.
  const stripeKeys = session.processor.stripe;
  const isWallet = WALLETS.includes(method);
  const newCardShown = choice === NEW_CARD || !props.savedCardsOn || cards.length === 0;
  // With Stripe a wallet pays from its own button (the Express Checkout Element), never from ours.
  const showPayButton = (!props.inSdk || isWallet) && !(stripeKeys && isWallet);
  const payLabel = total === undefined ? 'Pay' : `Pay ${moneyOf(total)}`;
  return (
    <form
      noValidate
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      {/* Nothing the tenant entered can change while a payment is on its way. */}
      <fieldset class="plain" disabled={busy}>
        <AmountField
          session={session}
          amount={state.amount}
          purePence={purePence}
          editable={props.amountEditable}
          error={amountError}
          dispatch={dispatch}
          amountProblem={props.amountProblem}
        />

        {methods.length > 1 ? (
          <MethodOptions
            methods={methods}
            method={method}
            feeOf={
              purePence === undefined ? undefined : (option) => feePence(purePence, session.fees[option])
            }
            onChoose={(option) => dispatch({ type: 'method', method: option })}
          />
        ) : null}

        {method === 'card' && props.savedCardsOn && cards.length > 0 ? (
          <SavedCards
            legendRef={props.savedCardsRef}
            cards={cards}
            choice={choice}
            newCard={NEW_CARD}
            onChoose={(id) => dispatch({ type: 'choose', choice: id })}
            onDelete={props.onDelete}
            onMakeDefault={props.onMakeDefault}
          />
        ) : null}
        {newCardShown && !stripeKeys ? (
          // Hidden, not removed, under another method: what the tenant typed is still there on coming back.
          <div hidden={method !== 'card'}>
            <CardForm handleRef={props.cardForm} allowSave={props.savedCardsOn} />
          </div>
        ) : null}

        {stripeKeys && (method !== 'card' || newCardShown) ? (
          props.stripeMode ? (
            <props.stripeMode.StripeFields
              keys={stripeKeys}
              method={method}
              amountPence={purePence === undefined ? undefined : purePence + fee}
              allowSave={props.savedCardsOn}
              handleRef={props.stripeFields}
              onWalletToken={props.onWalletToken}
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
          // A wallet's button in its brand's colours (black, white at night), as Apple's and Google's guidelines ask.
          class={isWallet ? `pay wallet-button ${method}` : 'pay'}
          // Not disabled while busy: a disabled button drops focus to the page; submit ignores a second press.
          aria-disabled={busy ? 'true' : undefined}
          aria-busy={busy ? 'true' : undefined}
          // Keeps focus (and the field's blur check, whose message would push this button down) where it is
          // until the click lands; submit checks every field anyway.
          onMouseDown={(event) => event.preventDefault()}
        >
          {busy ? 'Processing…' : isWallet ? `${payLabel} with ${METHOD_LABELS[method]}` : payLabel}
        </button>
      ) : null}
    </form>
  );
}
