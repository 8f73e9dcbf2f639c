import { useEffect, useRef, useState } from 'preact/hooks';
import { moneyOf } from '../../../src/shared/display.ts';
import { formatPence, parseTypedPence } from '../../../src/shared/money.ts';
import { ApiError, call } from '../api.ts';
import { Alert, Field, messageOf, Notice } from '../ui.tsx';
import type { PaymentDetail, Refund, RefundPreview } from './types.ts';

/** A new Idempotency-Key: one per confirmation, so a double click or a retry of it is the same refund. */
function newRefundKey(): string {
  return `dashboard-refund-${crypto.randomUUID()}`;
}

function refundDone(refund: Refund): string {
  return refund.status === 'pending'
    ? `Refund of ${moneyOf(refund.amount)} asked for: the processor has not answered yet; it finishes in the background.`
    : `Refunded ${moneyOf(refund.amount)}.`;
}

/**
 * Refund (admin, finance): an amount, then its preview (rent and fee parts, what the landlord's payout loses), then
 * Confirm. The server refuses anyone else whatever the page shows.
 */
export function RefundPanel(props: { payment: PaymentDetail; onRefunded(): void }) {
  const { payment } = props;
  const [amount, setAmount] = useState(payment.refundable);
  const [amountError, setAmountError] = useState<string>();
  const [preview, setPreview] = useState<RefundPreview>();
  const [busy, setBusy] = useState<'preview' | 'refund'>();
  const [problem, setProblem] = useState<string>();
  const [done, setDone] = useState<string>();
  const key = useRef<string | undefined>(undefined);
  const sending = useRef(false);
  const amountRef = useRef<HTMLInputElement>(null);
  const previewHeading = useRef<HTMLHeadingElement>(null);
  // A refund made meanwhile changes what is left, and the amount follows it; on mount it already holds it (setting it
  // again there would overwrite what the person typed before the effect ran).
  const shownRefundable = useRef(payment.refundable);
  useEffect(() => {
    if (shownRefundable.current === payment.refundable) return;
    shownRefundable.current = payment.refundable;
    setAmount(payment.refundable);
  }, [payment.refundable]);
  const path = `/payments/${encodeURIComponent(payment.payment_id)}`;

  if (payment.refundable === '0.00' && !preview) {
    return (
      <section class="card" aria-labelledby="refund-heading">
        <h2 id="refund-heading">Refund</h2>
        {done ? <Notice>{done}</Notice> : null}
        <p>
          Nothing is left to refund{payment.status === 'succeeded' ? '' : ': the payment did not succeed'}.
        </p>
      </section>
    );
  }

  const showPreview = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    setDone(undefined);
    const pence = parseTypedPence(amount);
    if (pence === undefined || pence === 0) {
      setAmountError(`Enter an amount from £0.01 to ${moneyOf(payment.refundable)}.`);
      amountRef.current?.focus();
      return;
    }
    setAmountError(undefined);
    setBusy('preview');
    try {
      const found = await call<RefundPreview>('GET', `${path}/refund-preview/?amount=${formatPence(pence)}`);
      key.current = newRefundKey();
      setPreview(found);
      requestAnimationFrame(() => previewHeading.current?.focus());
    } catch (error) {
      if (error instanceof ApiError && error.field('amount')) {
        setAmountError(error.field('amount'));
        amountRef.current?.focus();
      } else setProblem(messageOf(error));
    } finally {
      setBusy(undefined);
    }
  };

  const confirm = async () => {
    // A second click before the button is disabled sends nothing more.
    if (!preview || !key.current || sending.current) return;
    sending.current = true;
    setBusy('refund');
    setProblem(undefined);
    try {
      const refund = await call<Refund>(
        'POST',
        `${path}/refunds/`,
        { amount: preview.amount },
        { headers: { 'idempotency-key': key.current } },
      );
      key.current = undefined;
      setDone(refundDone(refund));
      setPreview(undefined);
      props.onRefunded();
    } catch (error) {
      // The same key stays: trying again cannot refund twice.
      setProblem(messageOf(error));
    } finally {
      sending.current = false;
      setBusy(undefined);
    }
  };

  const change = () => {
    setPreview(undefined);
    setProblem(undefined);
    key.current = undefined;
    requestAnimationFrame(() => amountRef.current?.focus());
  };

  return (
    <section class="card" aria-labelledby="refund-heading">
      <h2 id="refund-heading">Refund</h2>
      {done ? <Notice>{done}</Notice> : null}
      {!preview ? (
        <form class="refund-form" onSubmit={showPreview} noValidate>
          <Field
            id="refund-amount"
            label="Amount to refund"
            hint={`Up to ${moneyOf(payment.refundable)}, what is left of ${moneyOf(payment.amount)}.`}
            autocomplete="off"
            value={amount}
            onValue={setAmount}
            error={amountError}
            inputRef={amountRef}
          />
          {problem ? <Alert focus>{problem}</Alert> : null}
          <button type="submit" disabled={busy !== undefined}>
            {busy === 'preview' ? 'Checking…' : 'Preview refund'}
          </button>
        </form>
      ) : (
        <div class="confirm refund-preview">
          <h3 ref={previewHeading} tabIndex={-1}>
            Check the refund
          </h3>
          <dl class="facts">
            <dt>Refund to the tenant</dt>
            <dd>{moneyOf(preview.amount)}</dd>
            <dt>Of which rent</dt>
            <dd>{moneyOf(preview.rent)}</dd>
            <dt>Of which fee</dt>
            <dd>{moneyOf(preview.fee)}</dd>
            <dt>Left to refund after it</dt>
            <dd>{moneyOf(preview.refundable_after)}</dd>
            <dt>The landlord’s payout loses</dt>
            <dd>{moneyOf(preview.landlord.loses)}</dd>
          </dl>
          <p>{preview.landlord.summary}</p>
          {preview.refused ? <Alert focus>{preview.refused.detail}</Alert> : null}
          {problem ? <Alert focus>{problem}</Alert> : null}
          <div class="buttons">
            {preview.refused ? null : (
              <button type="button" class="primary" onClick={confirm} disabled={busy !== undefined}>
                {busy === 'refund' ? 'Refunding…' : `Confirm refund of ${moneyOf(preview.amount)}`}
              </button>
            )}
            <button type="button" onClick={change} disabled={busy !== undefined}>
              Change the amount
            </button>
          </div>
        </div>
      )}
    </section>
  );
}
