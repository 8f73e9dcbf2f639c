import { useRef, useState } from 'preact/hooks';
import { longDate, moneyOf } from '../../../src/shared/display.ts';
import { ApiError, call } from '../api.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Alert, Field, messageOf, TableWrap, useFocusOnMount, When } from '../ui.tsx';
import { actorName, RUN_STATUS_NAMES } from './format.ts';
import { Payees } from './Payees.tsx';
import { PayoutRunPage } from './PayoutRunPage.tsx';
import type { ConsoleRun, ConsoleRunSummary } from './types.ts';
import './operator.css';

/** Payout runs: the list (`#payout-runs`), one run (`#payout-runs/prun_…`), accounts to approve (`…/payees`). */
export function PayoutRuns(props: SectionProps) {
  const [part] = props.route.path;
  if (part === 'payees') return <Payees key="payees" {...props} />;
  if (part) return <PayoutRunPage key={part} runId={part} {...props} />;
  return <RunList {...props} />;
}

function RunList(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<{ data: ConsoleRunSummary[] }>('/operator/payout-runs/');
  const runs = loaded.data?.data;
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Payout runs
      </h1>
      <p>
        A run pays each landlord the rent collected for them, through one bank file. Confirm a run once the
        bank has its file. <a href={href('payout-runs', ['payees'])}>Landlord accounts awaiting approval</a>
      </p>
      {props.me.permissions.includes('payouts.manage') ? <MakeRun /> : null}
      {!runs ? (
        <Waiting loaded={loaded} what="payout runs" />
      ) : runs.length === 0 ? (
        <p>No payout run has been made yet.</p>
      ) : (
        <TableWrap label="Payout runs">
          <table>
            <caption>Payout runs, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Run</th>
                <th scope="col">Status</th>
                <th scope="col">Rent up to</th>
                <th scope="col" class="number">
                  Total
                </th>
                <th scope="col">Made</th>
              </tr>
            </thead>
            <tbody>
              {runs.map((run) => (
                <tr key={run.payout_run_id}>
                  <th scope="row">
                    <a class="mono" href={href('payout-runs', [run.payout_run_id])}>
                      {run.payout_run_id}
                    </a>
                  </th>
                  <td>
                    <span class={`status-${run.status}`}>{RUN_STATUS_NAMES[run.status]}</span>
                  </td>
                  <td>{longDate(run.as_of)}</td>
                  <td class="number">{moneyOf(run.total)}</td>
                  <td class="break">
                    <When at={run.created_at} />
                    <span class="hint block">by {actorName(run.created_by)}</span>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}

/** Makes a run of the rent payable up to a day (today unless given), then opens it. */
function MakeRun() {
  const [asOf, setAsOf] = useState('');
  const [asOfError, setAsOfError] = useState<string>();
  const [problem, setProblem] = useState<string>();
  const [busy, setBusy] = useState(false);
  const asOfRef = useRef<HTMLInputElement>(null);
  const submit = async (event: Event) => {
    event.preventDefault();
    setProblem(undefined);
    const typed = asOf.trim();
    if (typed && !/^\d{4}-\d{2}-\d{2}$/.test(typed)) {
      setAsOfError('Enter a day as YYYY-MM-DD, e.g. 2026-03-01, or leave it empty for today.');
      asOfRef.current?.focus();
      return;
    }
    setAsOfError(undefined);
    setBusy(true);
    try {
      const run = await call<ConsoleRun>('POST', '/operator/payout-runs/', typed ? { as_of: typed } : {});
      location.hash = href('payout-runs', [run.payout_run_id]);
    } catch (error) {
      if (error instanceof ApiError && error.field('as_of')) setAsOfError(error.field('as_of'));
      else setProblem(messageOf(error));
      setBusy(false);
    }
  };
  return (
    <form class="actions" onSubmit={submit} noValidate aria-labelledby="make-run">
      <h2 id="make-run" class="visually-hidden">
        Make a run
      </h2>
      {problem ? <Alert focus>{problem}</Alert> : null}
      <Field
        id="run-as-of"
        label="Rent up to (optional)"
        hint="YYYY-MM-DD; empty for today (UTC)."
        inputMode="numeric"
        value={asOf}
        onValue={setAsOf}
        maxLength={10}
        error={asOfError}
        inputRef={asOfRef}
      />
      <button type="submit" class="primary" disabled={busy}>
        {busy ? 'Making the run…' : 'Make a payout run'}
      </button>
    </form>
  );
}
