import type { ComponentChildren } from 'preact';
import { longDate, moneyOf } from '../../../src/shared/display.ts';
import { Chart } from '../charts.tsx';
import { ageOf } from '../format.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { pageOf } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { TableWrap, useFocusOnMount, When } from '../ui.tsx';
import { ARREARS_AGE_NAMES, collectionSeries, collectionSummary } from './home-figures.ts';
import type { AmountFigure, CountFigure, HomeFigures } from './types.ts';
import './home.css';

/** A figure of the home page: its value and what it counts, shown as one link to the list behind it. */
interface FigureLink {
  link: string;
  value: string;
  label: string;
  note?: string;
}

/** A card of figures under a heading, with what else belongs to them (a chart, a table) below. */
function FigureGroup(props: {
  id: string;
  title: string;
  figures: FigureLink[];
  children?: ComponentChildren;
}) {
  return (
    <section class="card" aria-labelledby={`${props.id}-heading`}>
      <h2 id={`${props.id}-heading`}>{props.title}</h2>
      <ul class="figures">
        {props.figures.map((figure) => (
          <li key={figure.label}>
            <a class="figure" href={pageOf(figure.link)}>
              <span class="figure-value">{figure.value}</span>
              <span class="figure-label">{figure.label}</span>
            </a>
            {figure.note ? <p class="hint figure-note">{figure.note}</p> : null}
          </li>
        ))}
      </ul>
      {props.children}
    </section>
  );
}

const count = (n: number) => n.toLocaleString('en-GB');
const counted = (figure: CountFigure, label: string): FigureLink => ({
  link: figure.link,
  value: count(figure.count),
  label,
});
const summed = (figure: AmountFigure, label: string): FigureLink => ({
  link: figure.link,
  value: moneyOf(figure.amount),
  label,
});

/** Home: collection against rent due, arrears by age, what waits (payments, payouts, webhooks). */
export function Home(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<HomeFigures>('/home/');
  const home = loaded.data;

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Home
      </h1>
      {!home ? <Waiting loaded={loaded} what="the figures" /> : <Figures home={home} />}
    </>
  );
}

function Figures({ home }: { home: HomeFigures }) {
  const points = collectionSeries(home.series);
  const pending = home.webhooks.pending;
  const { total } = home.arrears;
  return (
    <>
      <p class="hint">
        As of <When at={home.as_of} />. Each figure opens the list behind it.
      </p>
      <FigureGroup
        id="rent"
        title="Rent"
        figures={[
          summed(home.collected_today, 'collected today'),
          summed(home.collected_this_month, 'collected this month'),
          summed(home.due_this_month, 'due this month'),
        ]}
      >
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
      </FigureGroup>
      <FigureGroup
        id="arrears"
        title="Arrears"
        figures={[
          {
            link: home.arrears.link,
            value: moneyOf(total.amount),
            label: `owed by ${count(total.tenancies)} ${total.tenancies === 1 ? 'tenancy' : 'tenancies'} in arrears`,
          },
        ]}
      >
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
      </FigureGroup>
      <div class="home-columns">
        <FigureGroup
          id="payments"
          title="Payments"
          figures={[
            counted(home.failed_payments, 'failed in the last 30 days'),
            counted(home.requires_action, 'waiting for their tenant to authenticate'),
          ]}
        />
        <FigureGroup
          id="payouts"
          title="Payouts waiting"
          figures={[
            counted(home.payouts.awaiting_confirmation, 'in runs not yet confirmed'),
            counted(home.payouts.awaiting_approval, 'held until the landlord’s account is approved'),
            counted(home.payouts.held, 'held for bank details that cannot be paid'),
          ]}
        />
        <FigureGroup
          id="webhooks"
          title="Webhooks"
          figures={[
            counted(home.webhooks.failed, 'deliveries failed every attempt'),
            {
              link: pending.link,
              value: count(pending.count),
              label: 'deliveries pending',
              note:
                pending.count === 0
                  ? 'None waiting.'
                  : `${count(pending.retrying)} retrying; the oldest has waited ${ageOf(pending.oldest_age_seconds ?? 0)}.`,
            },
          ]}
        />
      </div>
    </>
  );
}
