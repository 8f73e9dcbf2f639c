import { useEffect, useRef } from 'preact/hooks';
import type { SavedCard, SchedulePreview } from './api.ts';
import { BRAND_NAMES } from './card.ts';
import { longDate, moneyOf } from './money.ts';
import { dayMonth, dueName } from './rent-position.ts';

/** The terms a set-up would charge, the sentence the tenant authorises, and the tick that authorises it. */
export function Review(props: {
  preview: SchedulePreview;
  card: SavedCard | undefined;
  agreed: boolean;
  busy: boolean;
  onAgree(agreed: boolean): void;
  onSubmit(): void;
  onChange(): void;
}) {
  const { preview, card } = props;
  const more = preview.payments - preview.upcoming.length;
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => heading.current?.focus(), []);
  return (
    <form
      noValidate
      class="review"
      aria-labelledby="review-heading"
      onSubmit={(event) => {
        event.preventDefault();
        props.onSubmit();
      }}
    >
      <h2 id="review-heading" ref={heading} tabIndex={-1}>
        Check and authorise
      </h2>
      {preview.paid_through && preview.upcoming[0] ? (
        // Rent paid already is never charged again: say why the first payment is not the next due date.
        <p class="notice" data-testid="paid-through">
          {capitalised(dueName({ date: preview.paid_through, installment_number: null }, undefined))} is paid
          — first automatic payment {dayMonth(preview.upcoming[0].due_date)}.
        </p>
      ) : null}
      <dl class="summary">
        <dt>{preview.installment_plan ? 'First payment' : 'Each payment'}</dt>
        <dd>
          <strong>{moneyOf(preview.amount)}</strong>
          {preview.fee !== '0.00'
            ? ` (${moneyOf(preview.pure_amount)} rent + ${moneyOf(preview.fee)} card fee)`
            : ''}
        </dd>
        <dt>Payments</dt>
        <dd>
          {preview.upcoming
            .map((c) => `${longDate(c.due_date)}${preview.installment_plan ? `: ${moneyOf(c.amount)}` : ''}`)
            .join(', ')}
          {more > 0 ? `, then ${more} more to ${longDate(preview.last_due_date)}` : ''}
        </dd>
        {card ? (
          <>
            <dt>Card</dt>
            <dd>
              {BRAND_NAMES[card.brand] ?? card.brand} ending {card.last4}
            </dd>
          </>
        ) : null}
      </dl>
      <p id="authorisation" class="authorisation">
        {preview.authorization.text}
      </p>
      <label class="check">
        <input
          type="checkbox"
          checked={props.agreed}
          aria-describedby="authorisation"
          onChange={(event) => props.onAgree(event.currentTarget.checked)}
        />
        I authorise these payments
      </label>
      <button type="submit" class="pay" disabled={props.busy}>
        Set up recurring rent
      </button>
      <button type="button" class="link" disabled={props.busy} onClick={props.onChange}>
        Change
      </button>
    </form>
  );
}

const capitalised = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);
