/**
 * Only inside the SDK's iframe (loaded there on demand): SVC.init's and SVC.update's options, checked again since
 * they cross a trust boundary (and against the session's amount), the integrator's appearance, and the messages the
 * SDK sends.
 */

import type { SessionAmount } from './api.ts';
import {
  type Appearance,
  type AppearanceVariable,
  applyTheme,
  type Embed,
  type EmbedMessage,
  type EmbedOptions,
  type FeatureName,
} from './embed.ts';
import { parseTypedPence } from './money.ts';
import type { PaymentError } from './outcomes.ts';

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
  applyTheme(appearance?.theme);
  for (const [name, property] of Object.entries(CSS_VARIABLES) as [AppearanceVariable, string][]) {
    const value = appearance?.variables?.[name];
    if (typeof value === 'string' && SAFE_VALUE.test(value)) root.style.setProperty(property, value);
    else root.style.removeProperty(property);
  }
}

export interface SdkHandlers {
  /** SVC.init's options, once checked. */
  onInit(options: EmbedOptions): void;
  /** SVC.update's changes, once checked. */
  onUpdate(changes: Partial<Pick<EmbedOptions, 'pure_amount' | 'reference' | 'appearance'>>): void;
  /** SVC.pay(): the outcome goes back with the message's id. */
  onPay(): Promise<Record<string, unknown>>;
}

/** Listens to the SDK, says the frame is here (`loaded`), and keeps the SDK told of its height. */
export function connectSdk(embed: Embed, handlers: SdkHandlers): () => void {
  embed.watchHeight();
  const stop = embed.listen((message: EmbedMessage) => {
    if (message.type === 'init') {
      const received = readOptions(message.options);
      if (!received.ok) {
        embed.post('init_error', { error: { code: 'invalid_option', message: received.message } });
        return;
      }
      applyAppearance(received.value.appearance);
      handlers.onInit(received.value);
    } else if (message.type === 'update') {
      const read = readChanges(message.changes);
      // The SDK checked them already; anything else did not come from it, and changes nothing.
      if (!read.ok) return;
      if (read.value.appearance !== undefined) applyAppearance(read.value.appearance);
      handlers.onUpdate(read.value);
    } else if (message.type === 'pay') {
      const id = message.id;
      handlers.onPay().then((outcome) => embed.post('pay_result', { id, ...outcome }));
    }
  });
  embed.post('loaded');
  return stop;
}

/**
 * Whether the SDK's options fit the session's amount: the platform's server fixes it at user-login and the
 * integrator's page can only narrow it (the browser never widens the amount).
 */
export function amountMismatch(amount: SessionAmount, options: EmbedOptions): PaymentError | undefined {
  if (!amount.editable && amount.pure_amount !== null) {
    const differs =
      options.pure_amount !== null &&
      parseTypedPence(options.pure_amount) !== parseTypedPence(amount.pure_amount);
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
