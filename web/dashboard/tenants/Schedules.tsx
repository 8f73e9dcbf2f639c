import { useEffect, useRef, useState } from 'preact/hooks';
import { longDate, moneyOf, ordinal } from '../../../src/shared/display.ts';
import { ApiError, call } from '../api.ts';
import { Alert, Field, messageOf, Notice, When } from '../ui.tsx';
import {
  frequencyName,
  SCHEDULE_STATUS_NAMES,
  type ScheduleAction,
  scheduleActions,
} from './tenant-words.ts';
import type { Schedule } from './types.ts';

const ACTION_WORDS: Record<ScheduleAction, { verb: string; done: string; ask: string }> = {
  pause: {
    verb: 'Pause',
    done: 'paused',
    ask: 'Due dates that pass while it is paused are skipped: nothing is charged for them.',
  },
  resume: { verb: 'Resume', done: 'resumed', ask: 'It charges again from the first due date after today.' },
  cancel: {
    verb: 'Cancel',
    done: 'canceled',
    ask: 'Canceling is final: a canceled schedule cannot be resumed; the tenant would set up a new one.',
  },
};

/** A tenant's schedules (recurring rent); people with schedules.manage pause, resume and cancel them, with a reason. */
export function Schedules(props: { schedules: Schedule[]; manage: boolean }) {
  const [schedules, setSchedules] = useState(props.schedules);
  const [notice, setNotice] = useState<string>();
  return (
    <section aria-labelledby="schedules-heading" class="panel">
      <h2 id="schedules-heading">Schedules</h2>
      {notice ? <Notice>{notice}</Notice> : null}
      {schedules.length === 0 ? <p>No schedules: the tenant pays each rent themselves.</p> : null}
      {schedules.map((schedule) => (
        <ScheduleCard
          key={schedule.schedule_id}
          schedule={schedule}
          manage={props.manage}
          onChanged={(changed, action) => {
            setSchedules((known) =>
              known.map((one) => (one.schedule_id === changed.schedule_id ? changed : one)),
            );
            setNotice(`The schedule of ${changed.payment_reference} is ${ACTION_WORDS[action].done}.`);
          }}
        />
      ))}
    </section>
  );
}

function ScheduleCard(props: {
  schedule: Schedule;
  manage: boolean;
  onChanged(schedule: Schedule, action: ScheduleAction): void;
}) {
  const { schedule } = props;
  const [action, setAction] = useState<ScheduleAction>();
  const headingRef = useRef<HTMLHeadingElement>(null);
  const id = schedule.schedule_id;
  const actions = props.manage ? scheduleActions(schedule.status) : [];
  return (
    <section class="card" aria-labelledby={`${id}-heading`}>
      <h3 id={`${id}-heading`} ref={headingRef} tabIndex={-1}>
        {schedule.payment_reference}: {SCHEDULE_STATUS_NAMES[schedule.status]}
      </h3>
      <dl class="facts">
        <dt>Charges</dt>
        <dd>
          {moneyOf(schedule.amount)} {frequencyName(schedule.frequency)} on the{' '}
          {ordinal(schedule.rent_due_day)}
          {schedule.fee !== '0.00'
            ? ` (rent ${moneyOf(schedule.pure_amount)}, fee ${moneyOf(schedule.fee)})`
            : ''}
          {schedule.installment_plan ? ', by installment plan' : ''}
        </dd>
        <dt>Card</dt>
        <dd>
          {schedule.card.brand} ending {schedule.card.last4}
        </dd>
        <dt>Next due date</dt>
        <dd>{schedule.next_due_date ? longDate(schedule.next_due_date) : 'None'}</dd>
        {schedule.reason ? (
          <>
            <dt>Why {schedule.status === 'canceled' ? 'canceled' : 'paused'}</dt>
            <dd>{schedule.reason}</dd>
          </>
        ) : null}
        <dt>Set up</dt>
        <dd>
          <When at={schedule.created_at} />
        </dd>
      </dl>
      {action ? (
        <ReasonForm
          schedule={schedule}
          action={action}
          onDone={(changed) => {
            setAction(undefined);
            if (changed) props.onChanged(changed, action);
            requestAnimationFrame(() => headingRef.current?.focus());
          }}
        />
      ) : actions.length > 0 ? (
        <div class="buttons">
          {actions.map((one) => (
            <button
              key={one}
              type="button"
              class={one === 'cancel' ? 'danger' : undefined}
              onClick={() => setAction(one)}
            >
              {ACTION_WORDS[one].verb}
              <span class="visually-hidden"> the schedule of {schedule.payment_reference}</span>
            </button>
          ))}
        </div>
      ) : null}
    </section>
  );
}

/** Asks why (and, to cancel, whether for good), then makes the move. */
function ReasonForm(props: { schedule: Schedule; action: ScheduleAction; onDone(changed?: Schedule): void }) {
  const { schedule, action } = props;
  const words = ACTION_WORDS[action];
  const [reason, setReason] = useState('');
  const [reasonError, setReasonError] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const reasonRef = useRef<HTMLInputElement>(null);
  const fieldId = `${schedule.schedule_id}-reason`;

  useEffect(() => {
    reasonRef.current?.focus();
  }, []);

  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    setReasonError(undefined);
    if (!reason.trim()) {
      setReasonError(`Say why it is ${words.done}, in a few words.`);
      reasonRef.current?.focus();
      return;
    }
    setBusy(true);
    try {
      const changed = await call<Schedule>(
        'POST',
        `/schedules/${encodeURIComponent(schedule.schedule_id)}/${action}/`,
        { reason: reason.trim() },
      );
      props.onDone(changed);
    } catch (error) {
      setBusy(false);
      if (error instanceof ApiError && error.field('reason')) {
        setReasonError(error.field('reason'));
        reasonRef.current?.focus();
      } else setProblem(messageOf(error));
    }
  };

  return (
    <form class="confirm" onSubmit={submit} aria-labelledby={`${fieldId}-title`}>
      <p id={`${fieldId}-title`}>
        <strong>
          {words.verb} the schedule of {schedule.payment_reference}
          {action === 'cancel' ? ' for good?' : '?'}
        </strong>{' '}
        {words.ask}
      </p>
      {problem ? <Alert focus>{problem}</Alert> : null}
      <Field
        id={fieldId}
        label="Reason"
        hint="Kept with the schedule and in the audit log (up to 500 characters)."
        value={reason}
        onValue={setReason}
        maxLength={500}
        error={reasonError}
        inputRef={reasonRef}
      />
      <div class="buttons">
        <button type="submit" class={action === 'cancel' ? 'danger' : 'primary'} disabled={busy}>
          {busy ? 'Saving…' : action === 'cancel' ? 'Cancel schedule for good' : `${words.verb} schedule`}
        </button>
        <button type="button" onClick={() => props.onDone()} disabled={busy}>
          {action === 'cancel' ? 'Keep schedule' : 'Back'}
        </button>
      </div>
    </form>
  );
}
