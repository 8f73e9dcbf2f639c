import { longDate, moneyOf } from '../../../src/shared/display.ts';
import { Chart } from '../charts.tsx';
import { useLoaded, Waiting } from '../load.tsx';
import { href } from '../route.ts';
import { TableWrap, useFocusOnMount } from '../ui.tsx';
import {
  balanceChart,
  balanceSummary,
  ENTRY_NAMES,
  nextDueText,
  owedText,
  poundsText,
} from './tenant-words.ts';
import type { LedgerEntry, TenancyLedger } from './types.ts';

/** A tenancy's ledger (`#tenants/<user_id>/<payment_reference>`): its balance over time, and every entry. */
export function Ledger(props: { userId: string; reference: string; focusHeading: boolean }) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<TenancyLedger>(`/tenancies/${encodeURIComponent(props.reference)}/ledger/`);
  const ledger = loaded.data;

  return (
    <>
      <p class="back">
        <a href={href('tenants', [props.userId])}>Back to the tenant</a>
      </p>
      <h1 ref={heading} tabIndex={-1} class="break">
        Ledger of {props.reference}
      </h1>
      {!ledger ? (
        <Waiting loaded={loaded} what="the ledger" />
      ) : (
        <>
          <dl class="facts">
            <dt>As of</dt>
            <dd>{longDate(ledger.as_of)}</dd>
            <dt>Arrears</dt>
            <dd>{owedText(ledger)}</dd>
            <dt>Next due</dt>
            <dd>{nextDueText(ledger.next_due)}</dd>
          </dl>
          <BalanceChart ledger={ledger} />
          <Entries ledger={ledger} />
        </>
      )}
    </>
  );
}

function BalanceChart(props: { ledger: TenancyLedger }) {
  const { ledger } = props;
  if (ledger.balance_series.length === 0) {
    return <p>Nothing has fallen due or been paid yet: there is no balance to chart.</p>;
  }
  const { labels, axisLabels, values } = balanceChart(ledger.balance_series);
  return (
    <Chart
      title="Balance over time"
      summary={balanceSummary(ledger)}
      labels={labels}
      axisLabels={axisLabels}
      series={[{ name: 'Balance', values, kind: 'line', color: 'var(--color-primary)' }]}
      format={poundsText}
    />
  );
}

function Entries(props: { ledger: TenancyLedger }) {
  const { entries } = props.ledger;
  if (entries.length === 0) return <p>No entries yet.</p>;
  return (
    <TableWrap label="Ledger entries">
      <table>
        <caption>Every entry, oldest first: what fell due, what was paid, refunded and paid out</caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Entry</th>
            <th scope="col" class="number">
              Amount
            </th>
            <th scope="col" class="number">
              Balance after
            </th>
            <th scope="col">Payment or payout</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry, index) => (
            // Entries have no id of their own; the list is never reordered.
            <tr key={index}>
              <th scope="row">{longDate(entry.date)}</th>
              <td>{ENTRY_NAMES[entry.type]}</td>
              <td class="number">{moneyOf(entry.amount)}</td>
              <td class="number">{moneyOf(entry.balance)}</td>
              <td class="mono break">
                <EntryLink entry={entry} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </TableWrap>
  );
}

function EntryLink(props: { entry: LedgerEntry }) {
  const { payment_id, payout_id } = props.entry;
  if (payment_id) return <a href={href('payments', [payment_id])}>{payment_id}</a>;
  return <>{payout_id ?? '—'}</>;
}
