import { useEffect, useRef, useState } from 'preact/hooks';
import {
  ApiProblem,
  type ClientApi,
  type SavedCard,
  type Schedule,
  type SchedulePreview,
  type ScheduleSetUp,
  type Session,
} from './api.ts';
import { BRAND_NAMES } from './card.ts';
import { formatPence, longDate, moneyOf, parseTypedPence } from './money.ts';
import { Review } from './RecurringReview.tsx';

const FREQUENCIES: Record<string, string> = {
  every_1_month: 'every month',
  every_2_month: 'every 2 months',
  every_3_month: 'every 3 months',
  every_4_month: 'every 4 months',
  every_5_month: 'every 5 months',
  every_half_year: 'every 6 months',
  every_year: 'every year',
};
const STATUS_LABELS: Record<Schedule['status'], string> = {
  active: 'Active',
  paused: 'Paused',
  canceled: 'Cancelled',
  completed: 'Completed',
};

function describe(schedule: Pick<Schedule, 'frequency' | 'rent_due_day'>): string {
  return `${FREQUENCIES[schedule.frequency] ?? schedule.frequency}, on day ${schedule.rent_due_day}`;
}

/** Recurring rent: the tenant's schedules (pause, resume, cancel) and setting one up with a saved card. */
export function Recurring(props: {
  api: ClientApi;
  session: Session;
  cards: SavedCard[];
  onExpired(): void;
  onChange?(schedule: Schedule): void;
}) {
  const { api, session, cards } = props;
  const [schedules, setSchedules] = useState<Schedule[]>();
  const [card, setCard] = useState(cards.find((c) => c.is_default)?.card_id ?? cards[0]?.card_id ?? '');
  // Recurring rent is the tenancy's rent: an amount the platform fixed for this session is for one payment (a
  // catch-up, say), never every month's.
  const [amount, setAmount] = useState(session.tenancy.rent_amount);
  const fixed = !session.amount.editable && session.amount.pure_amount !== null;
  /** The schedule whose cancellation waits for the tenant to confirm it. */
  const [cancelling, setCancelling] = useState<string>();
  const installments = session.tenancy.installments;
  const [followPlan, setFollowPlan] = useState(installments.length > 0);
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);
  /** The terms under review: the set-up and the server's preview of it; undefined while choosing. */
  const [review, setReview] = useState<{ setUp: ScheduleSetUp; preview: SchedulePreview }>();
  const [agreed, setAgreed] = useState(false);

  const run = async (action: () => Promise<void>) => {
    setProblem(undefined);
    setNotice(undefined);
    setBusy(true);
    try {
      await action();
    } catch (error) {
      if (error instanceof ApiProblem && error.sessionExpired) props.onExpired();
      else setProblem(error instanceof Error ? error.message : String(error));
    } finally {
      setBusy(false);
    }
  };

  useEffect(() => {
    void run(async () => setSchedules(await api.schedules()));
  }, [api]);

  const live = (schedules ?? []).filter((s) => s.status === 'active' || s.status === 'paused');
  const change = (schedule: Schedule, action: 'pause' | 'resume' | 'cancel') =>
    run(async () => {
      const changed = await api.changeSchedule(schedule.schedule_id, action);
      setSchedules(await api.schedules());
      setNotice(`Recurring rent ${STATUS_LABELS[changed.status].toLowerCase()}.`);
      props.onChange?.(changed);
    });

  /** The set-up the form describes; throws a message for the tenant when it cannot be one. */
  const setUp = (): ScheduleSetUp => {
    if (!card) throw new Error('Choose a saved card.');
    if (followPlan) return { saved_card_id: card, use_installment_plan: true };
    if (fixed)
      return { saved_card_id: card, ...(installments.length > 0 ? { use_installment_plan: false } : {}) };
    const pence = parseTypedPence(amount);
    if (pence === undefined) throw new Error('Enter an amount in pounds, e.g. 1200.00.');
    return {
      saved_card_id: card,
      pure_amount: formatPence(pence),
      ...(installments.length > 0 ? { use_installment_plan: false } : {}),
    };
  };

  const reviewTerms = () =>
    run(async () => {
      const chosen = setUp();
      setReview({ setUp: chosen, preview: await api.previewSchedule(chosen) });
      setAgreed(false);
    });

  const create = () =>
    run(async () => {
      if (!review) return;
      if (!agreed) throw new Error('Tick the box to authorise these payments, or choose Change.');
      let created: Schedule;
      try {
        created = await api.createSchedule({
          ...review.setUp,
          authorization_text: review.preview.authorization.text,
        });
      } catch (error) {
        if (error instanceof ApiProblem && error.code === 'terms_changed' && error.terms) {
          setReview({ setUp: review.setUp, preview: error.terms });
          setAgreed(false);
          throw new Error(
            'The payments changed since you checked them. Read the new terms and authorise them again.',
          );
        }
        throw error;
      }
      setReview(undefined);
      setSchedules(await api.schedules());
      setNotice('Recurring rent is set up.');
      props.onChange?.(created);
    });

  return (
    <div class="recurring">
      {problem ? (
        <div class="alert" role="alert">
          {problem}
        </div>
      ) : null}
      <p class="notice" role="status">
        {notice ?? ''}
      </p>
      {schedules === undefined ? <p>Loading your recurring rent…</p> : null}
      {live.length > 0 ? (
        <ul class="schedules">
          {live.map((schedule) => (
            <li key={schedule.schedule_id}>
              <p>
                <strong>{moneyOf(schedule.amount)}</strong>{' '}
                {schedule.installment_plan ? 'next, by your installment plan' : describe(schedule)}
                <span class="badge">{STATUS_LABELS[schedule.status]}</span>
                <br />
                {schedule.fee !== '0.00' ? (
                  <>
                    <br />
                    {moneyOf(schedule.pure_amount)} rent + {moneyOf(schedule.fee)} card fee
                  </>
                ) : null}
                <br />
                {schedule.card
                  ? `${BRAND_NAMES[schedule.card.brand] ?? schedule.card.brand} ending ${schedule.card.last4}`
                  : ''}
                {schedule.next_due_date && schedule.status === 'active'
                  ? ` · next payment ${longDate(schedule.next_due_date)}`
                  : ''}
              </p>
              <span class="card-actions">
                {schedule.status === 'active' ? (
                  <button type="button" disabled={busy} onClick={() => change(schedule, 'pause')}>
                    Pause
                  </button>
                ) : (
                  <button type="button" disabled={busy} onClick={() => change(schedule, 'resume')}>
                    Resume
                  </button>
                )}
                <button
                  type="button"
                  class="danger"
                  disabled={busy}
                  onClick={() => setCancelling(schedule.schedule_id)}
                >
                  Cancel recurring rent
                </button>
              </span>
              {cancelling === schedule.schedule_id ? (
                <ConfirmCancel
                  busy={busy}
                  onConfirm={() => void change(schedule, 'cancel').then(() => setCancelling(undefined))}
                  onKeep={() => setCancelling(undefined)}
                />
              ) : null}
            </li>
          ))}
        </ul>
      ) : schedules !== undefined && cards.length === 0 ? (
        <p>
          To set up recurring rent, first pay with a new card and tick “Save this card for future payments”.
        </p>
      ) : schedules !== undefined && review ? (
        <Review
          preview={review.preview}
          card={cards.find((c) => c.card_id === review.setUp.saved_card_id)}
          agreed={agreed}
          busy={busy}
          onAgree={setAgreed}
          onSubmit={() => void create()}
          onChange={() => setReview(undefined)}
        />
      ) : schedules !== undefined ? (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void reviewTerms();
          }}
        >
          {installments.length > 0 ? (
            <label class="check">
              <input
                type="checkbox"
                checked={followPlan}
                onChange={(event) => setFollowPlan(event.currentTarget.checked)}
              />
              Follow my installment plan
            </label>
          ) : null}
          {followPlan ? (
            <>
              <p>Pay each installment automatically on its due date:</p>
              {/* Scrolls when the plan is long, so it takes focus for keyboard scrolling. */}
              {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be focusable */}
              <ul class="installments" tabIndex={0} aria-label="Installments">
                {installments.map((installment) => (
                  <li key={installment.installment_number}>
                    {longDate(installment.due_date)}: {moneyOf(installment.amount)}
                  </li>
                ))}
              </ul>
            </>
          ) : (
            <>
              <p>
                Pay your rent automatically {describe(session.tenancy)}, until{' '}
                {longDate(session.tenancy.end_rent_date)}.
              </p>
              <div class="field">
                <label for="recurring-amount">Amount each time (£)</label>
                <input
                  id="recurring-amount"
                  inputMode="decimal"
                  value={amount}
                  readOnly={fixed}
                  aria-describedby={fixed ? 'recurring-amount-fixed' : undefined}
                  onInput={(event) => setAmount(event.currentTarget.value)}
                />
                {fixed ? (
                  <p id="recurring-amount-fixed" class="hint">
                    Your rent. The {moneyOf(session.amount.pure_amount ?? '')} your platform set is for this
                    one payment only.
                  </p>
                ) : null}
              </div>
            </>
          )}
          <div class="field">
            <label for="recurring-card">Card</label>
            <select id="recurring-card" value={card} onChange={(event) => setCard(event.currentTarget.value)}>
              {cards.map((c) => (
                <option key={c.card_id} value={c.card_id}>
                  {BRAND_NAMES[c.brand] ?? c.brand} ending {c.last4}
                </option>
              ))}
            </select>
          </div>
          <button type="submit" class="pay" disabled={busy}>
            Review recurring rent
          </button>
        </form>
      ) : null}
    </div>
  );
}

/** Cancelling ends every payment to come: asked once more, the question taking focus. */
function ConfirmCancel(props: { busy: boolean; onConfirm(): void; onKeep(): void }) {
  const question = useRef<HTMLParagraphElement>(null);
  useEffect(() => question.current?.focus(), []);
  return (
    <div class="confirm">
      <p id="cancel-question" ref={question} tabIndex={-1}>
        Cancel recurring rent? No more payments will be taken automatically: you will pay each rent yourself.
      </p>
      <button type="button" class="danger" disabled={props.busy} onClick={props.onConfirm}>
        Yes, cancel recurring rent
      </button>
      <button type="button" class="secondary" disabled={props.busy} onClick={props.onKeep}>
        Keep recurring rent
      </button>
    </div>
  );
}
