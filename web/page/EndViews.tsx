/**
 * The page's states without a form: loading, unavailable, expired, a payment still being processed, and the
 * receipt of a paid session.
 */

import type { ComponentChildren, Ref } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { ClientApi, Payment, Session } from './api.ts';
import { MESSAGE_SOURCE, MESSAGE_VERSION } from './embed.ts';
import { moneyOf, paidWith, parseTypedPence, rentMonth, ukDateTime } from './money.ts';
import './receipt.css';

type Heading = Ref<HTMLHeadingElement>;

export function Loading() {
  return (
    <p class="status" role="status">
      Loading your payment…
    </p>
  );
}

export function Unavailable({
  title,
  message,
  headingRef,
}: {
  title: string;
  message: string;
  headingRef: Heading;
}) {
  return (
    <section class="panel" aria-labelledby="unavailable-title">
      <h1 id="unavailable-title" ref={headingRef} tabIndex={-1}>
        {title}
      </h1>
      <p>{message}</p>
    </section>
  );
}

/**
 * `inPage`: the session lapsed while the page was open, before anything was paid. `framed`: the hosted page in the
 * platform's iframe, whose page can start a new session there: told at once (`session_expired`), and asked again by
 * Start again (`restart`); see docs/iframe.md.
 */
export function Expired({
  inPage,
  framed,
  headingRef,
}: {
  inPage: boolean;
  framed: boolean;
  headingRef: Heading;
}) {
  const [asked, setAsked] = useState(false);
  useEffect(() => {
    if (framed) postToParent('session_expired');
  }, [framed]);
  return (
    <section class="panel" aria-labelledby="expired-title">
      <h1 id="expired-title" ref={headingRef} tabIndex={-1}>
        Session expired
      </h1>
      {inPage ? (
        <p>
          Your payment session timed out before a payment was made, so{' '}
          <strong>you have not been charged</strong>.
        </p>
      ) : (
        <p>This payment link has expired or is not valid.</p>
      )}
      {framed ? (
        <>
          <button
            type="button"
            class="pay"
            disabled={asked}
            onClick={() => {
              setAsked(true);
              postToParent('restart');
            }}
          >
            Start again
          </button>
          <p role="status">
            {asked
              ? 'Starting a new session… If nothing changes, go back to your rental platform and open the payment again.'
              : ''}
          </p>
        </>
      ) : (
        <p>To pay, go back to your rental platform and open the payment again: it starts a new session.</p>
      )}
    </section>
  );
}

/** A message to the platform's page around the hosted page's frame: only its type, nothing secret. */
function postToParent(type: 'session_expired' | 'restart'): void {
  window.parent.postMessage({ source: MESSAGE_SOURCE, v: MESSAGE_VERSION, type }, '*');
}

// Due dates are calendar dates (UTC).
const DAY_MONTH_SHORT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });
const DAY_MONTH = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' });

/** "27 November 2026, 14:05" (UK time); anything unreadable as it is. */
function paidAt(timestamp: string): string {
  const at = new Date(timestamp);
  return Number.isNaN(at.getTime()) ? timestamp : ukDateTime(at);
}

function calendarDay(date: string, format: Intl.DateTimeFormat): string {
  const day = new Date(`${date.slice(0, 10)}T00:00:00Z`);
  return Number.isNaN(day.getTime()) ? date : format.format(day);
}

/** One label and its value; the value wraps below the label when the line is too narrow for both. */
function Row({
  label,
  children,
  class: className,
}: {
  label: string;
  children: ComponentChildren;
  class?: string;
}) {
  return (
    <div class={className ? `receipt-row ${className}` : 'receipt-row'}>
      <dt>{label}</dt>
      <dd>{children}</dd>
    </div>
  );
}

/**
 * "Download receipt": the receipt's PDF read through the Client API with the session's token in a header, then saved
 * from the bytes (a blob URL), so the token never goes into a link.
 */
function DownloadReceipt({ api, paymentId }: { api: ClientApi; paymentId: string }) {
  const [state, setState] = useState<'idle' | 'busy' | 'done' | 'failed'>('idle');
  const download = async () => {
    setState('busy');
    try {
      const url = URL.createObjectURL(await api.receipt(paymentId));
      const link = document.createElement('a');
      link.href = url;
      link.download = `receipt-${paymentId}.pdf`;
      document.body.append(link);
      link.click();
      link.remove();
      // The download has its bytes once it starts; the URL is let go a minute later.
      setTimeout(() => URL.revokeObjectURL(url), 60_000);
      setState('done');
    } catch {
      setState('failed');
    }
  };
  return (
    <div class="receipt-download">
      <button type="button" disabled={state === 'busy'} onClick={() => void download()}>
        Download receipt
      </button>
      <p role="status">
        {state === 'done'
          ? 'Your receipt (PDF) is downloading.'
          : state === 'failed'
            ? 'We could not get your receipt. Please try again.'
            : ''}
      </p>
    </div>
  );
}

