/**
 * The rentpay client SDK. One file: it is the SDK's single bundle entry and its parts (options, the frame's
 * messages, the public methods) share one instance's state. It renders the payment form inside our own iframe
 * (card data never touches the integrator's page) and talks to it by postMessage, version 1, checking
 * both the sender window and its origin.
 */
import {
  formatPence,
  MAX_PURE_AMOUNT_PENCE,
  MIN_PURE_AMOUNT_PENCE,
  numberToPence,
  parsePence,
} from '../../src/shared/money.ts';
import type { Appearance, EventMap, InitOptions, Payment, Rentpay, RentpayError } from './rentpay.d.ts';

const VERSION = '1.0.0';
const GLOBAL_KEY = '__rentpay_sdk__';
const MESSAGE_SOURCE = 'rentpay';
const MESSAGE_VERSION = 1;
/** The frame says "loaded" within this time or init fails (a refused frame never says anything). */
const LOAD_TIMEOUT_MS = 15_000;
const MIN_AMOUNT = MIN_PURE_AMOUNT_PENCE / 100;
const MAX_AMOUNT = MAX_PURE_AMOUNT_PENCE / 100;
const FEATURES = ['apms', 'recurring', 'wallets', 'savedCards'];
const THEMES = ['default', 'night', 'flat'];
const VARIABLES = [
  'colorPrimary',
  'colorBackground',
  'colorText',
  'colorDanger',
  'fontFamily',
  'fontSizeBase',
  'borderRadius',
  'spacingUnit',
];
const OPTIONS = [
  'apiBaseUrl',
  'authToken',
  'container',
  'pure_amount',
  'isAmountEditable',
  'reference',
  'environment',
  'debug',
  'features',
  'appearance',
  'onSuccess',
  'onError',
];

type Listener = (data: never) => void;

interface FrameMessage {
  source: string;
  v: number;
  type: string;
  [key: string]: unknown;
}

interface Instance {
  options: InitOptions;
  frame: HTMLIFrameElement;
  frameOrigin: string;
  ready: boolean;
  /** The amount the platform set at user-login, once the form has loaded the session. */
  sessionAmount?: { pure_amount: string | null; editable: boolean };
  payments: Map<string, { resolve(payment: Payment): void; reject(error: RentpayError): void }>;
  nextPayId: number;
  stop(): void;
  /** Rejects init's promise if it is still pending (destroy during init). */
  abandon(reason: RentpayError): void;
}

