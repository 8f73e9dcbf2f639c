// A stand-in for Stripe.js, served by the local Stripe stand-in (test/stripe-server.ts) at /js/v3/. It is not
// Stripe.js: it implements only what rentpay's page calls (Stripe(), elements() with a Payment Element,
// createConfirmationToken, handleNextAction, retrievePaymentIntent) with the same shapes, and like Stripe.js keeps
// card fields inside a frame of its own origin, so card numbers never reach the page's script.
(() => {
  const script = document.currentScript;
  const base = new URL(script.src).origin;

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
   * `window.standinDeviceWallets` (as a browser without Apple Pay would). Like Stripe.js, undefined when no button
   * would render.
   */
  function available(methods) {
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
  function expressCheckout(options) {
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
            availablePaymentMethods: available(methods),
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
      elements(options = {}) {
        let element;
        return {
          options,
          update(changes) {
            Object.assign(options, changes);
          },
          create(type, elementOptions = {}) {
            if (type === 'expressCheckout') {
              element = expressCheckout(elementOptions);
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
      async createConfirmationToken({ elements }) {
        const element = elements.element;
        if (!element) return { error: { type: 'validation_error', message: 'No Payment Element mounted.' } };
        const answer = await ask(element.frame, { type: 'create_confirmation_token', key });
        return answer.error ? { error: answer.error } : { confirmationToken: answer.confirmation_token };
      },
      retrievePaymentIntent(clientSecret) {
        return retrieve(clientSecret, key);
      },
      retrieveSetupIntent(clientSecret) {
        return retrieve(clientSecret, key);
      },
      /** 3DS or a QR code: a dialog with the issuer's (the stand-in's) page, until it says it is done. */
      async handleNextAction({ clientSecret }) {
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