/** A payment just made, or (`reopened`) the receipt of a session paid before this page opened. */
export function Receipt({
  api,
  payment,
  session,
  reopened,
  headingRef,
}: {
  api: ClientApi;
  payment: Payment;
  session: Session;
  reopened: boolean;
  headingRef: Heading;
}) {
  return (
    <section class="panel result success receipt" aria-labelledby="success-title">
      <h1 id="success-title" ref={headingRef} tabIndex={-1}>
        {reopened ? 'Rent paid' : 'Payment successful'}
      </h1>
      <p>
        You paid <strong>{moneyOf(payment.amount)}</strong> to {session.tenancy.payee}.
      </p>
      {reopened ? <p>This payment is complete: there is nothing more to pay here.</p> : null}
      <PaymentSummary payment={payment} session={session} />
      <RentAfter payment={payment} session={session} />
      <DownloadReceipt api={api} paymentId={payment.payment_id} />
    </section>
  );
}

/** A payment made: rent, fee and total, whom it paid and when, its id, the rent's reference and the method. */
export function PaymentSummary({ payment, session }: { payment: Payment; session: Session }) {
  const { tenancy } = session;
  return (
    <dl class="summary receipt-rows">
      <Row label="Rent">{moneyOf(payment.pure_amount)}</Row>
      <Row label="Fee">{moneyOf(payment.fee)}</Row>
      <Row label="Total paid" class="total">
        {moneyOf(payment.amount)}
      </Row>
      <Row label="Paid to">{tenancy.payee}</Row>
      <Row label="Property">
        {tenancy.address_1}, {tenancy.city} {tenancy.post_code}
      </Row>
      <Row label="Date">{paidAt(payment.created_at)}</Row>
      <Row label="Payment ID">
        <span class="mono">{payment.payment_id}</span>
      </Row>
      {/* The rent's reference the tenant knows, not a reference the platform's page made up for its own books. */}
      <Row label="Reference">
        <span class="mono">{tenancy.payment_reference}</span>
      </Row>
      <Row label="Paid with">{paidWith(payment.method, payment.card)}</Row>
    </dl>
  );
}

/**
 * What the payment paid and what is still owed. Only from a session read after this payment (its `paid` is
 * this payment): the session loaded before paying would show the debt the payment just paid.
 */
function RentAfter({ payment, session }: { payment: Payment; session: Session }) {
  if (session.paid?.payment_id !== payment.payment_id) return null;
  const applied = session.paid_applied_to ?? [];
  const { ledger } = session.tenancy;
  const overdue = (parseTypedPence(ledger.arrears) ?? 0) > 0;
  return (
    <dl class="receipt-rows receipt-rent">
      {applied.length > 0 ? (
        <div class="receipt-row receipt-applied">
          <dt>Applied to</dt>
          {applied.map((part) => (
            <dd key={part.due_date ?? 'credit'}>
              <span>
                {part.due_date
                  ? `${rentMonth(part.due_date)} rent (due ${calendarDay(part.due_date, DAY_MONTH_SHORT)})`
                  : 'Credit towards future rent'}
              </span>{' '}
              <span class="receipt-amount">
                {moneyOf(part.amount)}
                {part.rent && part.rent !== part.amount ? ` of ${moneyOf(part.rent)}` : ''}
              </span>
            </dd>
          ))}
        </div>
      ) : null}
      <Row label="Still owed">
        {overdue
          ? `${moneyOf(ledger.arrears)} ${ledger.days_overdue > 0 ? 'overdue' : 'due today'}`
          : 'Nothing overdue'}
      </Row>
      {ledger.next_due ? (
        <Row label="Next rent">
          {moneyOf(ledger.next_due.amount)} on {calendarDay(ledger.next_due.date, DAY_MONTH)}
        </Row>
      ) : null}
    </dl>
  );
}

/**
 * A payment still `processing` after the page stopped waiting for it: no form, so nothing invites a second
 * payment while the first may still succeed; the page goes on checking it and moves on when it ends.
 */
export function Pending({
  payment,
  unchecked,
  headingRef,
}: {
  payment: Payment;
  unchecked: boolean;
  headingRef: Heading;
}) {
  return (
    <section class="panel pending" aria-labelledby="pending-title">
      <h1 id="pending-title" ref={headingRef} tabIndex={-1}>
        Your payment is being processed
      </h1>
      <p>
        Your payment of <strong>{moneyOf(payment.amount)}</strong> has not completed yet: the payment provider
        is still processing it.
      </p>
      {/* One live region whose words change, so a screen reader hears when the page stops checking. */}
      <p role="status">
        {unchecked
          ? 'Your session has ended, so this page can no longer check it. The payment will show in your payments on your rental platform once it completes: check there before paying again.'
          : 'We will update this page when it completes; you do not need to pay again.'}
      </p>
      <dl class="summary receipt-rows">
        <Row label="Amount">
          <strong>{moneyOf(payment.amount)}</strong>
        </Row>
        <Row label="Payment ID">
          <span class="mono">{payment.payment_id}</span>
        </Row>
      </dl>
    </section>
  );
}