function problem(code: string, message: string): RentpayError {
  return { code, message };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Pounds as the number `pureAmount` takes, e.g. 10.5, to the decimal string the service takes, "10.50". */
function amountString(value: number): string | undefined {
  const pence = numberToPence(value);
  if (pence === undefined || pence < MIN_PURE_AMOUNT_PENCE || pence > MAX_PURE_AMOUNT_PENCE) return undefined;
  return formatPence(pence);
}

function checkAppearance(appearance: unknown): string | undefined {
  if (appearance === undefined) return undefined;
  if (!isObject(appearance)) return 'appearance must be an object.';
  for (const key of Object.keys(appearance)) {
    if (key !== 'theme' && key !== 'variables') return `appearance.${key} is not an appearance option.`;
  }
  if (appearance.theme !== undefined && !THEMES.includes(String(appearance.theme))) {
    return `appearance.theme must be one of ${THEMES.join(', ')}.`;
  }
  if (appearance.variables !== undefined) {
    if (!isObject(appearance.variables)) return 'appearance.variables must be an object.';
    for (const [key, value] of Object.entries(appearance.variables)) {
      if (!VARIABLES.includes(key))
        return `appearance.variables.${key} is not one of ${VARIABLES.join(', ')}.`;
      if (typeof value !== 'string') return `appearance.variables.${key} must be a string.`;
    }
  }
  return undefined;
}

/** Every mistake in SVC.init's options, one message naming the option (the option table in docs/sdk.md). */
function checkOptions(options: unknown): RentpayError | undefined {
  const invalid = (message: string) => problem('invalid_option', message);
  if (!isObject(options)) return invalid('SVC.init takes one options object.');
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) return invalid(`${key} is not an option of SVC.init.`);
  }
  const { apiBaseUrl, authToken, container, pure_amount, isAmountEditable, reference, environment } = options;
  if (typeof apiBaseUrl !== 'string' || apiBaseUrl === '') return invalid('apiBaseUrl is required.');
  if (apiBaseUrl.endsWith('/')) return invalid('apiBaseUrl must not end with a slash.');
  let url: URL;
  try {
    url = new URL(apiBaseUrl);
  } catch {
    return invalid('apiBaseUrl must be an absolute URL, e.g. https://pay.example.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return invalid('apiBaseUrl must be http or https.');
  if (url.pathname !== '/' || url.search || url.hash) {
    return invalid('apiBaseUrl is the service origin only, with no path, e.g. https://pay.example.');
  }
  if (typeof authToken !== 'string' || authToken === '') return invalid('authToken is required.');
  if (typeof container !== 'string' && !(container instanceof HTMLElement)) {
    return invalid('container must be a CSS selector or an HTMLElement.');
  }
  if (isAmountEditable !== undefined && typeof isAmountEditable !== 'boolean') {
    return invalid('isAmountEditable must be true or false.');
  }
  // Omitted: the session's own amount. Whether the session has one is known once the form has loaded it.
  if (
    pure_amount !== undefined &&
    (typeof pure_amount !== 'number' || amountString(pure_amount) === undefined)
  ) {
    return invalid(
      `pure_amount must be a number of pounds from ${MIN_AMOUNT} to ${MAX_AMOUNT} with at most two decimals, e.g. 10.50.`,
    );
  }
  if (
    reference !== undefined &&
    (typeof reference !== 'string' || reference === '' || reference.length > 100)
  ) {
    return invalid('reference must be a string of 1 to 100 characters.');
  }
  if (environment !== undefined && environment !== 'sandbox' && environment !== 'production') {
    return invalid('environment must be "sandbox" or "production".');
  }
  if (options.debug !== undefined && typeof options.debug !== 'boolean')
    return invalid('debug must be true or false.');
  if (options.features !== undefined) {
    if (!isObject(options.features)) return invalid('features must be an object.');
    for (const [key, value] of Object.entries(options.features)) {
      if (!FEATURES.includes(key)) return invalid(`features.${key} is not one of ${FEATURES.join(', ')}.`);
      if (typeof value !== 'boolean') return invalid(`features.${key} must be true or false.`);
    }
  }
  const appearanceProblem = checkAppearance(options.appearance);
  if (appearanceProblem) return invalid(appearanceProblem);
  for (const callback of ['onSuccess', 'onError'] as const) {
    if (options[callback] !== undefined && typeof options[callback] !== 'function') {
      return invalid(`${callback} must be a function.`);
    }
  }
  return undefined;
}

function findContainer(container: string | HTMLElement): HTMLElement | RentpayError {
  if (container instanceof HTMLElement) {
    return container.isConnected
      ? container
      : problem('container_not_found', 'The container is not in the page.');
  }
  let found: Element | null;
  try {
    found = document.querySelector(container);
  } catch {
    return problem('invalid_option', `container "${container}" is not a valid CSS selector.`);
  }
  return found instanceof HTMLElement
    ? found
    : problem('container_not_found', `No element matches "${container}".`);
}

function createSdk(): Rentpay {
  let instance: Instance | undefined;
  const listeners = new Map<string, Set<Listener>>();

  const log = (...args: unknown[]) => {
    if (instance?.options.debug) console.info('[rentpay]', ...args);
  };

  const emit = <E extends keyof EventMap>(event: E, data: EventMap[E]) => {
    for (const listener of listeners.get(event) ?? []) {
      try {
        (listener as (value: EventMap[E]) => void)(data);
      } catch (error) {
        console.error(`[rentpay] a "${event}" listener threw`, error);
      }
    }
  };

  /** An integrator's callback, guarded like the `on()` listeners: one that throws does not stop the events. */
  const call = <T>(name: string, callback: ((value: T) => void) | undefined, value: T) => {
    if (!callback) return;
    try {
      callback(value);
    } catch (error) {
      console.error(`[rentpay] ${name} threw`, error);
    }
  };

  const post = (target: Instance, type: string, payload: Record<string, unknown> = {}) => {
    target.frame.contentWindow?.postMessage(
      { source: MESSAGE_SOURCE, v: MESSAGE_VERSION, type, ...payload },
      target.frameOrigin,
    );
  };

  const teardown = (reason: RentpayError) => {
    const current = instance;
    if (!current) return;
    instance = undefined;
    current.stop();
    current.frame.remove();
    current.abandon(reason);
    for (const pending of current.payments.values()) pending.reject(reason);
  };

  const sdk: Rentpay = {
    version: VERSION,

    init(options) {
      if (instance) {
        return Promise.reject(
          problem('already_initialized', 'SVC.init was called already; call SVC.destroy() first.'),
        );
      }
      const mistake = checkOptions(options);
      if (mistake) return Promise.reject(mistake);
      const container = findContainer(options.container);
      if (!(container instanceof HTMLElement)) return Promise.reject(container);

      const settings: InitOptions = {
        ...options,
        reference: options.reference ?? `SVC_${Date.now()}`,
        environment: options.environment ?? 'production',
      };
      const frameOrigin = new URL(settings.apiBaseUrl).origin;
      const frame = document.createElement('iframe');
      frame.title = 'Payment form';
      frame.allow = 'payment';
      frame.setAttribute('scrolling', 'no');
      frame.style.cssText = 'display:block;width:100%;min-width:280px;height:420px;border:0;';
      frame.src =
        `${frameOrigin}/third-party?sdk=1&origin=${encodeURIComponent(location.origin)}` +
        `&token=${encodeURIComponent(settings.authToken)}`;

      return new Promise<void>((resolve, reject) => {
        let settled = false;
        const fail = (error: RentpayError) => {
          if (settled) return;
          settled = true;
          teardown(error);
          reject(error);
        };
        const timer = setTimeout(
          () => fail(problem('load_failed', `The payment form did not load from ${frameOrigin}.`)),
          LOAD_TIMEOUT_MS,
        );
        const onMessage = (event: MessageEvent) => {
          const current = instance;
          if (!current || event.source !== frame.contentWindow || event.origin !== frameOrigin) return;
          const data = event.data as Partial<FrameMessage> | null;
          if (data?.source !== MESSAGE_SOURCE || data.v !== MESSAGE_VERSION) return;
          log('frame says', data.type);
          switch (data.type) {
            case 'loaded': {
              // The current options: SVC.update may have changed them before the frame loaded.
              const rest = current.options;
              post(current, 'init', {
                options: {
                  pure_amount: rest.pure_amount === undefined ? null : amountString(rest.pure_amount),
                  isAmountEditable: rest.isAmountEditable === true,
                  reference: rest.reference,
                  features: rest.features ?? {},
                  appearance: rest.appearance,
                  debug: rest.debug === true,
                },
              });
              break;
            }
            case 'ready': {
              clearTimeout(timer);
              if (data.environment !== settings.environment) {
                fail(
                  problem(
                    'environment_mismatch',
                    `environment is "${settings.environment}" but ${frameOrigin} is a ${String(data.environment)} service.`,
                  ),
                );
                return;
              }
              current.ready = true;
              current.sessionAmount = data.amount as Instance['sessionAmount'];
              if (!settled) {
                settled = true;
                resolve();
              }
              emit('ready', { environment: data.environment as 'sandbox' | 'production' });
              break;
            }
            case 'init_error':
              clearTimeout(timer);
              fail(
                (data.error as RentpayError) ?? problem('load_failed', 'The payment form could not start.'),
              );
              break;
            case 'resize':
              if (typeof data.height === 'number' && data.height > 0)
                frame.style.height = `${Math.ceil(data.height)}px`;
              break;
            case 'change': {
              const { method, pure_amount, fee, amount } = data as unknown as EventMap['change'];
              emit('change', { method, pure_amount, fee, amount });
              break;
            }
            case 'success': {
              const payment = data.payment as Payment;
              call('onSuccess', settings.onSuccess, payment);
              emit('success', payment);
              break;
            }
            case 'error': {
              const error = data.error as RentpayError;
              call('onError', settings.onError, error);
              emit('error', error);
              break;
            }
            case 'expired':
              emit('expired', data.error as RentpayError);
              break;
            case 'pay_result': {
              const pending = current.payments.get(String(data.id));
              if (!pending) return;
              current.payments.delete(String(data.id));
              if (data.payment) pending.resolve(data.payment as Payment);
              else pending.reject((data.error as RentpayError) ?? problem('unexpected', 'No result.'));
              break;
            }
          }
        };
        window.addEventListener('message', onMessage);
        instance = {
          options: settings,
          frame,
          frameOrigin,
          ready: false,
          payments: new Map(),
          nextPayId: 1,
          stop: () => {
            clearTimeout(timer);
            window.removeEventListener('message', onMessage);
          },
          abandon: (reason) => {
            if (settled) return;
            settled = true;
            reject(reason);
          },
        };
        log('init', { apiBaseUrl: settings.apiBaseUrl, environment: settings.environment });
        container.appendChild(frame);
      });
    },

    pay() {
      const current = instance;
      if (!current?.ready)
        return Promise.reject(problem('not_initialized', 'Call SVC.init and wait for it first.'));
      if (current.payments.size > 0) {
        return Promise.reject(problem('payment_in_progress', 'A payment is already in progress.'));
      }
      const id = String(current.nextPayId++);
      return new Promise<Payment>((resolve, reject) => {
        current.payments.set(id, { resolve, reject });
        log('pay', id);
        post(current, 'pay', { id });
      });
    },

    update(changes) {
      const current = instance;
      if (!current) throw problem('not_initialized', 'Call SVC.init first.');
      if (!isObject(changes)) throw problem('invalid_option', 'SVC.update takes an object.');
      const sent: { pure_amount?: string; reference?: string; appearance?: Appearance } = {};
      for (const key of Object.keys(changes)) {
        if (key !== 'pure_amount' && key !== 'reference' && key !== 'appearance') {
          throw problem('invalid_option', `${key} cannot be changed by SVC.update.`);
        }
      }
      if (changes.pure_amount !== undefined) {
        const amount =
          typeof changes.pure_amount === 'number' ? amountString(changes.pure_amount) : undefined;
        if (!amount)
          throw problem(
            'invalid_option',
            `pure_amount must be a number of pounds from ${MIN_AMOUNT} to ${MAX_AMOUNT}.`,
          );
        const fixed = current.sessionAmount?.editable === false ? current.sessionAmount.pure_amount : null;
        // In pence: 950 and "950.00" are the same amount.
        if (fixed !== null && numberToPence(changes.pure_amount) !== parsePence(fixed)) {
          throw {
            ...problem('amount_mismatch', `The amount of this session is fixed at ${fixed} by the platform.`),
            pure_amount: fixed,
          } satisfies RentpayError;
        }
        sent.pure_amount = amount;
      }
      if (changes.reference !== undefined) {
        if (
          typeof changes.reference !== 'string' ||
          changes.reference === '' ||
          changes.reference.length > 100
        ) {
          throw problem('invalid_option', 'reference must be a string of 1 to 100 characters.');
        }
        sent.reference = changes.reference;
      }
      if (changes.appearance !== undefined) {
        const appearanceProblem = checkAppearance(changes.appearance);
        if (appearanceProblem) throw problem('invalid_option', appearanceProblem);
        sent.appearance = changes.appearance;
      }
      current.options = { ...current.options, ...changes } as InitOptions;
      post(current, 'update', { changes: sent });
    },

    destroy() {
      teardown(problem('destroyed', 'SVC.destroy() was called.'));
      listeners.clear();
    },

    on(event, listener) {
      if (!['ready', 'change', 'success', 'error', 'expired'].includes(event)) {
        throw problem(
          'invalid_option',
          `"${event}" is not an event; use ready, change, success, error or expired.`,
        );
      }
      if (typeof listener !== 'function') throw problem('invalid_option', 'The listener must be a function.');
      let set = listeners.get(event);
      if (!set) {
        set = new Set();
        listeners.set(event, set);
      }
      set.add(listener as Listener);
    },

    off(event, listener) {
      listeners.get(event)?.delete(listener as Listener);
    },
  };
  return sdk;
}

type SdkGlobal = typeof globalThis & { [GLOBAL_KEY]?: Rentpay };

function singleton(): Rentpay {
  const scope = globalThis as SdkGlobal;
  const existing = scope[GLOBAL_KEY];
  if (existing) {
    console.warn('[rentpay] The SDK is loaded more than once on this page; using the copy loaded first.');
    return existing;
  }
  const sdk = createSdk();
  Object.defineProperty(scope, GLOBAL_KEY, { value: sdk, enumerable: false });
  return sdk;
}

const SVC = singleton();
export default SVC;
