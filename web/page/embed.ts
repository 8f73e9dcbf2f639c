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

const FEATURE_NAMES: readonly FeatureName[] = ['apms', 'wallets', 'recurring', 'savedCards'];
const THEMES: readonly string[] = ['default', 'night', 'flat'];
/** An amount as the SDK sends it: pounds with two decimals; the limits are the form's to check. */
const AMOUNT = /^\d{1,9}\.\d{2}$/;

type Checked<T> = { ok: true; value: T } | { ok: false; message: string };

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function readAppearance(value: unknown): Checked<Appearance | undefined> {
  if (value === undefined || value === null) return { ok: true, value: undefined };
  if (!isRecord(value)) return { ok: false, message: 'appearance must be an object.' };
  const appearance: Appearance = {};
  if (value.theme !== undefined) {
    if (typeof value.theme !== 'string' || !THEMES.includes(value.theme))
      return { ok: false, message: 'appearance.theme is not a theme.' };
    appearance.theme = value.theme as Appearance['theme'];
  }
  if (value.variables !== undefined) {
    if (!isRecord(value.variables)) return { ok: false, message: 'appearance.variables must be an object.' };
    const variables: Partial<Record<AppearanceVariable, string>> = {};
    for (const [key, variable] of Object.entries(value.variables)) {
      if (!(key in CSS_VARIABLES) || typeof variable !== 'string')
        return { ok: false, message: `appearance.variables.${key} is not a variable.` };
      variables[key as AppearanceVariable] = variable;
    }
    appearance.variables = variables;
  }
  return { ok: true, value: appearance };
}

function readAmount(value: unknown): Checked<string | null> {
  if (value === null || value === undefined) return { ok: true, value: null };
  if (typeof value !== 'string' || !AMOUNT.test(value))
    return { ok: false, message: 'pure_amount must be a decimal string such as "10.50".' };
  return { ok: true, value };
}

function readReference(value: unknown): Checked<string | undefined> {
  if (value === undefined) return { ok: true, value: undefined };
  if (typeof value !== 'string' || value === '' || value.length > 100)
    return { ok: false, message: 'reference must be a string of 1 to 100 characters.' };
  return { ok: true, value };
}

/** SVC.init's options from the parent, type by type; anything else is refused, not trusted. */
export function readOptions(raw: unknown): Checked<EmbedOptions> {
  if (!isRecord(raw)) return { ok: false, message: 'The options must be an object.' };
  const amount = readAmount(raw.pure_amount);
  if (!amount.ok) return amount;
  const reference = readReference(raw.reference);
  if (!reference.ok) return reference;
  const appearance = readAppearance(raw.appearance);
  if (!appearance.ok) return appearance;
  const features: Partial<Record<FeatureName, boolean>> = {};
  if (raw.features !== undefined) {
    if (!isRecord(raw.features)) return { ok: false, message: 'features must be an object.' };
    for (const [key, value] of Object.entries(raw.features)) {
      if (!FEATURE_NAMES.includes(key as FeatureName) || typeof value !== 'boolean')
        return { ok: false, message: `features.${key} is not a feature switch.` };
      features[key as FeatureName] = value;
    }
  }
  if (raw.isAmountEditable !== undefined && typeof raw.isAmountEditable !== 'boolean')
    return { ok: false, message: 'isAmountEditable must be true or false.' };
  if (raw.debug !== undefined && typeof raw.debug !== 'boolean')
    return { ok: false, message: 'debug must be true or false.' };
  return {
    ok: true,
    value: {
      pure_amount: amount.value,
      isAmountEditable: raw.isAmountEditable === true,
      reference: reference.value,
      features,
      appearance: appearance.value,
      debug: raw.debug === true,
    },
  };
}

/** SVC.update's changes from the parent: only pure_amount, reference and appearance, each checked. */
export function readChanges(
  raw: unknown,
): Checked<Partial<Pick<EmbedOptions, 'pure_amount' | 'reference' | 'appearance'>>> {
  if (!isRecord(raw)) return { ok: false, message: 'The changes must be an object.' };
  const changes: Partial<Pick<EmbedOptions, 'pure_amount' | 'reference' | 'appearance'>> = {};
  for (const key of Object.keys(raw)) {
    if (key !== 'pure_amount' && key !== 'reference' && key !== 'appearance')
      return { ok: false, message: `${key} cannot be changed.` };
  }
  if (raw.pure_amount !== undefined) {
    const amount = readAmount(raw.pure_amount);
    if (!amount.ok || amount.value === null)
      return { ok: false, message: 'pure_amount must be a decimal string such as "10.50".' };
    changes.pure_amount = amount.value;
  }
  if (raw.reference !== undefined) {
    const reference = readReference(raw.reference);
    if (!reference.ok) return reference;
    changes.reference = reference.value;
  }
  if (raw.appearance !== undefined) {
    const appearance = readAppearance(raw.appearance);
    if (!appearance.ok) return appearance;
    changes.appearance = appearance.value;
  }
  return { ok: true, value: changes };
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

const DARK = matchMedia('(prefers-color-scheme: dark)');
let chosenTheme: Appearance['theme'];

/** The integrator's theme, or without one the tenant's: night when their system is in dark mode. */
export function applyTheme(): void {
  document.documentElement.dataset.theme = chosenTheme ?? (DARK.matches ? 'night' : 'default');
}
DARK.addEventListener('change', applyTheme);

export function applyAppearance(appearance: Appearance | undefined): void {
  const root = document.documentElement;
  chosenTheme = appearance?.theme;
  applyTheme();
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
