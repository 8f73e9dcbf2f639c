import { longDate, moneyOf } from '../../../src/shared/display.ts';
import { call } from '../api.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Notice, TableWrap, useFocusOnMount, When } from '../ui.tsx';
import { Confirming } from './Confirming.tsx';
import { actorName, PAYOUT_STATUS_NAMES, RUN_STATUS_NAMES, sortCodeOf } from './format.ts';
import { PageTop } from './PageTop.tsx';
import type { ConsoleRun } from './types.ts';

/** A run: its payouts, what it held back and why, the bank file, and confirm or cancel while it waits. */
export function PayoutRunPage(props: SectionProps & { runId: string }) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const path = `/operator/payout-runs/${encodeURIComponent(props.runId)}/`;
  const loaded = useLoaded<ConsoleRun>(path);
  const run = loaded.data;
  const manages = props.me.permissions.includes('payouts.manage');

  const change = (action: 'confirm' | 'cancel') => async () => {
    loaded.set(await call<ConsoleRun>('POST', `${path}${action}/`));
    // The buttons are gone with the change: the page's heading is where the person reads on.
    heading.current?.focus();
  };

  return (
    <>
      <PageTop back={href('payout-runs')} backText="All payout runs" heading={heading}>
        Payout run <span class="mono break">{props.runId}</span>
      </PageTop>
      {!run ? (
        <Waiting loaded={loaded} what="the payout run" />
      ) : (
        <>
          <dl class="facts">
            <dt>Status</dt>
            <dd>
              <span class={`status-${run.status}`}>{RUN_STATUS_NAMES[run.status]}</span>
            </dd>
            <dt>Rent up to</dt>
            <dd>{longDate(run.as_of)}</dd>
            <dt>Total</dt>
            <dd>
              {moneyOf(run.total)} in {run.items.length} payout{run.items.length === 1 ? '' : 's'}
            </dd>
            <dt>Made</dt>
            <dd>
              <When at={run.created_at} /> by {actorName(run.created_by)}
            </dd>
            {run.confirmed_at ? (
              <>
                <dt>Confirmed</dt>
                <dd>
                  <When at={run.confirmed_at} />
                </dd>
              </>
            ) : null}
            {run.canceled_at ? (
              <>
                <dt>Canceled</dt>
                <dd>
                  <When at={run.canceled_at} />
                </dd>
              </>
            ) : null}
          </dl>
          <p>
            <a href={`/api/dashboard${path}file`} download={`${run.payout_run_id}.csv`}>
              Download the bank file (CSV)
            </a>
          </p>
          {run.status === 'confirmed' ? (
            <Notice>This run is confirmed: its payouts are paid and each platform was told.</Notice>
          ) : run.status === 'canceled' ? (
            <Notice>This run is canceled: its rent goes into the next run. Do not send its bank file.</Notice>
          ) : null}
          {run.status === 'created' && manages ? (
            <section class="panel" aria-labelledby="run-actions">
              <h2 id="run-actions">Confirm or cancel</h2>
              {run.may_confirm ? (
                <Confirming
                  start="Confirm the run"
                  doing="Confirming…"
                  keep="Not yet"
                  onConfirm={change('confirm')}
                >
                  <p>
                    Confirm this run only once the bank has its file. Its {run.items.length} payout
                    {run.items.length === 1 ? '' : 's'} ({moneyOf(run.total)}) become paid and each platform
                    is told. This cannot be undone.
                  </p>
                </Confirming>
              ) : (
                <p class="refusal" data-testid="confirm-refusal">
                  <strong>You cannot confirm this run.</strong> {run.confirm_refusal}
                </p>
              )}
              <div class="spaced">
                <Confirming
                  start="Cancel the run"
                  danger
                  doing="Canceling…"
                  keep="Keep the run"
                  onConfirm={change('cancel')}
                >
                  <p>
                    Cancel this run? Nothing in it is paid: its payments and refunds go into the next run
                    instead. Do not send its bank file.
                  </p>
                </Confirming>
              </div>
            </section>
          ) : null}
          <Payouts run={run} />
          <Held run={run} />
        </>
      )}
    </>
  );
}

function Payouts(props: { run: ConsoleRun }) {
  const { items } = props.run;
  if (items.length === 0) return <p>This run pays nothing out.</p>;
  return (
    <TableWrap label="Payouts of the run">
      <table>
        <caption>Payouts</caption>
        <thead>
          <tr>
            <th scope="col">Tenancy</th>
            <th scope="col">Landlord account</th>
            <th scope="col" class="number">
              Amount
            </th>
            <th scope="col" class="number">
              Payments
            </th>
            <th scope="col">Status</th>
          </tr>
        </thead>
        <tbody>
          {items.map((payout) => (
            <tr key={payout.payout_id}>
              <th scope="row" class="mono">
                {payout.payment_reference}
              </th>
              <td class="break">
                {payout.account_name}
                <span class="mono hint block">
                  {sortCodeOf(payout.sort_code)} {payout.account_number}
                </span>
              </td>
              <td class="number">{moneyOf(payout.amount)}</td>
              <td class="number">{payout.payment_ids.length}</td>
              <td>
                {PAYOUT_STATUS_NAMES[payout.status]}
                {payout.paid_at ? (
                  <span class="hint block">
                    <When at={payout.paid_at} />
                  </span>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function Held(props: { run: ConsoleRun }) {
  const { held } = props.run;
  return (
    <>
      <h2>Held back</h2>
      {held.length === 0 ? (
        <p>This run held no tenancy back.</p>
      ) : (
        <TableWrap label="Tenancies held back">
          <table>
            <caption>Tenancies whose rent this run held back, and why</caption>
            <thead>
              <tr>
                <th scope="col">Tenancy</th>
                <th scope="col">Integrator</th>
                <th scope="col" class="number">
                  Rent held
                </th>
                <th scope="col">Why</th>
              </tr>
            </thead>
            <tbody>
              {held.map((tenancy) => (
                <tr key={`${tenancy.integrator_id}/${tenancy.payment_reference}`}>
                  <th scope="row" class="mono">
                    {tenancy.payment_reference}
                  </th>
                  <td>
                    <a class="mono" href={href('integrators', [tenancy.integrator_id])}>
                      {tenancy.integrator_id}
                    </a>
                  </td>
                  <td class="number">{moneyOf(tenancy.amount)}</td>
                  <td class="break">{tenancy.reason}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
