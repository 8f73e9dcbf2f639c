/** Waiting for the customer elsewhere: a 3DS challenge, an APM page or a wallet sheet. */

import type { PaymentMethod, UrlAction } from './api.ts';

/** A step the page shows while the payment waits for the tenant. */
export interface ActionView {
  /** What waits: a payment (3DS, APM), a card being saved (3DS) or a wallet sheet. */
  kind: 'payment' | 'card' | 'wallet';
  action: UrlAction;
  /** Where the step's "done" message comes from, when not the step page's origin (Stripe's return page). */
  messageOrigin?: string;
  method: PaymentMethod;
  amount: string | undefined;
  signal: AbortSignal;
  onCancel(): void;
  onWalletToken?(token: string): void;
  /** Starts waiting for the outcome; `wake` settles when the step's page says it is done. */
  wait(wake: Promise<unknown>): Promise<void>;
}

export interface SandboxMessage {
  type: 'rentpay:sandbox-complete' | 'rentpay:processor-return';
  kind: 'three_ds' | 'apm' | 'wallet';
  outcome: 'authorise' | 'fail';
  charge_id?: string;
  wallet?: string;
  token?: string;
}

/**
 * Resolves with the first message from `source()` sent from `origin`; the sender is checked as well as the
 * origin, so another frame of ours cannot answer for it.
 */
export function waitForStepMessage(
  origin: string,
  source: () => MessageEventSource | null,
  signal: AbortSignal,
): Promise<SandboxMessage> {
  return new Promise((resolve, reject) => {
    const onMessage = (event: MessageEvent) => {
      if (event.origin !== origin) return;
      const expected = source();
      if (expected && event.source !== expected) return;
      const data = event.data as Partial<SandboxMessage> | null;
      // The sandbox's step pages, or our return page after a processor's redirect (outcome read from the server).
      if (data?.type !== 'rentpay:sandbox-complete' && data?.type !== 'rentpay:processor-return') return;
      window.removeEventListener('message', onMessage);
      resolve(data as SandboxMessage);
    };
    window.addEventListener('message', onMessage);
    signal.addEventListener('abort', () => {
      window.removeEventListener('message', onMessage);
      reject(signal.reason);
    });
  });
}

/**
 * Polls until `check` says done. `wake` (a message from the step's page) polls at once instead of waiting
 * for the next tick, so the outcome shows as soon as the server has it.
 */
export async function pollUntil<T>(
  load: () => Promise<T>,
  done: (value: T) => boolean,
  signal: AbortSignal,
  wake?: Promise<unknown>,
  intervalMs = 750,
): Promise<T> {
  let woken = false;
  wake?.then(
    () => {
      woken = true;
    },
    () => undefined,
  );
  for (;;) {
    if (signal.aborted) throw signal.reason;
    const value = await load();
    if (done(value)) return value;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, woken ? intervalMs / 3 : intervalMs);
      signal.addEventListener('abort', () => {
        clearTimeout(timer);
        resolve();
      });
      if (!woken) {
        wake?.then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          () => undefined,
        );
      }
    });
  }
}

export function originOf(url: string): string {
  return new URL(url, location.href).origin;
}
