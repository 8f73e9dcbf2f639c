import { type Static, Type } from 'typebox';
import type { Clock } from '../platform/clock/clock.ts';
import { StatementBatcher } from '../platform/db/batcher.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { isDatabaseUnavailable } from '../platform/db/unavailable.ts';
import { utcDate } from '../shared/dates.ts';
import { buildLedger, type Ledger, type LedgerPayment, type LedgerPayout } from './balance.ts';
import { dueSeries, dueThrough, type TenancyDueTerms } from './due-dates.ts';
import { DUE_TERMS_COLUMNS, dueTerms, type RentOverview, rentOverview } from './overview.ts';
import { firstUnpaid, type RentPosition, rentPosition } from './position.ts';

/** A tenancy with everything its ledger is made of, read in one statement. */
export interface TenancyLedgerInput {
  tenancy_id: string;
  user_id: string;
  payment_reference: string;
  is_active: boolean;
  due: TenancyDueTerms;
  payments: LedgerPayment[];
  payouts: LedgerPayout[];
}

const INPUT_COLUMNS = {
  id: Col.text,
  user_id: Col.text,
  payment_reference: Col.text,
  is_active: Col.bool,
  ...DUE_TERMS_COLUMNS,
  payments: Type.Array(
    Type.Object({
      payment_id: Col.text,
      date: Col.text,
      pure_amount_pence: Col.int,
      /** Its succeeded refunds, and what a dispute it lost took back, as one more, in the order they happened. */
      refunds: Type.Array(Type.Object({ date: Col.text, amount_pence: Col.int })),
    }),
  ),
  payouts: Type.Array(Type.Object({ payout_id: Col.text, date: Col.text, amount_pence: Col.int })),
};
export const INPUT_ROW = Col.row(INPUT_COLUMNS);
export type InputRow = Static<typeof INPUT_ROW>;

/**
 * The columns of a tenancy `t` that its ledger is made of (see InputRow). Days are UTC calendar days: each instant is
 * turned into its UTC date in SQL, whatever the session's time zone.
 */
export const LEDGER_INPUT_COLUMNS = `
  t.id, t.user_id, t.payment_reference, t.is_active, t.start_rent_date::text AS start_rent_date,
  t.end_rent_date::text AS end_rent_date, t.rent_due_day, t.installment_plan,
  COALESCE((SELECT json_agg(json_build_object('effective_on', c.effective_on, 'amount_pence', c.amount_pence,
                                              'frequency', c.frequency) ORDER BY c.effective_on)
              FROM tenancy_terms c WHERE c.tenancy_id = t.id), '[]') AS terms,
  COALESCE((SELECT json_agg(json_build_object(
              'payment_id', p.id, 'date', (p.created_at AT TIME ZONE 'UTC')::date,
              'pure_amount_pence', p.pure_amount_pence,
              'refunds', COALESCE((SELECT json_agg(json_build_object(
                           'date', (x.at AT TIME ZONE 'UTC')::date, 'amount_pence', x.amount_pence) ORDER BY x.at, x.lost, x.id)
                         FROM (SELECT r.created_at AS at, false AS lost, r.id, r.amount_pence
                                 FROM refunds r WHERE r.payment_id = p.id AND r.status = 'succeeded'
                               UNION ALL
                               SELECT p.dispute_lost_at, true, p.id, p.dispute_amount_pence
                                WHERE p.dispute_status = 'lost') x), '[]'))
              ORDER BY p.created_at, p.id)
              FROM payments p WHERE p.tenancy_id = t.id AND p.status = 'succeeded'), '[]') AS payments,
  COALESCE((SELECT json_agg(json_build_object('payout_id', po.id, 'date', (po.paid_at AT TIME ZONE 'UTC')::date,
                                              'amount_pence', po.amount_pence) ORDER BY po.paid_at, po.id)
              FROM payouts po WHERE po.tenancy_id = t.id AND po.status = 'paid'), '[]') AS payouts`;

/**
 * Tenancies by integrator and payment reference: $1 is a JSON array of [integrator id, payment reference] pairs.
 * Each pair is looked up on its own through the unique (integrator, reference) index (the LIMIT keeps the planner
 * from making it a join planned for the function's default 100 rows, which reads every tenancy).
 */
const LEDGER_INPUTS_BY_REFERENCE = sqlStatement(
  Col.row({ ...INPUT_COLUMNS, integrator_id: Col.text }),
  `SELECT t.integrator_id, ${LEDGER_INPUT_COLUMNS}
     FROM jsonb_array_elements($1::jsonb) k
     JOIN LATERAL (SELECT * FROM tenancies WHERE integrator_id = k->>0 AND payment_reference = k->>1 LIMIT 1) t
       ON true`,
  { prepare: 'ledger-inputs-by-reference' },
);
const LEDGER_INPUTS_OF_USERS = sqlStatement(
  INPUT_ROW,
  `SELECT ${LEDGER_INPUT_COLUMNS} FROM tenancies t WHERE t.user_id IN (SELECT jsonb_array_elements_text($1::jsonb))`,
);
const LEDGER_INPUT_BY_ID = sqlStatement(
  INPUT_ROW,
  `SELECT ${LEDGER_INPUT_COLUMNS} FROM tenancies t WHERE t.id = $1`,
  { prepare: 'ledger-input-by-id' },
);

