/**
 * The tenant's recurring charges their bank wants them to authenticate (Strong Customer Authentication): the
 * session's `action_required`, shown before the Pay form, one panel each. Loaded only when one waits. Confirm
 * payment follows the charge's step (3DS) exactly as Pay follows a payment's (payment-flow.ts), then shows how it
 * ended here; the Pay form stays below.
 */

import { useEffect, useRef, useState } from 'preact/hooks';
import type { Payment, ActionRequired as Waiting } from './api.ts';
import { PaymentSummary } from './EndViews.tsx';
import { longDate, moneyOf } from './money.ts';
import { errorOf, failureOf, OutcomeError, tenantFailureMessage } from './outcomes.ts';
import type { PaymentFlow } from './payment-flow.ts';

/** How a press of Confirm payment ended: paid, or a problem (the charge failed, or still waits for the tenant). */
type Ended = { paid: Payment } | { problem: string; waiting: boolean };

const FINAL = ['succeeded', 'failed', 'canceled'];

export function ActionRequired({ flow }: { flow: PaymentFlow }) {
  // The charges as the page opened: one confirmed keeps its outcome here even if the session is read again.
  const [charges] = useState(flow.context.session.action_required);
  return (
    <>
      {charges.map((waiting) => (
        <Charge key={waiting.payment.payment_id} waiting={waiting} flow={flow} />
      ))}
    </>
  );
}

function Charge({ waiting, flow }: { waiting: Waiting; flow: PaymentFlow }) {
  const { payment } = waiting;
  const id = payment.payment_id;
  const [busy, setBusy] = useState(false);
  const [ended, setEnded] = useState<Ended>();
  const focusRef = useRef<HTMLHeadingElement & HTMLDivElement>(null);
  useEffect(() => {
    if (!ended) return;
    // After the page's own effects: back from a step, the page focuses its heading first.
    const timer = setTimeout(() => focusRef.current?.focus());
    return () => clearTimeout(timer);
  }, [ended]);

  const confirmBy = longDate(waiting.confirm_by);
  const card = payment.card ? `, card ending ${payment.card.last4}` : '';

  /** A payment that ended tells the SDK as a payment made with Pay does; one still waiting can be confirmed again. */
  const show = (current: Payment, stepFailure?: string) => {
    const { dispatch, embed } = flow.context;
    dispatch({ type: 'phase', phase: { name: 'ready' } });
    if (current.status === 'succeeded') {
      embed?.post('success', { payment: current });
      return setEnded({ paid: current });
    }
    if (!FINAL.includes(current.status)) {
      const problem =
        stepFailure ?? 'Your bank’s check was not completed, so this payment is not confirmed yet.';
      return setEnded({ problem, waiting: true });
    }
    const error = failureOf(current);
    embed?.post('error', { error });
    setEnded({
      problem: `${tenantFailureMessage(error)} To pay this rent now, use the form below.`,
      waiting: false,
    });
  };

  const confirm = async () => {
    const { api, expire } = flow.context;
    setBusy(true);
    setEnded(undefined);
    try {
      show(await flow.follow(await api.confirmPayment(id)));
    } catch (error) {
      // The session lapsed while the step was open: the page has ended on "Session expired" already.
      if (error instanceof DOMException && error.name === 'AbortError') return;
      const failure = errorOf(error);
      if (failure.code === 'session_expired') return expire(failure);
      // The step was cancelled, or Stripe.js gave up on it: how the charge stands now decides what to show.
      try {
        show(await api.payment(id), error instanceof OutcomeError ? failure.message : undefined);
      } catch {
        show(payment as Payment, failure.message);
      }
    } finally {
      setBusy(false);
    }
  };

  if (ended && 'paid' in ended) {
    return (
      <section class="alert notice-changed" aria-labelledby={`${id}-title`}>
        <h2 id={`${id}-title`} ref={focusRef} tabIndex={-1}>
          Payment confirmed
        </h2>
        <p>
          You paid <strong>{moneyOf(ended.paid.amount)}</strong> for your rent at{' '}
          {flow.context.session.tenancy.address_1}.
        </p>
        <PaymentSummary payment={ended.paid} session={flow.context.session} />
      </section>
    );
  }
  return (
    <section class="alert notice-changed" aria-labelledby={`${id}-title`}>
      <h2 id={`${id}-title`}>Your bank needs you to confirm this rent payment</h2>
      <p class="fixed-amount">
        <span class="label">Amount</span>
        <strong>{moneyOf(payment.amount)}</strong>
      </p>
      <p>
        Recurring rent, reference <span class="mono">{payment.reference}</span>
        {payment.installment_number === null ? '' : `, installment ${payment.installment_number}`}:{' '}
        {payment.fee === '0.00'
          ? `${moneyOf(payment.pure_amount)} rent`
          : `${moneyOf(payment.pure_amount)} rent + ${moneyOf(payment.fee)} card fee`}
        {card}.
      </p>
      {ended ? (
        <div class="alert" role="alert" tabIndex={-1} ref={focusRef}>
          {ended.problem}
        </div>
      ) : null}
      {ended?.waiting === false ? null : (
        <>
          <p>
            <strong>Confirm by {confirmBy}</strong>, or this payment will not be made.
          </p>
          <button type="button" class="pay" disabled={busy} onClick={() => void confirm()}>
            {busy ? 'Confirming…' : 'Confirm payment'}
          </button>
        </>
      )}
    </section>
  );
}
