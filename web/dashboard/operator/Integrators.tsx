import { moneyOf } from '../../../src/shared/display.ts';
import { ageOf } from '../format.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { TableWrap, useFocusOnMount, When } from '../ui.tsx';
import { CreateIntegrator } from './CreateIntegrator.tsx';
import { ENVIRONMENT_NAMES, percentOf, STATUS_NAMES } from './format.ts';
import { IntegratorPage } from './IntegratorPage.tsx';
import type { ConsoleIntegrator } from './types.ts';
import './operator.css';

/** Integrators: the list (`#integrators`), one integrator (`#integrators/int_…`), a new one (`#integrators/new`). */
export function Integrators(props: SectionProps) {
  const [part] = props.route.path;
  if (part === 'new') return <CreateIntegrator key="new" {...props} />;
  if (part) return <IntegratorPage key={part} integratorId={part} {...props} />;
  return <IntegratorList {...props} />;
}

function IntegratorList(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<{ data: ConsoleIntegrator[] }>('/operator/integrators/');
  const integrators = loaded.data?.data;
  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Integrators
      </h1>
      <p>
        Every platform using rentpay, oldest first, with its payments of the last 30 days and its webhook
        backlog now.
      </p>
      {props.me.permissions.includes('integrators.manage') ? (
        <p>
          <a class="button-link" href={href('integrators', ['new'])}>
            Create an integrator
          </a>
        </p>
      ) : null}
      {!integrators ? (
        <Waiting loaded={loaded} what="integrators" />
      ) : integrators.length === 0 ? (
        <p>There are no integrators yet.</p>
      ) : (
        <TableWrap label="Integrators">
          <table class="integrators">
            <caption>
              {integrators.length} integrator{integrators.length === 1 ? '' : 's'}
            </caption>
            <thead>
              <tr>
                <th scope="col">Integrator</th>
                <th scope="col">Status</th>
                <th scope="col">Environment</th>
                <th scope="col" class="number">
                  Payments, 30 days
                </th>
                <th scope="col" class="number">
                  Volume
                </th>
                <th scope="col" class="number">
                  Failure rate
                </th>
                <th scope="col">Webhook backlog</th>
              </tr>
            </thead>
            <tbody>
              {integrators.map((integrator) => (
                <tr key={integrator.integrator_id}>
                  <th scope="row" class="break">
                    <a href={href('integrators', [integrator.integrator_id])}>{integrator.name}</a>
                    <span class="mono hint block">{integrator.integrator_id}</span>
                    <span class="hint block">
                      Since <When at={integrator.created_at} />
                    </span>
                  </th>
                  <td>
                    <span class={`status-${integrator.status}`}>{STATUS_NAMES[integrator.status]}</span>
                  </td>
                  <td>{ENVIRONMENT_NAMES[integrator.environment]}</td>
                  <td class="number">
                    {integrator.payments.succeeded} succeeded
                    <span class="block">{integrator.payments.failed} failed</span>
                  </td>
                  <td class="number">{moneyOf(integrator.payments.amount)}</td>
                  <td class="number">{percentOf(integrator.payments.failure_rate)}</td>
                  <td>
                    {integrator.webhooks.pending} pending
                    {integrator.webhooks.oldest_pending_age_seconds === null ? null : (
                      <span class="hint block">
                        oldest for {ageOf(integrator.webhooks.oldest_pending_age_seconds)}
                      </span>
                    )}
                    <span class="block">{integrator.webhooks.failed} failed</span>
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
