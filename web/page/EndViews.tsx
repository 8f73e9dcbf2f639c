/** The page's states without a form: loading, unavailable, expired, and the receipt of a paid session. */

import type { Ref } from 'preact';
import type { Payment, Session } from './api.ts';
import { METHOD_LABELS } from './methods.ts';
import { longDate, moneyOf } from './money.ts';

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

/** `inPage`: the session lapsed while the page was open, before anything was paid. */
export function Expired({ inPage, headingRef }: { inPage: boolean; headingRef: Heading }) {
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
      <p>To pay, go back to your rental platform and open the payment again: it starts a new session.</p>
    </section>
  );
}

/** A payment just made, or (`reopened`) the receipt of a session paid before this page opened. */
export function Receipt({
  payment,
  session,
  reopened,
  headingRef,
}: {
  payment: Payment;
  session: Session;
  reopened: boolean;
  headingRef: Heading;
}) {
  return (
    <section class="panel result success" aria-labelledby="success-title">
      <h1 id="success-title" ref={headingRef} tabIndex={-1}>
        {reopened ? 'Rent paid' : 'Payment successful'}
      </h1>
      <p>
        You paid <strong>{moneyOf(payment.amount)}</strong> for your rent at {session.tenancy.address_1}
        {reopened ? ` on ${longDate(payment.updated_at)}` : ''}.
      </p>
      {reopened ? <p>This payment is complete: there is nothing more to pay here.</p> : null}
      <PaymentSummary payment={payment} session={session} />
    </section>
  );
}

/** A payment made: its id, the rent's reference and the method (a receipt's details). */
export function PaymentSummary({ payment, session }: { payment: Payment; session: Session }) {
  return (
    <dl class="summary">
      <dt>Payment</dt>
      <dd>{payment.payment_id}</dd>
      {/* The rent's reference the tenant knows, not a reference the platform's page made up for its own books. */}
      <dt>Reference</dt>
      <dd>{session.tenancy.payment_reference}</dd>
      <dt>Method</dt>
      <dd>
        {METHOD_LABELS[payment.method]}
        {payment.card ? ` •••• ${payment.card.last4}` : ''}
      </dd>
    </dl>
  );
}
