import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { longDate, moneyOf } from '../../../src/shared/display.ts';
import { call } from '../api.ts';
import { Chart } from '../charts.tsx';
import { pageOf } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Alert, messageOf, TableWrap, useFocusOnMount, When } from '../ui.tsx';
import { ARREARS_AGE_NAMES, collectionSeries, collectionSummary, waitedFor } from './home-figures.ts';
import type { HomeFigures } from './types.ts';
import './home.css';

/** A figure of the home page: its value and what it counts, as one link to the list behind it. */
function Figure(props: { link: string; value: string; label: string; children?: ComponentChildren }) {
  return (
    <li>
      <a class="figure" href={pageOf(props.link)}>
        <span class="figure-value">{props.value}</span>
        <span class="figure-label">{props.label}</span>
      </a>
      {props.children}
    </li>
  );
}

const count = (n: number) => n.toLocaleString('en-GB');

/** Home: collection against rent due, arrears by age, what waits (payments, payouts, webhooks). */
export function Home(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const [home, setHome] = useState<HomeFigures>();
  const [problem, setProblem] = useState<string>();
  useEffect(() => {
    call<HomeFigures>('GET', '/home/').then(setHome, (error) => setProblem(messageOf(error)));
  }, []);

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Home
      </h1>
      {problem ? <Alert focus>{problem}</Alert> : null}
      {!home ? problem ? null : <p role="status">Loading…</p> : <Figures home={home} />}
    </>
  );
}

function Figures({ home }: { home: HomeFigures }) {
  const points = collectionSeries(home.series);
  const pending = home.webhooks.pending;
  return (
    <>
      <p class="hint">
        As of <When at={home.as_of} />. Each figure opens the list behind it.
      </p>
      <section class="card" aria-labelledby="rent-heading">
        <h2 id="rent-heading">Rent</h2>
        <ul class="figures">
          <Figure
            link={home.collected_today.link}
            value={moneyOf(home.collected_today.amount)}
            label="collected today"
          />
          <Figure
            link={home.collected_this_month.link}
            value={moneyOf(home.collected_this_month.amount)}
            label="collected this month"
          />
          <Figure
            link={home.due_this_month.link}
            value={moneyOf(home.due_this_month.amount)}
            label="due this month"
          />
        </ul>
        <Chart
          title="Rent collected and due, last 30 days"
          summary={collectionSummary(home.series, moneyOf)}
          labels={points.labels}
          axisLabels={points.axisLabels}
          series={[
            { name: 'Collected', kind: 'bars', values: points.collected, color: 'var(--color-primary)' },
            { name: 'Due', kind: 'line', values: points.due, color: 'var(--color-chart-due)' },
          ]}
          format={(value) => moneyOf(value.toFixed(2))}
        />
      </section>
      <section class="card" aria-labelledby="arrears-heading">
        <h2 id="arrears-heading">Arrears</h2>
        <ul class="figures">
          <Figure
            link={home.arrears.link}
            value={moneyOf(home.arrears.total.amount)}
            label={`owed by ${count(home.arrears.total.tenancies)} ${home.arrears.total.tenancies === 1 ? 'tenancy' : 'tenancies'} in arrears`}
          />
        </ul>
        <TableWrap label="Arrears by days overdue">
          <table class="arrears">
            <caption>Arrears by days overdue</caption>
            <thead>
              <tr>
                <th scope="col">Overdue</th>
                <th scope="col" class="number">
                  Tenancies
                </th>
                <th scope="col" class="number">
                  Owed
                </th>
              </tr>
            </thead>
            <tbody>
              {home.arrears.buckets.map((bucket) => (
                <tr key={bucket.label}>
                  <th scope="row">
                    <a href={pageOf(home.arrears.link)}>{ARREARS_AGE_NAMES[bucket.label]}</a>
                  </th>
                  <td class="number">{count(bucket.tenancies)}</td>
                  <td class="number">{moneyOf(bucket.amount)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
        <p class="hint">Counted to {longDate(home.arrears.as_of)}, as each tenancy's ledger counts it.</p>
      </section>
      <div class="home-columns">
        <section class="card" aria-labelledby="waiting-heading">
          <h2 id="waiting-heading">Payments</h2>
          <ul class="figures">
            <Figure
              link={home.failed_payments.link}
              value={count(home.failed_payments.count)}
              label="failed in the last 30 days"
            />
            <Figure
              link={home.requires_action.link}
              value={count(home.requires_action.count)}
              label="waiting for their tenant to authenticate"
            />
          </ul>
        </section>
        <section class="card" aria-labelledby="payouts-heading">
          <h2 id="payouts-heading">Payouts waiting</h2>
          <ul class="figures">
            <Figure
              link={home.payouts.awaiting_confirmation.link}
              value={count(home.payouts.awaiting_confirmation.count)}
              label="in runs not yet confirmed"
            />
            <Figure
              link={home.payouts.awaiting_approval.link}
              value={count(home.payouts.awaiting_approval.count)}
              label="held until the landlord's account is approved"
            />
            <Figure
              link={home.payouts.held.link}
              value={count(home.payouts.held.count)}
              label="held for bank details that cannot be paid"
            />
          </ul>
        </section>
        <section class="card" aria-labelledby="webhooks-heading">
          <h2 id="webhooks-heading">Webhooks</h2>
          <ul class="figures">
            <Figure
              link={home.webhooks.failed.link}
              value={count(home.webhooks.failed.count)}
              label="deliveries failed every attempt"
            />
            <Figure link={pending.link} value={count(pending.count)} label="deliveries pending">
              <p class="hint figure-note">
                {pending.count === 0
                  ? 'None waiting.'
                  : `${count(pending.retrying)} retrying; the oldest has waited ${waitedFor(pending.oldest_age_seconds ?? 0)}.`}
              </p>
            </Figure>
          </ul>
        </section>
      </div>
    </>
  );
}
