/**
 * The page inside the SDK's iframe: it talks to the integrator's page (the SDK) by postMessage, only with
 * the origin the server let frame it, and only with window.parent. Message schema version 1:
 * `{source: "rentpay", v: 1, type, ...}`.
 */

export const MESSAGE_SOURCE = 'rentpay';
export const MESSAGE_VERSION = 1;

export type FeatureName = 'apms' | 'wallets' | 'recurring' | 'savedCards';

export interface Appearance {
  theme?: 'default' | 'night' | 'flat';
  variables?: Partial<Record<AppearanceVariable, string>>;
}

export type AppearanceVariable =
  | 'colorPrimary'
  | 'colorBackground'
  | 'colorText'
  | 'colorDanger'
  | 'fontFamily'
  | 'fontSizeBase'
  | 'borderRadius'
  | 'spacingUnit';

/** What SVC.init passes on (validated by the SDK; checked again by readOptions since it crosses a trust boundary). */
export interface EmbedOptions {
  pure_amount: string | null;
  isAmountEditable: boolean;
  reference: string | undefined;
  features: Partial<Record<FeatureName, boolean>>;
  appearance: Appearance | undefined;
  debug: boolean;
}

export interface EmbedMessage {
  source: typeof MESSAGE_SOURCE;
  v: typeof MESSAGE_VERSION;
  type: string;
  [key: string]: unknown;
}

export class Embed {
  constructor(readonly parentOrigin: string) {}

  post(type: string, payload: Record<string, unknown> = {}): void {
    window.parent.postMessage(
      { source: MESSAGE_SOURCE, v: MESSAGE_VERSION, type, ...payload },
      this.parentOrigin,
    );
  }

  listen(handler: (message: EmbedMessage) => void): () => void {
    const onMessage = (event: MessageEvent) => {
      if (event.source !== window.parent || event.origin !== this.parentOrigin) return;
      const data = event.data as Partial<EmbedMessage> | null;
      if (data?.source !== MESSAGE_SOURCE || data.v !== MESSAGE_VERSION || typeof data.type !== 'string')
        return;
      handler(data as EmbedMessage);
    };
    window.addEventListener('message', onMessage);
    return () => window.removeEventListener('message', onMessage);
  }

  /** Tells the SDK the content height, so its iframe fits without a scroll bar. */
  watchHeight(): void {
    watchHeight((height) => this.post('resize', { height }));
  }
}

/** Calls `report` with the page's height now and whenever it changes. */
function watchHeight(report: (height: number) => void): void {
  let last = 0;
  const measure = () => {
    const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
    if (height !== last) {
      last = height;
      report(height);
    }
  };
  new ResizeObserver(measure).observe(document.documentElement);
  measure();
}

/**
 * In a plain iframe (no SDK), the page tells its parent how high it is, so a site that listens can fit the frame
 * to it: `{source: "rentpay", v: 1, type: "resize", height}`. Only the height is sent, so any parent may read it.
 */
export function reportHeightToParent(): void {
  if (window.parent === window) return;
  watchHeight((height) =>
    window.parent.postMessage({ source: MESSAGE_SOURCE, v: MESSAGE_VERSION, type: 'resize', height }, '*'),
  );
}

const DARK = matchMedia('(prefers-color-scheme: dark)');
let chosenTheme: Appearance['theme'];

/** The integrator's theme, or without one the tenant's: night when their system is in dark mode. */
export function applyTheme(theme: Appearance['theme'] = chosenTheme): void {
  chosenTheme = theme;
  document.documentElement.dataset.theme = chosenTheme ?? (DARK.matches ? 'night' : 'default');
}
DARK.addEventListener('change', () => applyTheme());

/** The page's own sender and the origin the server allowed, from the SDK's iframe URL. */
export function embedFromUrl(params: URLSearchParams): Embed | undefined {
  if (params.get('sdk') !== '1') return undefined;
  const origin = params.get('origin');
  if (!origin || window.parent === window) return undefined;
  try {
    if (new URL(origin).origin !== origin) return undefined;
  } catch {
    return undefined;
  }
  return new Embed(origin);
}
