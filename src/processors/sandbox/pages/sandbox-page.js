// The sandbox's 3DS, APM and wallet pages: their Authorise and Fail buttons. Loaded as a file, never inline
// (the pages' CSP allows no inline script); what a page is about travels in data- attributes of its <main>.

const MESSAGE_TYPE = 'rentpay:sandbox-complete';

function endpoint(kind, chargeId, wallet, outcome) {
  if (kind === 'wallet') return { url: '/sandbox/wallet/tokens', body: { wallet, outcome } };
  const path = kind === 'three_ds' ? '3ds' : 'apm';
  return { url: `/sandbox/${path}/${encodeURIComponent(chargeId)}/${outcome}`, body: {} };
}

function failureText(status) {
  if (status === 409) return 'This payment is no longer waiting.';
  if (status === 0) return 'The sandbox could not be reached. Try again.';
  return `The sandbox answered with an error (HTTP ${status}). Try again.`;
}

function start() {
  const main = document.querySelector('main[data-kind]');
  const actions = main?.querySelector('.actions');
  const error = main?.querySelector('.error');
  if (!main || !actions || !error) return;
  const { kind, chargeId, wallet } = main.dataset;
  const buttons = [...actions.querySelectorAll('button[data-outcome]')];

  const showError = (text, retry) => {
    error.textContent = text;
    error.hidden = false;
    for (const button of buttons) button.disabled = !retry;
  };

  const answer = async (outcome) => {
    for (const button of buttons) button.disabled = true;
    error.hidden = true;
    const { url, body } = endpoint(kind, chargeId, wallet, outcome);
    let response;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        body: JSON.stringify(body),
        credentials: 'same-origin',
      });
    } catch {
      showError(failureText(0), true);
      return;
    }
    if (!response.ok) {
      // 409: nothing waits any more (answered already, cancelled or expired); trying again cannot help.
      showError(failureText(response.status), response.status !== 409);
      return;
    }
    const result = await response.json().catch(() => ({}));
    const message = { type: MESSAGE_TYPE, kind, outcome };
    if (kind === 'wallet') Object.assign(message, { wallet, token: result.token });
    else message.charge_id = chargeId;

    const opener = window.opener && !window.opener.closed ? window.opener : null;
    const target = opener ?? (window.parent !== window ? window.parent : null);
    target?.postMessage(message, location.origin);

    const done = document.createElement('p');
    done.className = 'done';
    done.setAttribute('role', 'status');
    done.tabIndex = -1;
    done.textContent = 'Done. You can close this window.';
    actions.replaceWith(done);
    done.focus();
    if (opener) window.close();
  };

  for (const button of buttons) {
    button.addEventListener('click', () => answer(button.dataset.outcome));
    button.disabled = false;
  }
}

start();