export function toInput(row: InputRow): TenancyLedgerInput {
  return {
    tenancy_id: row.id,
    user_id: row.user_id,
    payment_reference: row.payment_reference,
    is_active: row.is_active,
    due: dueTerms(row),
    payments: row.payments.map((p) => ({
      ...p,
      pure_amount_pence: Number(p.pure_amount_pence),
      refunds: p.refunds.map((r) => ({ ...r, amount_pence: Number(r.amount_pence) })),
    })),
    payouts: row.payouts.map((p) => ({ ...p, amount_pence: Number(p.amount_pence) })),
  };
}

interface LedgerKey {
  integratorId: string;
  paymentReference: string;
  asOf: string;
}

const tenancyKey = (key: { integratorId: string; paymentReference: string }) =>
  `${key.integratorId}\u0000${key.paymentReference}`;

export interface TenancyLedger extends Ledger {
  payment_reference: string;
  as_of: string;
}

function ledgerOf(input: TenancyLedgerInput, asOf: string): TenancyLedger {
  const { due, next } = dueThrough(input.due, asOf);
  return {
    payment_reference: input.payment_reference,
    as_of: asOf,
    ...buildLedger(due, next, input.payments, input.payouts, asOf),
  };
}

/** Per tenancy: what fell due, what was paid, refunded and paid out, the balance and the arrears. */
export class LedgerService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /**
   * The ledger reads of one turn of the event loop share one statement, and reads of the same tenancy as of the same
   * day share its ledger: each was asked before that statement began, so each sees every write committed before it.
   */
  readonly #ledgers = new StatementBatcher<LedgerKey, TenancyLedger | undefined>(
    async (keys) => {
      const pairs = new Map<string, [string, string]>();
      for (const key of keys) pairs.set(tenancyKey(key), [key.integratorId, key.paymentReference]);
      const rows = await LEDGER_INPUTS_BY_REFERENCE.rows(this.db, [[...pairs.values()]]);
      const inputs = new Map(
        rows.map((row) => [
          tenancyKey({ integratorId: row.integrator_id, paymentReference: row.payment_reference }),
          toInput(row),
        ]),
      );
      const built = new Map<string, TenancyLedger>();
      return keys.map((key) => {
        const input = inputs.get(tenancyKey(key));
        if (!input) return undefined;
        const asOfKey = `${tenancyKey(key)}\u0000${key.asOf}`;
        let ledger = built.get(asOfKey);
        if (!ledger) {
          ledger = ledgerOf(input, key.asOf);
          built.set(asOfKey, ledger);
        }
        return ledger;
      });
    },
    { maxInFlight: 4, splits: (error) => !isDatabaseUnavailable(error) },
  );

  /** Today as the ledger counts days: the UTC calendar date. */
  today(): string {
    return utcDate(this.clock.now());
  }

  /**
   * The ledger of one of the integrator's tenancies as of a day (default today); undefined: no such tenancy. Callers
   * asking for the same tenancy and day together may get the same object: it is not to be changed.
   */
  ledger(
    integratorId: string,
    paymentReference: string,
    asOf = this.today(),
  ): Promise<TenancyLedger | undefined> {
    return this.#ledgers.run({ integratorId, paymentReference, asOf });
  }

  /** The ledgers of every tenancy of these users (our ids) as of a day, by tenancy id, read in one statement. */
  async ofUsers(
    userIds: string[],
    asOf = this.today(),
  ): Promise<Map<string, TenancyLedger & { user_id: string }>> {
    if (userIds.length === 0) return new Map();
    const found = await LEDGER_INPUTS_OF_USERS.rows(this.db, [userIds]);
    return new Map(found.map((row) => [row.id, { ...ledgerOf(toInput(row), asOf), user_id: row.user_id }]));
  }

  /**
   * The ledger and, due date by due date, what is paid (every due date of the tenancy, also the ones ahead), of a
   * tenancy by its id; undefined: no such tenancy. `db`: a transaction's, to read as it sees.
   */
  async position(
    tenancyId: string,
    asOf = this.today(),
    db: Queryable = this.db,
  ): Promise<{ ledger: TenancyLedger; position: RentPosition } | undefined> {
    const row = await LEDGER_INPUT_BY_ID.first(db, [tenancyId]);
    if (!row) return undefined;
    const input = toInput(row);
    return {
      ledger: ledgerOf(input, asOf),
      position: rentPosition([...dueSeries(input.due)], input.payments, asOf),
    };
  }

  /**
   * Set-wise, for the dashboard's home: every active tenancy's arrears as of `asOf` (default today) by the ledger's
   * rule, and the rent falling due per day of a window, in one statement however many tenancies there are.
   */
  overview(
    integratorId: string,
    window: { from: string; to: string },
    asOf = this.today(),
  ): Promise<RentOverview> {
    return rentOverview(this.db, integratorId, asOf, window);
  }

  /**
   * How far the tenancy's rent is paid as of today: the oldest due date not paid in full (null: every one is) and the
   * latest paid in full before it. `known` false: the tenancy has no due dates to count.
   */
  async rentPaidThrough(
    db: Queryable,
    tenancyId: string,
  ): Promise<{ firstUnpaid: string | null; lastPaid: string | null; known: boolean }> {
    const dues = (await this.position(tenancyId, this.today(), db))?.position.dues ?? [];
    const unpaid = firstUnpaid({ dues });
    const before = unpaid ? dues.slice(0, dues.indexOf(unpaid)) : dues;
    return {
      firstUnpaid: unpaid?.date ?? null,
      lastPaid: before.at(-1)?.date ?? null,
      known: dues.length > 0,
    };
  }
}
