import { useState } from 'preact/hooks';
import { moneyOf } from '../../../src/shared/display.ts';
import { call } from '../api.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Notice, TableWrap, useFocusOnMount } from '../ui.tsx';
import { Confirming } from './Confirming.tsx';
import { sortCodeOf } from './format.ts';
import { PageTop } from './PageTop.tsx';
import type { PendingPayee } from './types.ts';

/** Landlord accounts never paid before (production): each waits for an operator admin's approval. */
export function Payees(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const loaded = useLoaded<{ data: PendingPayee[] }>('/operator/payees/pending/');
  const [approved, setApproved] = useState<string>();
  const payees = loaded.data?.data;
  const manages = props.me.permissions.includes('payouts.manage');

  const approve = (payee: PendingPayee) => async () => {
    await call('POST', `/operator/payees/${encodeURIComponent(payee.payee_id)}/approve/`);
    setApproved(
      `${payee.account_name} (${sortCodeOf(payee.sort_code)} ${payee.account_number}) is approved: the next run pays it.`,
    );
    loaded.set({ data: (payees ?? []).filter((one) => one.payee_id !== payee.payee_id) });
    heading.current?.focus();
  };

  return (
    <>
      <PageTop back={href('payout-runs')} backText="All payout runs" heading={heading}>
        Landlord accounts awaiting approval
      </PageTop>
      <p>
        In production rentpay pays a landlord account only once an operator admin has checked and approved it;
        until then runs hold its tenancies’ rent back. The sandbox pays every UK account, so this list stays
        empty there.
      </p>
      {approved ? <Notice>{approved}</Notice> : null}
      {!payees ? (
        <Waiting loaded={loaded} what="landlord accounts" />
      ) : payees.length === 0 ? (
        <p>No landlord account is waiting for approval.</p>
      ) : (
        <TableWrap label="Landlord accounts awaiting approval">
          <table>
            <caption>
              {payees.length} account{payees.length === 1 ? '' : 's'} awaiting approval
            </caption>
            <thead>
              <tr>
                <th scope="col">Account</th>
                <th scope="col" class="number">
                  Tenancies
                </th>
                <th scope="col" class="number">
                  Rent held
                </th>
                <th scope="col">Integrators</th>
                {manages ? <th scope="col">Approve</th> : null}
              </tr>
            </thead>
            <tbody>
              {payees.map((payee) => (
                <tr key={payee.payee_id}>
                  <th scope="row" class="break">
                    {payee.account_name}
                    <span class="mono hint block">
                      {sortCodeOf(payee.sort_code)} {payee.account_number}
                    </span>
                  </th>
                  <td class="number">{payee.tenancies}</td>
                  <td class="number">{moneyOf(payee.amount)}</td>
                  <td class="mono break">
                    {payee.integrator_ids.map((id) => (
                      <a key={id} class="block" href={href('integrators', [id])}>
                        {id}
                      </a>
                    ))}
                  </td>
                  {manages ? (
                    <td>
                      <Confirming
                        start={
                          <>
                            Approve
                            <span class="visually-hidden">
                              {' '}
                              {payee.account_name} {sortCodeOf(payee.sort_code)} {payee.account_number}
                            </span>
                          </>
                        }
                        doing="Approving…"
                        keep="Not now"
                        onConfirm={approve(payee)}
                      >
                        <p>
                          Approve {payee.account_name}, {sortCodeOf(payee.sort_code)} {payee.account_number}?
                          Runs pay it from the next one on, starting with the {moneyOf(payee.amount)} held
                          back.
                        </p>
                      </Confirming>
                    </td>
                  ) : null}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </>
  );
}
