import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import {
  type ConfirmationToken,
  type ElementsOptions,
  loadStripe,
  type StripeElements,
  stripeTypeOf,
} from './stripe.ts';

export interface StripeFieldsHandle {
  /**
   * Checks the Payment Element (Stripe shows what is wrong inside it) and makes a ConfirmationToken: our server
   * pays with it. Undefined when the tenant has something to fix.
   */
  collect(): Promise<{ token: ConfirmationToken; save: boolean } | undefined>;
}

export interface StripeKeys {
  publishable_key: string;
  js_url: string;
}

const WALLET_OPTIONS: Record<string, { key: string; name: string }> = {
  apple_pay: { key: 'applePay', name: 'Apple Pay' },
  google_pay: { key: 'googlePay', name: 'Google Pay' },
};

/**
 * What the Elements group says about the payment as the form stands: a card set up for later while "Save this
 * card" is ticked, otherwise a payment of the amount. Stripe's elements.update() merges, so an unticked box sets
 * setupFutureUsage back to null: left out, the card would still be saved for later use without consent.
 */
function groupFor(saving: boolean, amountPence: number | undefined): Partial<ElementsOptions> {
  return saving
    ? { mode: 'setup', setupFutureUsage: 'off_session' }
    : { mode: 'payment', amount: Math.max(amountPence ?? 100, 100), setupFutureUsage: null };
}

/** Stripe's wallet buttons in their brands' colours: black, or white on the night theme. */
function walletButtons(): Record<string, unknown> {
  const theme = document.documentElement.dataset.theme === 'night' ? 'white' : 'black';
  return {
    buttonTheme: { applePay: theme, googlePay: theme },
    buttonType: { applePay: 'plain', googlePay: 'pay' },
  };
}

/**
 * The wallets this browser and device can pay with, as Stripe.js reports them: the page offers only those. The
 * Express Checkout Element is mounted once out of sight (inert, so nothing in it can take focus) to ask.
 */
export async function availableWallets(keys: StripeKeys): Promise<string[]> {
  const stripe = await loadStripe(keys.js_url, keys.publishable_key);
  const elements = stripe.elements({
    mode: 'payment',
    currency: 'gbp',
    amount: 100,
    paymentMethodTypes: ['card'],
  });
  const express = elements.create('expressCheckout', {
    paymentMethods: Object.fromEntries(Object.values(WALLET_OPTIONS).map((option) => [option.key, 'always'])),
  });
  const probe = document.createElement('div');
  probe.inert = true;
  probe.setAttribute('aria-hidden', 'true');
  probe.style.cssText = 'position:absolute;left:-10000px;top:0;width:320px';
  document.body.append(probe);
  try {
    const available = await new Promise<Record<string, boolean> | undefined>((resolve) => {
      express.on('ready', (event) => resolve(event.availablePaymentMethods));
      express.mount(probe);
    });
    return Object.entries(WALLET_OPTIONS)
      .filter(([, option]) => available?.[option.key] === true)
      .map(([method]) => method);
  } finally {
    express.destroy();
    probe.remove();
  }
}

/**
 * The Payment Element for one method (card, Alipay, WeChat Pay; UnionPay is a card there), in Stripe's frames;
 * for a wallet, the Express Checkout Element's button, which pays as soon as the wallet's sheet approves
 * (`onWalletToken`). `amountPence` is what the wallet sheet shows; the server decides what is charged.
 */
