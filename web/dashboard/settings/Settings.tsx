import type { ComponentChildren } from 'preact';
import { useRef, useState } from 'preact/hooks';
import { METHOD_LABELS, PAYMENT_METHODS } from '../../../src/shared/vocabulary.ts';
import { ApiError, call } from '../api.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Alert, Field, messageOf, Notice, useFocusOnMount } from '../ui.tsx';
import {
  type FeeRows,
  feeErrors,
  feeRowsOf,
  feesBody,
  originsError,
  originsOf,
  reminderBody,
} from './settings-form.ts';
import type { PlatformSettings } from './types.ts';
import './settings.css';

function saveSettings(body: Partial<Record<keyof PlatformSettings, unknown>>): Promise<PlatformSettings> {
  return call<PlatformSettings>('PATCH', '/settings/', body);
}

/** Settings (admins): fees per method, rent reminders and allowed origins, each saved on its own. */
export function Settings(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<PlatformSettings>('/settings/');
  const settings = loaded.data;
  const setSettings = loaded.set;
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Settings
      </h1>
      <p>
        Each change is recorded in the audit log with your name, and the settings before and after. The people
        of your team and their roles are on the <a href={href('team')}>Team</a> page.
      </p>
      {!settings ? (
        <Waiting loaded={loaded} what="the settings" />
      ) : (
        <>
          <Fees settings={settings} onSaved={setSettings} />
          <Reminders settings={settings} onSaved={setSettings} />
          <Origins settings={settings} onSaved={setSettings} />
        </>
      )}
    </>
  );
}

interface PartProps {
  settings: PlatformSettings;
  onSaved(settings: PlatformSettings): void;
}

/** A part's saving: busy, its notice and its problem, and the fields the API named. */
function useSave() {
  const [busy, setBusy] = useState(false);
  const [notice, setNotice] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [fields, setFields] = useState<Record<string, string[]>>({});
  const save = async (
    body: Parameters<typeof saveSettings>[0],
    done: string,
    onSaved: (settings: PlatformSettings) => void,
  ): Promise<boolean> => {
    setBusy(true);
    setNotice(undefined);
    setProblem(undefined);
    setFields({});
    try {
      onSaved(await saveSettings(body));
      setNotice(done);
      return true;
    } catch (error) {
      if (error instanceof ApiError && Object.keys(error.fields).length > 0) setFields(error.fields);
      else setProblem(messageOf(error));
      return false;
    } finally {
      setBusy(false);
    }
  };
  return { busy, notice, problem, fields, save };
}

/** A part of the page: its heading and words, what saving it said, and its form with a Save button. */
function SettingsPart(props: {
  id: string;
  title: string;
  intro: ComponentChildren;
  saving: ReturnType<typeof useSave>;
  /** Sends the part's change: answers whether it was saved. */
  submit(): Promise<boolean>;
  saveLabel: string;
  formClass?: string;
  children: ComponentChildren;
}) {
  const { busy, notice, problem } = props.saving;
  const formRef = useRef<HTMLFormElement>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    // The first field the API refused gets focus, once its error is shown.
    if (!(await props.submit())) {
      requestAnimationFrame(() =>
        formRef.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus(),
      );
    }
  };
  return (
    <section class="card" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      {props.intro}
      {notice ? <Notice>{notice}</Notice> : null}
      {problem ? <Alert focus>{problem}</Alert> : null}
      <form ref={formRef} class={props.formClass} onSubmit={submit} noValidate>
        {props.children}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? 'Saving…' : props.saveLabel}
        </button>
      </form>
    </section>
  );
}

