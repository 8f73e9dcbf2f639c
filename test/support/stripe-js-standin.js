// A stand-in for Stripe.js, served by the local Stripe stand-in (test/support/stripe-server.ts) at /js/v3/. It is not
// Stripe.js: it implements only what rentpay's page calls (Stripe(), elements() with a Payment Element,
// createConfirmationToken, handleNextAction, retrievePaymentIntent) with the same shapes, and like Stripe.js keeps
// card fields inside a frame of its own origin, so card numbers never reach the page's script. Where the page
// could get Stripe.js wrong it is as strict as Stripe.js: an Elements group it would refuse throws an
// IntegrationError, elements.update() merges, and a ConfirmationToken carries the group's current options.
(() => {
  const script = document.currentScript;
  const base = new URL(script.src).origin;

  /** What Stripe.js throws for a call it refuses (its `name` is IntegrationError). */
  class IntegrationError extends Error {
    constructor(message) {
      super(message);
      this.name = 'IntegrationError';
    }
  }

  /**
   * Stripe's payment method types, as `paymentMethodTypes` takes them. Apple Pay and Google Pay are not among
   * them: at Stripe a wallet pays with a card, so its Elements group is a `card` one.
   */
  const PAYMENT_METHOD_TYPES = new Set([
    'acss_debit',
    'affirm',
    'afterpay_clearpay',
    'alipay',
    'alma',
    'amazon_pay',
    'au_becs_debit',
    'bacs_debit',
    'bancontact',
    'billie',
    'blik',
    'boleto',
    'card',
    'cashapp',
    'customer_balance',
    'eps',
    'fpx',
    'giropay',
    'grabpay',
    'ideal',
    'kakao_pay',
    'klarna',
    'konbini',
    'kr_card',
    'link',
    'mobilepay',
    'multibanco',
    'naver_pay',
    'oxxo',
    'p24',
    'pay_by_bank',
    'payco',
    'paynow',
    'paypal',
    'pix',
    'promptpay',
    'revolut_pay',
    'samsung_pay',
    'satispay',
    'sepa_debit',
    'sofort',
    'swish',
    'twint',
    'us_bank_account',
    'wechat_pay',
    'zip',
  ]);

  const SETUP_FUTURE_USAGES = [undefined, null, 'off_session', 'on_session'];

  /** Throws as Stripe.js does for an Elements group (without a client secret) it would refuse. */
  function checkGroup(options, call) {
    const invalid = (what) => new IntegrationError(`Invalid value for ${call}: ${what}`);
    if (!['payment', 'setup', 'subscription'].includes(options.mode)) {
      throw invalid(`mode should be one of payment, setup or subscription. You specified: ${options.mode}.`);
    }
    if (options.mode !== 'setup' && !(Number.isInteger(options.amount) && options.amount > 0)) {
      throw invalid(
        `amount should be a positive integer in ${options.mode} mode. You specified: ${JSON.stringify(options.amount)}.`,
      );
    }
    if (typeof options.currency !== 'string' || !/^[a-z]{3}$/.test(options.currency)) {
      throw invalid(
        `currency should be a lowercase three-letter ISO currency code. You specified: ${JSON.stringify(options.currency)}.`,
      );
    }
    if (!SETUP_FUTURE_USAGES.includes(options.setupFutureUsage)) {
      throw invalid(
        `setupFutureUsage should be one of off_session, on_session or null. You specified: ${JSON.stringify(options.setupFutureUsage)}.`,
      );
    }
    const types = options.paymentMethodTypes;
    if (types === undefined) return;
    if (!Array.isArray(types) || types.length === 0) {
      throw invalid('paymentMethodTypes should be a non-empty array of payment method types.');
    }
    types.forEach((type, i) => {
      if (!PAYMENT_METHOD_TYPES.has(type)) {
        throw invalid(
          `paymentMethodTypes.${i} should be a payment method type Stripe supports (e.g. card, alipay, wechat_pay, link). You specified: ${JSON.stringify(type)}.`,
        );
      }
    });
  }

  /** Asks a frame of ours something and resolves with its answer (matched by a request id). */
  function ask(frame, message) {
    const id = Math.random().toString(36).slice(2);
    return new Promise((resolve) => {
      const onMessage = (event) => {
        if (event.origin !== base || event.data?.request_id !== id) return;
        window.removeEventListener('message', onMessage);
        resolve(event.data);
      };
      window.addEventListener('message', onMessage);
      frame.contentWindow.postMessage({ ...message, request_id: id }, base);
    });
  }

  async function retrieve(clientSecret, key) {
    const id = clientSecret.split('_secret_')[0];
    const kind = id.startsWith('seti_') ? 'setup_intents' : 'payment_intents';
    const query = new URLSearchParams({ client_secret: clientSecret, key });
    const response = await fetch(`${base}/v1/${kind}/${id}?${query}`);
    const body = await response.json();
    if (!response.ok) return { error: body.error };
    return kind === 'setup_intents' ? { setupIntent: body } : { paymentIntent: body };
  }

  /**
   * What the stand-in's device can pay with: both wallets, unless a test says otherwise in
   * `window.standinDeviceWallets` (as a browser without Apple Pay would), and only in an Elements group that takes
   * cards (a wallet pays with a card at Stripe). Like Stripe.js, undefined when no button would render.
   */
  function available(methods, group) {
    if (!(group.paymentMethodTypes ?? ['card']).includes('card')) return undefined;
    const device = window.standinDeviceWallets ?? ['apple_pay', 'google_pay'];
    const found = {
      applePay: methods.applePay === 'always' && device.includes('apple_pay'),
      googlePay: methods.googlePay === 'always' && device.includes('google_pay'),
      link: false,
    };
    return found.applePay || found.googlePay ? found : undefined;
  }

  /**
   * The Express Checkout Element with the one wallet `paymentMethods` asks for ('always'): a button in a frame of
   * ours. The stand-in's device has Apple Pay and Google Pay; pressing the button is the sheet's approval.
   */
  function expressCheckout(options, group) {
    const methods = options.paymentMethods ?? {};
    const wallet =
      methods.applePay === 'always' ? 'apple_pay' : methods.googlePay === 'always' ? 'google_pay' : '';
    const frame = document.createElement('iframe');
    frame.src = `${base}/_standin/express?wallet=${wallet}`;
    frame.title = 'Secure express checkout frame';
    frame.style.cssText = 'border:0;width:100%;height:60px;';
    const handlers = {};
    const onMessage = (event) => {
      if (event.origin !== base || event.source !== frame.contentWindow) return;
      if (event.data?.type !== 'standin:express-confirm') return;
      handlers.confirm?.({
        expressPaymentType: event.data.wallet,
        paymentFailed() {},
      });
    };
    window.addEventListener('message', onMessage);
    return {
      frame,
      mount(target) {
        const host = typeof target === 'string' ? document.querySelector(target) : target;
        host.appendChild(frame);
        frame.addEventListener('load', () =>
          handlers.ready?.({
            elementType: 'expressCheckout',
            availablePaymentMethods: available(methods, group),
          }),
        );
      },
      on(event, handler) {
        handlers[event] = handler;
      },
      unmount() {
        frame.remove();
      },
      destroy() {
        window.removeEventListener('message', onMessage);
        frame.remove();
      },
      options,
    };
  }

  function Stripe(key) {
    if (!/^pk_(test|live)_/.test(String(key))) throw new Error('Invalid publishable key');
    return {
      elements(given = {}) {
        checkGroup(given, 'elements()');
        const options = { ...given };
        let element;
        return {
          options,
          /** Like Stripe.js: merges into the group's options (an option not named keeps its value). */
          update(changes) {
            checkGroup({ ...options, ...changes }, 'elements.update()');
            Object.assign(options, changes);
          },
          create(type, elementOptions = {}) {
            if (type === 'expressCheckout') {
              element = expressCheckout(elementOptions, options);
              return element;
            }
            if (type !== 'payment')
              throw new Error(`The stand-in only has the Payment and Express Checkout Elements, not ${type}`);
            const frame = document.createElement('iframe');
            const types = (options.paymentMethodTypes ?? ['card']).join(',');
            frame.src = `${base}/_standin/element?types=${encodeURIComponent(types)}`;
            frame.title = 'Secure payment input frame';
            frame.style.cssText = 'border:0;width:100%;height:120px;';
            const handlers = {};
            element = {
              frame,
              mount(target) {
                const host = typeof target === 'string' ? document.querySelector(target) : target;
                host.appendChild(frame);
                frame.addEventListener('load', () => handlers.ready?.({ elementType: 'payment' }));
              },
              on(event, handler) {
                handlers[event] = handler;
              },
              focus() {
                frame.focus();
              },
              unmount() {
                frame.remove();
              },
              destroy() {
                frame.remove();
              },
              options: elementOptions,
            };
            return element;
          },
          async submit() {
            if (!element)
              return { error: { type: 'validation_error', message: 'No Payment Element mounted.' } };
            const answer = await ask(element.frame, { type: 'validate' });
            return answer.error ? { error: answer.error } : {};
          },
          get element() {
            return element;
          },
        };
      },
      /** The token carries the group's options as they are now: its mode and setup_future_usage (when set). */
      async createConfirmationToken({ elements }) {
        const element = elements.element;
        if (!element) return { error: { type: 'validation_error', message: 'No Payment Element mounted.' } };
        const usage = elements.options.setupFutureUsage;
        const answer = await ask(element.frame, {
          type: 'create_confirmation_token',
          key,
          mode: elements.options.mode,
          ...(usage ? { setup_future_usage: usage } : {}),
        });
        return answer.error ? { error: answer.error } : { confirmationToken: answer.confirmation_token };
      },
      retrievePaymentIntent(clientSecret) {
        return retrieve(clientSecret, key);
      },
      retrieveSetupIntent(clientSecret) {
        return retrieve(clientSecret, key);
      },
      /**
       * 3DS or a QR code: a dialog with the issuer's (the stand-in's) page, until it says it is done. A test's
       * `window.standinNextActionError` makes the next call answer that `{error}` at once, with no dialog and the
       * intent left as it is, as Stripe.js answers when its frame is closed or the network fails.
       */
      async handleNextAction({ clientSecret }) {
        const hooked = window.standinNextActionError;
        if (hooked) {
          delete window.standinNextActionError;
          return { error: { ...hooked } };
        }
        const id = clientSecret.split('_secret_')[0];
        const dialog = document.createElement('div');
        dialog.setAttribute('role', 'dialog');
        dialog.setAttribute('aria-label', 'Authentication');
        dialog.style.cssText =
          'position:fixed;inset:0;background:rgba(0,0,0,.4);display:flex;align-items:center;justify-content:center;z-index:2147483647;';
        const frame = document.createElement('iframe');
        frame.src = `${base}/_standin/action/${id}`;
        frame.title = 'Stripe authentication';
        frame.name = 'stripe-challenge';
        frame.style.cssText = 'border:0;width:400px;height:320px;background:#fff;';
        dialog.appendChild(frame);
        document.body.appendChild(dialog);
        await new Promise((resolve) => {
          const onMessage = (event) => {
            if (event.origin !== base || event.data?.type !== 'standin:action-done' || event.data.id !== id)
              return;
            window.removeEventListener('message', onMessage);
            resolve();
          };
          window.addEventListener('message', onMessage);
        });
        dialog.remove();
        const result = await retrieve(clientSecret, key);
        const intent = result.paymentIntent ?? result.setupIntent;
        const error = intent?.last_payment_error ?? intent?.last_setup_error;
        return error ? { ...result, error } : result;
      },
    };
  }

  window.Stripe = Stripe;
})();
