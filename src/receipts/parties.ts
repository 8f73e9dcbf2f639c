/** Who a receipt or a statement names: the platform, the tenant, the property and the landlord, read in one query. */
import type { Queryable } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';

export interface TenancyParties {
  tenancy_id: string;
  payment_reference: string;
  /** The integrator's name. */
  platform: string;
  /** The tenant's first and last name. */
  tenant: string;
  /** One line: street, city, post code. */
  property: string;
  /** The landlord's account name, whom the rent is paid to. */
  payee: string;
}

function parties() {
  return qb
    .selectFrom('tenancies as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .innerJoin('integrators as i', 'i.id', 't.integrator_id')
    .select([
      't.id',
      't.payment_reference',
      't.address_1',
      't.city',
      't.post_code',
      't.recipient_bank_account_name',
      'u.first_name',
      'u.last_name',
      'i.name',
    ]);
}

/** The parties of one of the integrator's tenancies, by its id or its payment reference; undefined: none such. */
export async function tenancyParties(
  db: Queryable,
  integratorId: string,
  tenancy: { id: string } | { payment_reference: string },
): Promise<TenancyParties | undefined> {
  const query = parties().where('t.integrator_id', '=', integratorId);
  const row = await firstRow(
    db,
    'id' in tenancy
      ? query.where('t.id', '=', tenancy.id)
      : query.where('t.payment_reference', '=', tenancy.payment_reference),
  );
  if (!row) return undefined;
  return {
    tenancy_id: row.id,
    payment_reference: row.payment_reference,
    platform: row.name,
    tenant: `${row.first_name} ${row.last_name}`,
    property: `${row.address_1}, ${row.city} ${row.post_code}`,
    payee: row.recipient_bank_account_name,
  };
}
