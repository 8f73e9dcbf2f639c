import './rent.css';
import type { Session } from './api.ts';
import { longDate } from './money.ts';
import { headline } from './rent-position.ts';

/** The top of the Pay form: where the tenant stands (owing, paid ahead, or the rent due), to whom, for what home. */
export function RentHeader({ session, inSdk }: { session: Session; inSdk: boolean }) {
  const { tenancy, tenant } = session;
  const standing = headline(tenancy);
  return (
    <div class="rent-context" data-testid="rent-headline">
      {standing ? (
        <p>
          <strong class="headline-title">{standing.title}</strong>{' '}
          <span class="headline-detail">{standing.detail}</span>
        </p>
      ) : tenancy.next_due_date ? (
        <p>Rent due {longDate(tenancy.next_due_date)}</p>
      ) : null}
      <p class="payee">Paid to {tenancy.payee}</p>
      {inSdk ? null : (
        <p class="who">
          {tenant.first_name} {tenant.last_name} · {tenancy.address_1}, {tenancy.city} {tenancy.post_code} ·
          Reference <span class="mono">{tenancy.payment_reference}</span>
          {session.environment === 'sandbox' ? <span class="badge">Sandbox</span> : null}
        </p>
      )}
    </div>
  );
}
