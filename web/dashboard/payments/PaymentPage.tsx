import { moneyOf } from '../../../src/shared/display.ts';
import { useLoaded, Waiting } from '../load.tsx';
import type { SectionProps } from '../Shell.tsx';
import { useFocusOnMount, When } from '../ui.tsx';
import { EventTable } from '../WebhookEvents.tsx';
import { lastSearchAddress } from './PaymentSearch.tsx';
import { RefundPanel } from './RefundPanel.tsx';
import { paidWith, STATUS_NAMES } from './search-query.ts';
import type { PaymentDetail, TimelineEntry } from './types.ts';

const TIMELINE_NAMES: Record<TimelineEntry['type'], string> = {
  created: 'Made',
  action_required: 'Waited for the tenant',
  succeeded: 'Succeeded',
  failed: 'Failed',
  canceled: 'Canceled',
  refund: 'Refund',
  dispute_opened: 'Dispute opened',
  dispute_closed: 'Dispute closed',
  funds_available: 'Funds available for payout',
  in_payout_run: 'In a payout run',
  paid_out: 'Paid out',
};

/** A payment's page: what it is, its timeline, its events' webhook deliveries, and a refund for those who may. */
export function PaymentPage(props: SectionProps & { paymentId: string }) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<PaymentDetail>(`/payments/${encodeURIComponent(props.paymentId)}/`);
  const payment = loaded.data;

  return (
    <>
      <p class="back">
        <a href={lastSearchAddress()}>Back to payments</a>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        Payment <span class="mono break">{props.paymentId}</span>
      </h1>
      {!payment ? (
        <Waiting loaded={loaded} what="the payment" />
      ) : (
        <>
          <Summary payment={payment} />
          <Timeline entries={payment.timeline} />
          {props.me.permissions.includes('refunds.create') ? (
            <RefundPanel payment={payment} onRefunded={loaded.reload} />
          ) : null}
          <Deliveries payment={payment} />
        </>
      )}
    </>
  );
}

function Summary({ payment }: { payment: PaymentDetail }) {
  return (
    <section class="card" aria-labelledby="summary-heading">
      <h2 id="summary-heading">
        {moneyOf(payment.amount)} · {STATUS_NAMES[payment.status]}
      </h2>
      <dl class="facts">
        <dt>Tenant</dt>
        <dd>
          {payment.name}{' '}
          <span class="hint">
            ({payment.email}, user {payment.user_id})
          </span>
        </dd>
        <dt>Payment reference</dt>
        <dd>{payment.payment_reference}</dd>
        <dt>Made</dt>
        <dd>
          <When at={payment.created_at} />
        </dd>
        <dt>Paid with</dt>
        <dd>{paidWith(payment)}</dd>
        <dt>Charged</dt>
        <dd>
          {moneyOf(payment.amount)}: rent {moneyOf(payment.pure_amount)}, fee {moneyOf(payment.fee)}
        </dd>
        <dt>Refunded</dt>
        <dd>
          {moneyOf(payment.refunded)}; left to refund {moneyOf(payment.refundable)}
        </dd>
        {payment.failure_message ? (
          <>
            <dt>Why it failed</dt>
            <dd>
              {payment.failure_message}
              {payment.failure_code ? <span class="mono hint"> ({payment.failure_code})</span> : null}
            </dd>
          </>
        ) : null}
        <dt>Its reference</dt>
        <dd class="break">{payment.reference}</dd>
        <dt>Processor</dt>
        <dd class="break">
          {payment.processor === 'stripe' ? 'Stripe' : 'Sandbox'}
          {payment.processor_reference ? <span class="mono"> {payment.processor_reference}</span> : null}
        </dd>
        {payment.schedule_id ? (
          <>
            <dt>Schedule</dt>
            <dd class="mono break">
              {payment.schedule_id}
              {payment.installment_number ? `, instalment ${payment.installment_number}` : ''}
            </dd>
          </>
        ) : null}
      </dl>
    </section>
  );
}

function Timeline({ entries }: { entries: TimelineEntry[] }) {
  return (
    <section class="card" aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      <ol class="timeline">
        {entries.map((entry, index) => (
          <li key={`${entry.type}-${entry.at}-${index}`} class={`timeline-${entry.type}`}>
            <p class="timeline-head">
              <strong>{TIMELINE_NAMES[entry.type] ?? entry.type}</strong>
              {entry.amount ? ` ${moneyOf(entry.amount)}` : ''}
              {entry.status ? <span class="badge timeline-status">{entry.status}</span> : null}
              <span class="hint block">
                <When at={entry.at} />
              </span>
            </p>
            <p>{entry.summary}</p>
          </li>
        ))}
      </ol>
    </section>
  );
}

function Deliveries({ payment }: { payment: PaymentDetail }) {
  const events = payment.webhook_deliveries;
  return (
    <section class="card" aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Webhook deliveries</h2>
      {events.length === 0 ? (
        <p>No events about this payment.</p>
      ) : (
        <EventTable label="Webhook deliveries of this payment's events" events={events} />
      )}
    </section>
  );
}
