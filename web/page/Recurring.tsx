import { useEffect, useState } from 'preact/hooks';
import { ApiProblem, type ClientApi, type SavedCard, type Schedule, type Session } from './api.ts';
import { BRAND_NAMES } from './card.ts';
import { formatPence, longDate, moneyOf, parsePence } from './money.ts';

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
  const [amount, setAmount] = useState(session.amount.pure_amount ?? session.tenancy.rent_amount);
  const fixed = !session.amount.editable;
  const installments = session.tenancy.installments;
  const [followPlan, setFollowPlan] = useState(installments.length > 0);
  const [problem, setProblem] = useState<string>();
  const [notice, setNotice] = useState<string>();
  const [busy, setBusy] = useState(false);

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

  const create = () =>
    run(async () => {
      if (!card) throw new Error('Choose a saved card.');
      let created: Schedule;
      if (followPlan) {
        created = await api.createSchedule({ saved_card_id: card, use_installment_plan: true });
      } else {
        const pence = parsePence(amount);
        if (pence === undefined) throw new Error('Enter an amount in pounds, e.g. 1200.00.');
        created = await api.createSchedule({
          saved_card_id: card,
          pure_amount: formatPence(pence),
          ...(installments.length > 0 ? { use_installment_plan: false } : {}),
        });
      }
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
                <strong>{moneyOf(schedule.pure_amount)}</strong>{' '}
                {schedule.installment_plan ? 'next, by your installment plan' : describe(schedule)}
                <span class="badge">{STATUS_LABELS[schedule.status]}</span>
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
                  onClick={() => change(schedule, 'cancel')}
                >
                  Cancel recurring rent
                </button>
              </span>
            </li>
          ))}
        </ul>
      ) : schedules !== undefined && cards.length === 0 ? (
        <p>
          To set up recurring rent, first pay with a new card and tick “Save this card for future payments”.
        </p>
      ) : schedules !== undefined ? (
        <form
          noValidate
          onSubmit={(event) => {
            event.preventDefault();
            void create();
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
                    Set by your platform.
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
            Set up recurring rent
          </button>
        </form>
      ) : null}
    </div>
  );
}
