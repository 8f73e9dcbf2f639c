import { sql } from 'kysely';
import { cardsOnFile } from '../cards/service.ts';
import type { CardOnFileView } from '../cards/view.ts';
import type { DocumentListing, DocumentService } from '../documents/service.ts';
import type { LedgerService, TenancyLedger } from '../ledger/service.ts';
import type { Db } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import type { ScheduleService } from '../schedules/service.ts';
import type { ScheduleDetail } from '../schedules/view.ts';
import type { Frequency } from '../shared/vocabulary.ts';

export interface TenantSearch {
  /** The start of an email, a name (first or last) or a payment reference, in any case; or a user_id. */
  q?: string | undefined;
  limit: number;
  /** A user_id (the platform's): the page starts right after that tenant. */
  startingAfter?: number | undefined;
}

/** A tenant as a search lists them: who, how many tenancies, and what they owe now over all of them. */
export interface TenantSummary {
  external_id: number;
  email: string;
  first_name: string;
  last_name: string;
  tenancies: number;
  arrears_pence: number;
}

export interface TenantTenancy {
  payment_reference: string;
  address_1: string;
  city: string;
  post_code: string;
  country: string;
  payee_name: string;
  amount_pence: number;
  frequency: Frequency;
  rent_due_day: number;
  start_rent_date: string;
  end_rent_date: string;
  is_active: boolean;
  ledger: TenancyLedger;
}

/** What a tenant's page shows: their profile, tenancies with their ledgers, schedules, cards and documents. */
export interface TenantRecord {
  profile: {
    external_id: number;
    email: string;
    first_name: string;
    last_name: string;
    phone_number: string;
    date_of_birth: string;
    kyc_status: string | null;
    created_at: Date;
  };
  tenancies: TenantTenancy[];
  schedules: ScheduleDetail[];
  cards: CardOnFileView[];
  documents: DocumentListing[];
}

/** `value` as a LIKE pattern matching what starts with it: its %, _ and \ stand for themselves. */
function startsWith(value: string): string {
  return `${value.replace(/[\\%_]/g, '\\$&')}%`;
}

/**
 * A platform's tenants as its staff look them up: search (newest first, keyset paging) and a tenant's whole record.
 * Each search matches through its own index (migration 030), so a page costs the same with ten thousand tenancies.
 */
export class TenantDirectory {
  constructor(
    private readonly db: Db,
    private readonly ledger: LedgerService,
    private readonly schedules: ScheduleService,
    private readonly documents: DocumentService,
  ) {}

  async search(
    integratorId: string,
    search: TenantSearch,
  ): Promise<{ rows: TenantSummary[]; has_more: boolean }> {
    let query = qb
      .selectFrom('users as u')
      .select(['u.id', 'u.external_id', 'u.email', 'u.first_name', 'u.last_name'])
      .select((eb) =>
        eb
          .selectFrom('tenancies as t')
          .select(eb.fn.countAll<number>().as('n'))
          .whereRef('t.user_id', '=', 'u.id')
          .as('tenancies'),
      )
      .where('u.integrator_id', '=', integratorId);
    const q = search.q?.trim().toLowerCase();
    if (q) {
      const pattern = startsWith(q);
      const users = () => qb.selectFrom('users').select('id').where('integrator_id', '=', integratorId);
      let matched = users()
        .where('email_key', 'like', pattern)
        .union(users().where(sql<string>`lower(first_name || ' ' || last_name)`, 'like', pattern))
        .union(users().where(sql<string>`lower(last_name)`, 'like', pattern))
        .union(
          qb
            .selectFrom('tenancies')
            .select('user_id as id')
            .where('integrator_id', '=', integratorId)
            .where(sql<string>`lower(payment_reference)`, 'like', pattern),
        );
      if (/^\d{1,15}$/.test(q)) matched = matched.union(users().where('external_id', '=', Number(q)));
      query = query.where('u.id', 'in', matched);
    }
    if (search.startingAfter !== undefined) {
      const cursor = await firstRow(
        this.db,
        qb
          .selectFrom('users')
          .select('id')
          .where('integrator_id', '=', integratorId)
          .where('external_id', '=', search.startingAfter),
      );
      if (!cursor) {
        throw new ServiceError(
          'invalid_request',
          `Invalid querystring: starting_after: No tenant ${search.startingAfter}. Pass the user_id of the last tenant of the page you have.`,
        );
      }
      query = query.where(
        sql<boolean>`(u.created_at, u.id) < (SELECT created_at, id FROM users WHERE id = ${cursor.id})`,
      );
    }
    const found = await rows(
      this.db,
      query
        .orderBy('u.created_at', 'desc')
        .orderBy('u.id', 'desc')
        .limit(search.limit + 1),
    );
    const page = found.slice(0, search.limit);
    const ledgers = await this.ledger.ofUsers(page.map((row) => row.id));
    const arrears = new Map<string, number>();
    for (const [, ledger] of ledgers) {
      arrears.set(ledger.user_id, (arrears.get(ledger.user_id) ?? 0) + ledger.arrears_pence);
    }
    return {
      rows: page.map((row) => ({
        external_id: Number(row.external_id),
        email: row.email,
        first_name: row.first_name,
        last_name: row.last_name,
        tenancies: Number(row.tenancies ?? 0),
        arrears_pence: arrears.get(row.id) ?? 0,
      })),
      has_more: found.length > search.limit,
    };
  }

  /** One of the platform's tenants by its user_id; undefined for an unknown one or another platform's. */
  async get(integratorId: string, externalId: number): Promise<TenantRecord | undefined> {
    const user = await firstRow(
      this.db,
      qb
        .selectFrom('users')
        .select((eb) => [
          'id',
          'external_id',
          'email',
          'first_name',
          'last_name',
          'phone_number',
          eb.cast<string>('date_of_birth', 'text').as('date_of_birth'),
          'kyc_status',
          'created_at',
        ])
        .where('integrator_id', '=', integratorId)
        .where('external_id', '=', externalId),
    );
    if (!user) return undefined;
    const [tenancies, ledgers, schedules, cards, documents] = await Promise.all([
      rows(
        this.db,
        qb
          .selectFrom('tenancies')
          .select((eb) => [
            'id',
            'payment_reference',
            'address_1',
            'city',
            'post_code',
            'country',
            'recipient_bank_account_name as payee_name',
            'amount_pence',
            'frequency',
            'rent_due_day',
            eb.cast<string>('start_rent_date', 'text').as('start_rent_date'),
            eb.cast<string>('end_rent_date', 'text').as('end_rent_date'),
            'is_active',
          ])
          .where('user_id', '=', user.id)
          .orderBy('is_active', 'desc')
          .orderBy('start_rent_date', 'desc')
          .orderBy('payment_reference')
          .$narrowType<{ frequency: Frequency }>(),
      ),
      this.ledger.ofUsers([user.id]),
      this.schedules.listForUser(integratorId, user.id),
      cardsOnFile(this.db, integratorId, user.id),
      this.documents.ofUser(integratorId, user.id),
    ]);
    const { id: _id, ...profile } = user;
    return {
      profile: { ...profile, external_id: Number(profile.external_id) },
      tenancies: tenancies.map(({ id, ...tenancy }) => ({
        ...tenancy,
        amount_pence: Number(tenancy.amount_pence),
        rent_due_day: Number(tenancy.rent_due_day),
        ledger: ledgers.get(id)!,
      })),
      schedules,
      cards,
      documents,
    };
  }
}
