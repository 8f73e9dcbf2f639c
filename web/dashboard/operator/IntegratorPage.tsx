import { useState } from 'preact/hooks';
import { moneyOf } from '../../../src/shared/display.ts';
import { call } from '../api.ts';
import { ageOf } from '../format.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Alert, Notice, OnceSecret, useFocusOnMount, When } from '../ui.tsx';
import { Confirming } from './Confirming.tsx';
import { ENVIRONMENT_NAMES, percentOf, STATUS_NAMES } from './format.ts';
import { PageTop } from './PageTop.tsx';
import type { ConsoleIntegrator } from './types.ts';

/** One integrator: its health, and for those who may, suspend or unsuspend it and reissue its server token. */
export function IntegratorPage(props: SectionProps & { integratorId: string }) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  // The console lists every integrator with its health in one answer; there is no answer for one alone.
  const loaded = useLoaded<{ data: ConsoleIntegrator[] }>('/operator/integrators/');
  const integrator = loaded.data?.data.find((found) => found.integrator_id === props.integratorId);
  const { permissions } = props.me;
  return (
    <>
      <PageTop back={href('integrators')} backText="All integrators" heading={heading}>
        {integrator?.name ?? 'Integrator'}
      </PageTop>
      {!loaded.data ? (
        <Waiting loaded={loaded} what="the integrator" />
      ) : !integrator ? (
        <Alert focus>There is no integrator {props.integratorId}.</Alert>
      ) : (
        <>
          <dl class="facts">
            <dt>Id</dt>
            <dd class="mono">{integrator.integrator_id}</dd>
            <dt>Status</dt>
            <dd>
              <span class={`status-${integrator.status}`}>{STATUS_NAMES[integrator.status]}</span>
            </dd>
            <dt>Environment</dt>
            <dd>{ENVIRONMENT_NAMES[integrator.environment]}</dd>
            <dt>Created</dt>
            <dd>
              <When at={integrator.created_at} />
            </dd>
          </dl>
          <h2>Last 30 days</h2>
          <dl class="facts">
            <dt>Payments succeeded</dt>
            <dd>
              {integrator.payments.succeeded} ({moneyOf(integrator.payments.amount)} charged)
            </dd>
            <dt>Payments failed</dt>
            <dd>{integrator.payments.failed}</dd>
            <dt>Failure rate</dt>
            <dd>{percentOf(integrator.payments.failure_rate)}</dd>
          </dl>
          <h2>Webhooks now</h2>
          <dl class="facts">
            <dt>Pending</dt>
            <dd>{integrator.webhooks.pending}</dd>
            <dt>Oldest pending for</dt>
            <dd>{ageOf(integrator.webhooks.oldest_pending_age_seconds)}</dd>
            <dt>Failed</dt>
            <dd>{integrator.webhooks.failed}</dd>
          </dl>
          {permissions.includes('integrators.manage') ? (
            <StatusChange
              integrator={integrator}
              onChanged={(status) => {
                const all = loaded.data?.data ?? [];
                loaded.set({
                  data: all.map((one) =>
                    one.integrator_id === integrator.integrator_id ? { ...one, status } : one,
                  ),
                });
              }}
            />
          ) : null}
          {permissions.includes('credentials.manage') ? <ReissueToken integrator={integrator} /> : null}
        </>
      )}
    </>
  );
}

/** Suspend (its tokens stop working everywhere at once) or unsuspend, after saying what happens. */
function StatusChange(props: {
  integrator: ConsoleIntegrator;
  onChanged(status: ConsoleIntegrator['status']): void;
}) {
  const { integrator } = props;
  const suspending = integrator.status === 'active';
  const [done, setDone] = useState<string>();
  const change = async () => {
    const action = suspending ? 'suspend' : 'unsuspend';
    const changed = await call<{ status: ConsoleIntegrator['status'] }>(
      'POST',
      `/operator/integrators/${encodeURIComponent(integrator.integrator_id)}/${action}/`,
    );
    setDone(
      suspending
        ? `${integrator.name} is suspended: its tokens are refused from now on.`
        : `${integrator.name} is active again: its server tokens work again.`,
    );
    props.onChanged(changed.status);
  };
  return (
    <section class="panel" aria-labelledby="integrator-status">
      <h2 id="integrator-status">{suspending ? 'Suspend' : 'Unsuspend'}</h2>
      {done ? <Notice>{done}</Notice> : null}
      <Confirming
        start={suspending ? `Suspend ${integrator.name}` : `Unsuspend ${integrator.name}`}
        danger={suspending}
        doing={suspending ? 'Suspending…' : 'Unsuspending…'}
        keep={suspending ? 'Keep it active' : 'Keep it suspended'}
        onConfirm={change}
      >
        {suspending ? (
          <p>
            Suspend {integrator.name}? Its server tokens stop working on the Integration API at once, on every
            node, and its tenants’ sessions on the Client API: each request is refused (403
            integrator_suspended) until you unsuspend it. Recurring schedules keep charging and pending
            webhooks keep being delivered.
          </p>
        ) : (
          <p>
            Unsuspend {integrator.name}? Its server tokens that are still valid work again at once. If a token
            leaked, reissue it first.
          </p>
        )}
      </Confirming>
    </section>
  );
}

/** A new server token, shown once; every older one stops working. */
function ReissueToken(props: { integrator: ConsoleIntegrator }) {
  const { integrator } = props;
  const [token, setToken] = useState<string>();
  const reissue = async () => {
    const answer = await call<{ server_token: string }>(
      'POST',
      `/operator/integrators/${encodeURIComponent(integrator.integrator_id)}/reissue-token/`,
    );
    setToken(answer.server_token);
  };
  return (
    <section class="panel" aria-labelledby="integrator-token">
      <h2 id="integrator-token">Server token</h2>
      {token ? (
        <OnceSecret id="reissued-token" label={`New server token of ${integrator.name}`} value={token}>
          <p>
            Every earlier server token of {integrator.name} has stopped working. Hand this one to the
            platform.
          </p>
        </OnceSecret>
      ) : null}
      <Confirming
        start="Reissue server token"
        danger
        doing="Reissuing…"
        keep="Keep the current token"
        onConfirm={reissue}
      >
        <p>
          Reissue the server token of {integrator.name}? Every server token it has stops working at once, also
          one still in its grace period after a rotation, and a new one is shown here once. Use this when a
          token leaked or was lost.
        </p>
      </Confirming>
    </section>
  );
}
