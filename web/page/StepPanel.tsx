import { useEffect, useRef, useState } from 'preact/hooks';
import type { PaymentMethod } from './api.ts';
import { moneyOf } from './money.ts';
import { type ActionView, originOf, waitForStepMessage } from './steps.ts';

const PROVIDER: Partial<Record<PaymentMethod, string>> = {
  alipay: 'Alipay',
  wechat_pay: 'WeChat Pay',
  unionpay: 'UnionPay',
  apple_pay: 'Apple Pay',
  google_pay: 'Google Pay',
};

export function StepPanel({ view }: { view: ActionView }) {
  const frame = useRef<HTMLIFrameElement>(null);
  const popup = useRef<Window | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  // Only the sandbox's own pages (its 3DS check, its wallet sheet) open inside ours. A provider's page (Alipay,
  // UnionPay, WeChat Pay's) is a third party's: never framed (the providers and Stripe forbid it, and our CSP
  // would block it), in a popup or, when the browser blocks that, a new tab the tenant opens from a link.
  const inline = view.action.type === 'three_ds';
  const [opened, setOpened] = useState(false);
  /** The browser blocked the popup: a link opens the provider's page in a new tab instead. */
  const [blocked, setBlocked] = useState(false);
  /** The provider's window was closed while the payment still waited (the tenant gave up, or closed it by mistake). */
  const [closedEarly, setClosedEarly] = useState(false);
  const provider = PROVIDER[view.method] ?? 'your bank';

  useEffect(() => {
    heading.current?.focus();
    const message = waitForStepMessage(
      originOf(view.messageOrigin ?? view.action.url),
      () => popup.current ?? frame.current?.contentWindow ?? null,
      view.signal,
    );
    if (view.kind === 'wallet') {
      message.then(
        (data) => {
          if (data.outcome && data.token) view.onWalletToken?.(data.token);
        },
        () => undefined,
      );
      return;
    }
    void view.wait(message).catch(() => undefined);
    return () => popup.current?.close();
  }, [view]);

  const openWindow = () => {
    const opened = window.open(view.action.url, 'rentpay-step', 'popup,width=480,height=640');
    if (!opened) {
      // A blocked popup: the tenant opens the provider's page from a link; the payment is polled as before.
      setBlocked(true);
      return;
    }
    popup.current = opened;
    setOpened(true);
    setBlocked(false);
    setClosedEarly(false);
    // A closed window sends no event to another origin's page: look now and then while the step waits.
    const watch = setInterval(() => {
      if (view.signal.aborted) return clearInterval(watch);
      if (!opened.closed) return;
      clearInterval(watch);
      if (popup.current === opened) {
        setOpened(false);
        setClosedEarly(true);
      }
    }, 500);
    view.signal.addEventListener('abort', () => clearInterval(watch));
  };

  /** The provider's page in a new tab, for a browser that blocked the popup (the link is the tenant's own click). */
  const providerLink = (
    <p>
      <a class="pay" href={view.action.url} target="_blank" rel="noopener">
        Open {provider} to pay
      </a>
    </p>
  );

  let title: string;
  let body: preact.ComponentChildren;
  if (view.kind === 'wallet') {
    title = `Pay with ${provider}`;
    body = (
      <p>
        Confirm the payment of {view.amount === undefined ? '' : moneyOf(view.amount)} in the {provider} sheet
        below.
      </p>
    );
  } else if (view.action.type === 'three_ds') {
    title = 'Confirm it’s you';
    body = (
      <p>
        Your bank needs to check {view.kind === 'card' ? 'this card before it is saved' : 'this payment'}.
        Complete the check below.
      </p>
    );
  } else if (view.action.type === 'qr') {
    title = `Scan to pay with ${provider}`;
    body = (
      <>
        <p>
          Open {provider} on your phone and scan this code to pay{' '}
          {view.amount === undefined ? '' : moneyOf(view.amount)}. This page updates when you have paid.
        </p>
        {view.action.image_url ? (
          <img
            class="qr"
            src={view.action.image_url}
            alt={`QR code to pay with ${provider}`}
            width={200}
            height={200}
          />
        ) : null}
        {blocked ? (
          providerLink
        ) : (
          <p>
            <button type="button" class="secondary" onClick={openWindow}>
              Open the {provider} payment page instead
            </button>
          </p>
        )}
      </>
    );
  } else {
    title = `Continue with ${provider}`;
    body = (
      <>
        <p>
          {opened
            ? `Waiting for you to confirm the payment in the ${provider} window…`
            : blocked
              ? `Your browser blocked the ${provider} window. Open ${provider} in a new tab to confirm the payment of ${view.amount === undefined ? '' : moneyOf(view.amount)}; this page updates when you have paid.`
              : closedEarly
                ? `The ${provider} window was closed before the payment was confirmed. Open it again to pay, or cancel.`
                : `Confirm the payment of ${view.amount === undefined ? '' : moneyOf(view.amount)} with ${provider} in a new window.`}
        </p>
        {opened ? null : blocked ? (
          providerLink
        ) : (
          <p>
            <button type="button" class="pay" onClick={openWindow}>
              {closedEarly ? `Open ${provider} again` : `Continue to ${provider}`}
            </button>
          </p>
        )}
      </>
    );
  }

  return (
    <div class="step" aria-live="polite">
      <h2 ref={heading} tabIndex={-1}>
        {title}
      </h2>
      {body}
      {inline ? (
        <iframe
          ref={frame}
          class="step-frame"
          src={view.action.url}
          title={
            view.kind === 'wallet'
              ? `${provider} sheet`
              : view.action.type === 'three_ds'
                ? '3D Secure check'
                : `${provider} payment page`
          }
        />
      ) : null}
      <p>
        <button type="button" class="secondary" onClick={() => view.onCancel()}>
          Cancel
        </button>
      </p>
    </div>
  );
}