export function StripeFields({
  keys,
  method,
  amountPence,
  allowSave,
  handleRef,
  onWalletToken,
}: {
  keys: StripeKeys;
  method: string;
  amountPence: number | undefined;
  allowSave: boolean;
  handleRef: RefObject<StripeFieldsHandle | null>;
  onWalletToken?: (confirmationToken: string) => void;
}) {
  const wallet = WALLET_OPTIONS[method];
  const walletHandler = useRef(onWalletToken);
  walletHandler.current = onWalletToken;
  const host = useRef<HTMLDivElement>(null);
  const elements = useRef<StripeElements | undefined>(undefined);
  const [state, setState] = useState<'loading' | 'ready' | 'failed' | 'unavailable'>('loading');
  const [attempt, setAttempt] = useState(0);
  const [save, setSave] = useState(false);
  const [problem, setProblem] = useState<string>();
  const saving = allowSave && method === 'card' && save;

  useEffect(() => {
    let stopped = false;
    let destroy: (() => void) | undefined;
    setState('loading');
    loadStripe(keys.js_url, keys.publishable_key).then(
      (stripe) => {
        if (stopped || !host.current) return;
        const created = stripe.elements({
          mode: 'payment',
          currency: 'gbp',
          amount: Math.max(amountPence ?? 100, 100),
          paymentMethodTypes: [stripeTypeOf(method)],
        });
        elements.current = created;
        if (wallet) {
          const express = created.create('expressCheckout', {
            ...walletButtons(),
            paymentMethods: Object.fromEntries(
              Object.values(WALLET_OPTIONS).map((option) => [
                option.key,
                option === wallet ? 'always' : 'never',
              ]),
            ),
          });
          express.on('ready', (event) => {
            if (!stopped) setState(event.availablePaymentMethods?.[wallet.key] ? 'ready' : 'unavailable');
          });
          express.on('confirm', async (event) => {
            setProblem(undefined);
            const checked = await created.submit();
            const made = checked.error
              ? { error: checked.error, confirmationToken: undefined }
              : await stripe.createConfirmationToken({ elements: created });
            if (!made.confirmationToken) {
              event.paymentFailed({ reason: 'fail' });
              setProblem(made.error?.message ?? `${wallet.name} could not be used. Please try again.`);
              return;
            }
            walletHandler.current?.(made.confirmationToken.id);
          });
          express.mount(host.current);
          destroy = () => express.destroy();
          return;
        }
        const element = created.create('payment', { layout: 'tabs' });
        element.on('ready', () => {
          if (!stopped) setState('ready');
        });
        element.mount(host.current);
        destroy = () => element.destroy();
      },
      () => {
        if (!stopped) setState('failed');
      },
    );
    return () => {
      stopped = true;
      elements.current = undefined;
      destroy?.();
    };
    // Card and UnionPay share Stripe's card fields: switching between them keeps what the tenant typed. A wallet
    // is a card at Stripe too, but has its own button: each wallet gets its own Elements.
  }, [keys.js_url, keys.publishable_key, wallet ? method : stripeTypeOf(method), attempt]);

  useEffect(
    () => () => {
      handleRef.current = null;
    },
    [handleRef],
  );

  useEffect(() => {
    elements.current?.update(groupFor(saving, amountPence));
  }, [saving, amountPence, state]);

  handleRef.current = {
    async collect() {
      setProblem(undefined);
      const current = elements.current;
      if (!current) {
        setProblem('The payment fields are still loading. Please wait a moment and try again.');
        return undefined;
      }
      // The token says what the tenant sees now, whether or not the effect above has run since the last click.
      current.update(groupFor(saving, amountPence));
      const checked = await current.submit();
      if (checked.error) return undefined;
      const stripe = await loadStripe(keys.js_url, keys.publishable_key);
      const made = await stripe.createConfirmationToken({ elements: current });
      if (!made.confirmationToken) {
        setProblem(made.error?.message ?? 'Your payment details could not be checked. Please try again.');
        return undefined;
      }
      return { token: made.confirmationToken, save: saving };
    },
  };

  return (
    <div class="stripe-fields">
      {state === 'loading' ? (
        <p class="status" role="status">
          Loading secure payment fields…
        </p>
      ) : null}
      {state === 'unavailable' && wallet ? (
        <p class="hint" role="status">
          {wallet.name} is not available in this browser or on this device. Choose another way to pay.
        </p>
      ) : null}
      {state === 'failed' ? (
        <div class="alert" role="alert">
          The secure payment fields could not be loaded. Check your connection and{' '}
          <button type="button" class="link" onClick={() => setAttempt((n) => n + 1)}>
            try again
          </button>
          .
        </div>
      ) : null}
      <div ref={host} class="stripe-element" />
      {problem ? (
        <p class="error" role="alert">
          {problem}
        </p>
      ) : null}
      {allowSave && method === 'card' && state === 'ready' ? (
        <label class="check">
          <input type="checkbox" checked={save} onChange={(event) => setSave(event.currentTarget.checked)} />
          Save this card for future payments
        </label>
      ) : null}
    </div>
  );
}
