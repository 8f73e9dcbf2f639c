/**
 * The ledger's figures for all of an integrator's active tenancies at once, for the dashboard's home: each one's
 * arrears and days overdue by the ledger's own rule (arrearsAsOf on its due dates), and the rent falling due per day
 * over a window. One statement reads every tenancy's terms and what its tenant has paid towards rent; the due dates
 * are the ledger's (dueSeries), never a copy of them in SQL.
 */
import { Type } from 'typebox';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Queryable } from '../platform/db/db.ts';
import { INSTALLMENT_PLAN_COLUMN } from '../shared/installment-plan-schema.ts';
import { FREQUENCIES } from '../shared/vocabulary.ts';
import { arrearsAsOf } from './balance.ts';
import { dueSeries, type RentDue, type TenancyDueTerms } from './due-dates.ts';

/** The columns of a tenancy its due dates are made of (see dueTerms), as the ledger's statements read them. */
export const DUE_TERMS_COLUMNS = {
  start_rent_date: Col.text,
  end_rent_date: Col.text,
  rent_due_day: Col.int,
  installment_plan: INSTALLMENT_PLAN_COLUMN,
  terms: Type.Array(
    Type.Object({ effective_on: Col.text, amount_pence: Col.int, frequency: Type.Enum(FREQUENCIES) }),
  ),
};

const OVERVIEW_ROW = Col.row({
  id: Col.text,
  payment_reference: Col.text,
  ...DUE_TERMS_COLUMNS,
  paid_pence: Col.int,
});

/**
 * $1 the integrator, $2 the day: per active tenancy, its due terms and what was paid towards rent by then
 * (paidThrough's rule, summed per payment: its rent less what its succeeded refunds and a lost dispute took back by
 * then, up to its rent, since they give the rent back first), on UTC days as the ledger counts them.
 */
const OVERVIEW = sqlStatement(
  OVERVIEW_ROW,
  `WITH taken AS (
     SELECT x.payment_id, sum(x.amount_pence) AS pence
       FROM (SELECT r.payment_id, r.amount_pence, r.created_at AS at
               FROM refunds r JOIN payments p ON p.id = r.payment_id
              WHERE p.integrator_id = $1 AND r.status = 'succeeded'
             UNION ALL
             SELECT p.id, p.dispute_amount_pence, p.dispute_lost_at
               FROM payments p WHERE p.integrator_id = $1 AND p.dispute_status = 'lost') x
      WHERE (x.at AT TIME ZONE 'UTC')::date <= $2::date
      GROUP BY x.payment_id
   ), paid AS (
     SELECT p.tenancy_id,
            sum(p.pure_amount_pence - LEAST(p.pure_amount_pence, COALESCE(k.pence, 0))) AS pence
       FROM payments p LEFT JOIN taken k ON k.payment_id = p.id
      WHERE p.integrator_id = $1 AND p.status = 'succeeded' AND (p.created_at AT TIME ZONE 'UTC')::date <= $2::date
      GROUP BY p.tenancy_id
   )
   SELECT t.id, t.payment_reference, t.start_rent_date::text AS start_rent_date,
          t.end_rent_date::text AS end_rent_date, t.rent_due_day, t.installment_plan,
          COALESCE((SELECT json_agg(json_build_object('effective_on', c.effective_on, 'amount_pence', c.amount_pence,
                                                      'frequency', c.frequency) ORDER BY c.effective_on)
                      FROM tenancy_terms c WHERE c.tenancy_id = t.id), '[]') AS terms,
          COALESCE(paid.pence, 0)::bigint AS paid_pence
     FROM tenancies t LEFT JOIN paid ON paid.tenancy_id = t.id
    WHERE t.integrator_id = $1 AND t.is_active
    ORDER BY t.payment_reference`,
);

export interface TenancyArrears {
  tenancy_id: string;
  payment_reference: string;
  arrears_pence: number;
  days_overdue: number;
}

export interface RentOverview {
  as_of: string;
  /** Every active tenancy, by payment reference. */
  tenancies: TenancyArrears[];
  /** Rent falling due on each day of the window that has any (YYYY-MM-DD to pence). */
  due_by_day: Map<string, number>;
}

/** The due terms of a row as the ledger reads them (an installment plan's installments in due-date order). */
export function dueTerms(row: {
  start_rent_date: string;
  end_rent_date: string;
  rent_due_day: number;
  installment_plan: { installments: TenancyDueTerms['installments'] & object } | null;
  terms: TenancyDueTerms['terms'];
}): TenancyDueTerms {
  const plan = row.installment_plan;
  return {
    start_rent_date: row.start_rent_date,
    end_rent_date: row.end_rent_date,
    rent_due_day: row.rent_due_day,
    terms: row.terms.map((t) => ({ ...t, amount_pence: Number(t.amount_pence) })),
    installments: plan?.installments.length
      ? [...plan.installments].sort((a, b) => a.due_date.localeCompare(b.due_date))
      : null,
  };
}

/** Every active tenancy's arrears as of `asOf`, and rent due per day from `from` to `to` (inclusive). */
export async function rentOverview(
  db: Queryable,
  integratorId: string,
  asOf: string,
  window: { from: string; to: string },
): Promise<RentOverview> {
  const rows = await OVERVIEW.rows(db, [integratorId, asOf]);
  const dueByDay = new Map<string, number>();
  const tenancies = rows.map((row) => {
    const dues: RentDue[] = [];
    for (const due of dueSeries(dueTerms(row))) {
      if (due.date > asOf && due.date > window.to) break;
      if (due.date <= asOf) dues.push(due);
      if (due.date >= window.from && due.date <= window.to) {
        dueByDay.set(due.date, (dueByDay.get(due.date) ?? 0) + due.amount_pence);
      }
    }
    return {
      tenancy_id: row.id,
      payment_reference: row.payment_reference,
      ...arrearsAsOf(dues, Number(row.paid_pence), asOf),
    };
  });
  return { as_of: asOf, tenancies, due_by_day: dueByDay };
}
