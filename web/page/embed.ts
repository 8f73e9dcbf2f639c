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

/** What SVC.init passes on (validated by the SDK; checked again here since it crosses a trust boundary). */
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
    let last = 0;
    const report = () => {
      const height = Math.ceil(document.documentElement.getBoundingClientRect().height);
      if (height !== last) {
        last = height;
        this.post('resize', { height });
      }
    };
    new ResizeObserver(report).observe(document.documentElement);
    report();
  }
}

const CSS_VARIABLES: Record<AppearanceVariable, string> = {
  colorPrimary: '--color-primary',
  colorBackground: '--color-background',
  colorText: '--color-text',
  colorDanger: '--color-danger',
  fontFamily: '--font-family',
  fontSizeBase: '--font-size-base',
  borderRadius: '--radius',
  spacingUnit: '--space',
};

/** A value for a CSS custom property: no way out of the declaration. */
const SAFE_VALUE = /^[#(),.%\w\s'"-]{1,100}$/;

export function applyAppearance(appearance: Appearance | undefined): void {
  const root = document.documentElement;
  root.dataset.theme = appearance?.theme ?? 'default';
  for (const [name, property] of Object.entries(CSS_VARIABLES) as [AppearanceVariable, string][]) {
    const value = appearance?.variables?.[name];
    if (typeof value === 'string' && SAFE_VALUE.test(value)) root.style.setProperty(property, value);
    else root.style.removeProperty(property);
  }
}

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