function Fees(props: PartProps) {
  const [rows, setRows] = useState<FeeRows>(() => feeRowsOf(props.settings.fees));
  const saving = useSave();
  const errors = feeErrors(saving.fields);
  const { environment, business_lets } = props.settings;
  const set = (method: keyof FeeRows, part: 'percent' | 'fixed', value: string) =>
    setRows({ ...rows, [method]: { ...rows[method], [part]: value } });
  const submit = () =>
    saving.save({ fees: feesBody(rows) }, 'Fees saved.', (settings) => {
      props.onSaved(settings);
      setRows(feeRowsOf(settings.fees));
    });

  return (
    <SettingsPart
      id="fees"
      title="Fees"
      saving={saving}
      submit={submit}
      saveLabel="Save fees"
      intro={
        <>
          <p>
            What each payment method adds to the rent: a percentage of it plus a fixed amount in pounds (e.g.
            1.40 and 0.20). Leave both empty for no fee.{' '}
            {environment === 'production'
              ? business_lets
                ? 'The operator has recorded that your tenants are businesses, so fees may be charged.'
                : 'In production a fee other than 0 is refused: UK law bans most fees to consumer tenants, and the operator has not recorded that your tenants are businesses.'
              : 'In sandbox, any fee is allowed for testing.'}
          </p>
          {errors.general ? <Alert focus>{errors.general}</Alert> : null}
        </>
      }
    >
      {PAYMENT_METHODS.map((method) => (
        <fieldset key={method} class="fee">
          <legend>{METHOD_LABELS[method]}</legend>
          <div class="fee-parts">
            <Field
              id={`fee-${method}-percent`}
              label="Percent"
              value={rows[method].percent}
              onValue={(value) => set(method, 'percent', value)}
              error={errors.byField[`fees.${method}.percent`]}
            />
            <Field
              id={`fee-${method}-fixed`}
              label="Fixed, in pounds"
              value={rows[method].fixed}
              onValue={(value) => set(method, 'fixed', value)}
              error={errors.byField[`fees.${method}.fixed`]}
            />
          </div>
        </fieldset>
      ))}
    </SettingsPart>
  );
}

function Reminders(props: PartProps) {
  const [days, setDays] = useState(String(props.settings.reminder_days_before ?? ''));
  const saving = useSave();
  const submit = () => {
    const body = reminderBody(days);
    return saving.save(
      { reminder_days_before: body },
      body === null ? 'Rent reminders turned off.' : 'Rent reminders saved.',
      props.onSaved,
    );
  };
  return (
    <SettingsPart
      id="reminders"
      title="Rent reminders"
      saving={saving}
      submit={submit}
      saveLabel="Save reminders"
      formClass="actions"
      intro={
        <p>
          rentpay sends <code>rent_due_soon</code> this many days before a due date not yet paid, and{' '}
          <code>rent_overdue</code> 1 and 7 days after one still unpaid. Leave it empty to send none.
        </p>
      }
    >
      <Field
        id="reminder-days"
        label="Days before a due date"
        hint="1 to 90; empty: no reminders."
        inputMode="numeric"
        value={days}
        onValue={setDays}
        error={saving.fields.reminder_days_before?.join(' ')}
      />
    </SettingsPart>
  );
}

function Origins(props: PartProps) {
  const [text, setText] = useState(props.settings.allowed_origins.join('\n'));
  const saving = useSave();
  const error = originsError(saving.fields);
  const submit = () =>
    saving.save({ allowed_origins: originsOf(text) }, 'Allowed origins saved.', (settings) => {
      props.onSaved(settings);
      setText(settings.allowed_origins.join('\n'));
    });
  const describedBy = ['origins-hint', error ? 'origins-error' : ''].filter(Boolean).join(' ');
  return (
    <SettingsPart
      id="origins"
      title="Allowed origins"
      saving={saving}
      submit={submit}
      saveLabel="Save origins"
      intro={<p>The sites allowed to show the payment page in a frame and to host the SDK.</p>}
    >
      <div class="field">
        <label for="origins">Origins, one a line</label>
        <p id="origins-hint" class="hint">
          Scheme, host and port only, e.g. https://app.platform.example; no wildcards, no path.
        </p>
        <textarea
          id="origins"
          class="mono"
          rows={4}
          spellcheck={false}
          value={text}
          onInput={(event) => setText(event.currentTarget.value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={describedBy}
        />
        {error ? (
          <p id="origins-error" class="error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    </SettingsPart>
  );
}
