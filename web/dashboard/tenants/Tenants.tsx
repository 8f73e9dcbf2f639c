import { useState } from 'preact/hooks';
import { moneyOf } from '../../../src/shared/display.ts';
import { PagedTable } from '../PagedTable.tsx';
import { useCursorPages } from '../paging.tsx';
import { href } from '../route.ts';
import type { SectionProps } from '../Shell.tsx';
import { Field, useFocusOnMount } from '../ui.tsx';
import { Ledger } from './Ledger.tsx';
import { TenantPage } from './TenantPage.tsx';
import type { TenantSummary } from './types.ts';
import './tenants.css';

/** Tenants: the search (`#tenants?q=…`), a tenant's page (`#tenants/<user_id>`) and a tenancy's ledger (`…/<ref>`). */
export function Tenants(props: SectionProps) {
  const [userId, reference] = props.route.path;
  if (userId === undefined) return <TenantSearch {...props} />;
  if (reference !== undefined) {
    return (
      <Ledger
        key={`${userId}/${reference}`}
        userId={userId}
        reference={reference}
        focusHeading={props.focusHeading}
      />
    );
  }
  return <TenantPage key={userId} userId={userId} me={props.me} focusHeading={props.focusHeading} />;
}

function TenantSearch(props: SectionProps) {
  const heading = useFocusOnMount<HTMLHeadingElement>(props.focusHeading);
  const q = props.route.query.get('q') ?? '';
  const [typed, setTyped] = useState(q);
  const pages = useCursorPages<TenantSummary>('/tenants/', { q: q.trim() }, (tenant) =>
    String(tenant.user_id),
  );

  const search = (event: Event) => {
    event.preventDefault();
    location.hash = href('tenants', [], { q: typed.trim() });
  };

  return (
    <>
      <h1 ref={heading} tabIndex={-1}>
        Tenants
      </h1>
      <form class="actions" onSubmit={search}>
        <Field
          id="tenant-search"
          label="Find a tenant"
          hint="The start of an email, a name or a payment reference, or a user ID."
          value={typed}
          onValue={setTyped}
          spellcheck={false}
          maxLength={254}
        />
        <button type="submit" class="primary">
          Search
        </button>
      </form>
      <PagedTable
        pages={pages}
        label="Tenants"
        caption={q ? `Tenants matching “${q}”` : 'Every tenant, newest first'}
        empty={q ? `No tenant matches “${q}”.` : 'The platform has no tenants yet.'}
        head={
          <>
            <th scope="col">Tenant</th>
            <th scope="col">Email</th>
            <th scope="col">User ID</th>
            <th scope="col" class="number">
              Tenancies
            </th>
            <th scope="col" class="number">
              Arrears
            </th>
          </>
        }
        row={(tenant) => (
          <tr key={tenant.user_id}>
            <th scope="row">
              <a href={href('tenants', [String(tenant.user_id)])}>{tenant.name}</a>
            </th>
            <td class="break">{tenant.email}</td>
            <td class="mono">{tenant.user_id}</td>
            <td class="number">{tenant.tenancies}</td>
            <td class="number">{moneyOf(tenant.arrears)}</td>
          </tr>
        )}
      />
    </>
  );
}
