import { useState } from 'preact/hooks';
import { moneyOf } from '../../../src/shared/display.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { PagedTable } from '../PagedTable.tsx';
import { useCursorPages } from '../paging.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Field, Select, TableWrap, useFocusOnMount, When } from '../ui.tsx';
import { holdWords, PAYOUT_STATUS_NAMES, STATUS_OPTIONS } from './payout-words.ts';
import type { HeldPayout, PayoutStatus, PlatformPayout } from './types.ts';
import './payouts.css';

/** Payouts: the platform's payouts to landlords (`#payouts?status=…`) and the rent held back (`#payouts/held`). */
export function Payouts(props: SectionProps) {
  const held = props.route.path[0] === 'held';
  return (
    <>
      <nav class="subnav" aria-label="Payouts">
        <a href={href('payouts')} aria-current={held ? undefined : 'page'}>
          All payouts
        </a>
        <a href={href('payouts', ['held'])} aria-current={held ? 'page' : undefined}>
          Held back
        </a>
      </nav>
      {held ? (
        <HeldPayouts key="held" focusHeading={props.focusHeading} />
      ) : (
        <PayoutList key="list" {...props} />
      )}
    </>
  );
}

function PayoutList(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const status = props.route.query.get('status') ?? '';
  const reference = props.route.query.get('payment_reference') ?? '';
  const [chosen, setChosen] = useState(status);
  const [typed, setTyped] = useState(reference);
  const pages = useCursorPages<PlatformPayout>(
    '/payouts/',
    { status, payment_reference: reference },
    (payout) => payout.payout_id,
  );

  const filter = (event: Event) => {
    event.preventDefault();
    location.hash = href('payouts', [], { status: chosen, payment_reference: typed.trim() });
  };

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Payouts
      </h1>
      <p>
        The rent paid out to landlords, newest first. The operator makes the payout runs and confirms them; a
        payout is paid once its run is confirmed.
      </p>
      <form class="actions" aria-label="Filter payouts" onSubmit={filter}>
        <Select
          id="payout-status"
          label="Status"
          value={chosen}
          options={STATUS_OPTIONS}
          onValue={setChosen}
        />
        <Field
          id="payout-reference"
          label="Payment reference"
          value={typed}
          onValue={setTyped}
          spellcheck={false}
          maxLength={50}
        />
        <button type="submit" class="primary">
          Show payouts
        </button>
      </form>
      <PagedTable
        pages={pages}
        label="Payouts"
        caption={`${status ? (PAYOUT_STATUS_NAMES[status as PayoutStatus] ?? status) : 'All payouts'}${reference ? ` of ${reference}` : ''}`}
        empty={`No payouts${status || reference ? ' match these filters' : ' yet'}.`}
        head={
          <>
            <th scope="col">Made</th>
            <th scope="col">Tenancy</th>
            <th scope="col">Paid to</th>
            <th scope="col" class="number">
              Amount
            </th>
            <th scope="col">Status</th>
            <th scope="col">Run</th>
          </>
        }
        row={(payout) => (
          <tr key={payout.payout_id}>
            <th scope="row">
              <When at={payout.created_at} />
              <span class="mono hint block">{payout.payout_id}</span>
            </th>
            <td class="mono break">{payout.payment_reference}</td>
            <td class="break">{payout.payee_name}</td>
            <td class="number">{moneyOf(payout.amount)}</td>
            <td>
              {PAYOUT_STATUS_NAMES[payout.status]}
              {payout.paid_at ? (
                <span class="hint block">
                  <When at={payout.paid_at} />
                </span>
              ) : null}
            </td>
            <td class="mono break">{payout.payout_run_id}</td>
          </tr>
        )}
      />
    </>
  );
}

function HeldPayouts(props: { focusHeading: boolean }) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<{ data: HeldPayout[] }>('/payouts/held/');
  const held = loaded.data?.data;

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Rent held back
      </h1>
      <p>
        Tenancies whose rent a payout run would pay but holds back today, and why. A tenancy can be held for
        more than one reason.
      </p>
      {!held ? (
        <Waiting loaded={loaded} what="the rent held back" />
      ) : held.length === 0 ? (
        <p role="status">No rent is held back: every payable rent goes into the next run.</p>
      ) : (
        <TableWrap label="Rent held back">
          <table>
            <caption>Held back, by tenancy</caption>
            <thead>
              <tr>
                <th scope="col">Tenancy</th>
                <th scope="col">Why</th>
                <th scope="col" class="number">
                  Amount
                </th>
                <th scope="col">What unblocks it</th>
              </tr>
            </thead>
            <tbody>
              {held.map((hold) => {
                const words = holdWords(hold.kind);
                return (
                  <tr key={`${hold.payment_reference}-${hold.kind}`}>
                    <th scope="row" class="mono break">
                      <a href={href('tenants', [], { q: hold.payment_reference })}>
                        {hold.payment_reference}
                      </a>
                    </th>
                    <td class="break">
                      <strong class="block">{words.name}</strong>
                      {words.means ? <span class="block">{words.means}</span> : null}
                      <span class="hint block">{hold.reason}</span>
                    </td>
                    <td class="number">{moneyOf(hold.amount)}</td>
                    <td>{words.unblocks}</td>
                  </tr>
                );
              })}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
