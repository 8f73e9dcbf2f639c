import { longDate, moneyOf, ordinal } from '../../../src/shared/display.ts';
import type { SignedIn } from '../api.ts';
import { useLoaded, Waiting } from '../load.tsx';
import { href } from '../route.ts';
import { Alert, TableWrap, useFocusOnMount, When } from '../ui.tsx';
import { Schedules } from './Schedules.tsx';
import { documentName, frequencyName, isKyc, nextDueText, owedText } from './tenant-words.ts';
import type { Tenancy, Tenant, TenantDocument } from './types.ts';

/** A tenant's page: profile, tenancies, schedules, saved cards and documents. */
export function TenantPage(props: { userId: string; me: SignedIn; focusHeading: boolean }) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const known = /^[1-9]\d{0,15}$/.test(props.userId);
  const loaded = useLoaded<Tenant>(known ? `/tenants/${props.userId}/` : undefined);
  const tenant = loaded.data;

  return (
    <>
      <p class="back">
        <a href={href('tenants')}>All tenants</a>
      </p>
      <h1 ref={heading} tabIndex={-1}>
        {tenant ? `${tenant.first_name} ${tenant.last_name}` : `Tenant ${props.userId}`}
      </h1>
      {!known ? (
        <Alert>There is no tenant with user ID “{props.userId}”: a user ID is a number.</Alert>
      ) : !tenant ? (
        <Waiting loaded={loaded} what="the tenant" />
      ) : (
        <>
          <Profile tenant={tenant} />
          <section aria-labelledby="tenancies-heading">
            <h2 id="tenancies-heading">Tenancies</h2>
            {tenant.tenancies.length === 0 ? <p>No tenancies.</p> : null}
            {tenant.tenancies.map((tenancy) => (
              <TenancyCard key={tenancy.payment_reference} tenancy={tenancy} userId={tenant.user_id} />
            ))}
          </section>
          <Schedules
            schedules={tenant.schedules}
            manage={props.me.permissions.includes('schedules.manage')}
          />
          <Cards tenant={tenant} />
          <Documents documents={tenant.documents} kyc={props.me.permissions.includes('kyc.read')} />
        </>
      )}
    </>
  );
}

function Profile(props: { tenant: Tenant }) {
  const { tenant } = props;
  return (
    <dl class="facts">
      <dt>User ID</dt>
      <dd class="mono">{tenant.user_id}</dd>
      <dt>Email</dt>
      <dd>{tenant.email}</dd>
      <dt>Phone</dt>
      <dd>{tenant.phone_number}</dd>
      <dt>Date of birth</dt>
      <dd>{longDate(tenant.date_of_birth)}</dd>
      <dt>KYC status</dt>
      <dd>{tenant.kyc_status ?? 'Not given'}</dd>
      <dt>Onboarded</dt>
      <dd>
        <When at={tenant.created_at} />
      </dd>
    </dl>
  );
}

function TenancyCard(props: { tenancy: Tenancy; userId: number }) {
  const { tenancy } = props;
  const { address } = tenancy;
  const headingId = `tenancy-${tenancy.payment_reference.replace(/[^\w-]/g, '_')}`;
  return (
    <section class="card" aria-labelledby={headingId}>
      <h3 id={headingId} class="mono break">
        {tenancy.payment_reference}
      </h3>
      <dl class="facts">
        <dt>Address</dt>
        <dd>
          {address.address_1}, {address.city} {address.post_code}, {address.country}
        </dd>
        <dt>Paid out to</dt>
        <dd>{tenancy.payee_name}</dd>
        <dt>Rent</dt>
        <dd>
          {moneyOf(tenancy.rent)} {frequencyName(tenancy.frequency)}, due on the{' '}
          {ordinal(tenancy.rent_due_day)}
        </dd>
        <dt>Term</dt>
        <dd>
          {longDate(tenancy.start_rent_date)} to {longDate(tenancy.end_rent_date)}
        </dd>
        <dt>Status</dt>
        <dd>{tenancy.status === 'active' ? 'Active' : 'Inactive'}</dd>
        <dt>Arrears</dt>
        <dd>{owedText(tenancy)}</dd>
        <dt>Next due</dt>
        <dd>{nextDueText(tenancy.next_due)}</dd>
      </dl>
      <p>
        <a href={href('tenants', [String(props.userId), tenancy.payment_reference])}>
          Ledger and balance<span class="visually-hidden"> of {tenancy.payment_reference}</span>
        </a>
      </p>
    </section>
  );
}

function Cards(props: { tenant: Tenant }) {
  const { cards } = props.tenant;
  return (
    <section aria-labelledby="cards-heading" class="panel">
      <h2 id="cards-heading">Saved cards</h2>
      {cards.length === 0 ? (
        <p>No saved cards.</p>
      ) : (
        <ul class="plain">
          {cards.map((card) => (
            <li key={`${card.brand}-${card.last4}-${card.exp_year}-${card.exp_month}`}>
              {card.brand} ending {card.last4}, expires {String(card.exp_month).padStart(2, '0')}/
              {card.exp_year}
              {card.is_default ? ' (default)' : ''}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

const DOCUMENT_STATUS: Record<TenantDocument['status'], string> = {
  pending: 'Being fetched from the platform',
  stored: 'Stored',
  failed: 'Could not be fetched',
};

function Documents(props: { documents: TenantDocument[]; kyc: boolean }) {
  const shown = props.documents.filter((document) => props.kyc || !isKyc(document.kind));
  return (
    <section aria-labelledby="documents-heading" class="panel">
      <h2 id="documents-heading">Documents</h2>
      <p class="hint">
        Each opening is recorded in the audit log with your name.
        {props.kyc ? '' : ' Identity documents and photos (KYC) are shown to admins and support only.'}
      </p>
      {shown.length === 0 ? (
        <p>No documents.</p>
      ) : (
        <TableWrap label="Documents">
          <table>
            <caption class="visually-hidden">Documents</caption>
            <thead>
              <tr>
                <th scope="col">Document</th>
                <th scope="col">Tenancy</th>
                <th scope="col">Status</th>
                <th scope="col">Open</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((document) => (
                <tr key={document.document_id}>
                  <th scope="row">{documentName(document.kind)}</th>
                  <td class="mono break">{document.payment_reference ?? '—'}</td>
                  <td>{DOCUMENT_STATUS[document.status]}</td>
                  <td>
                    {document.status === 'stored' ? (
                      <a
                        href={`/api/dashboard/documents/${encodeURIComponent(document.document_id)}/`}
                        target="_blank"
                        rel="noopener"
                      >
                        Open
                        <span class="visually-hidden">
                          {' '}
                          {documentName(document.kind).toLowerCase()}
                          {document.payment_reference ? ` of ${document.payment_reference}` : ''}
                        </span>
                        <span class="hint"> (new tab)</span>
                      </a>
                    ) : (
                      '—'
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      )}
    </section>
  );
}
