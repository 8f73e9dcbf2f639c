import { type Static, Type } from 'typebox';
import type { Clock } from '../platform/clock/clock.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db } from '../platform/db/db.ts';
import { qb, rows } from '../platform/db/query-builder.ts';
import { addDays } from '../shared/dates.ts';
import { formatPence } from '../shared/money.ts';
import { recordEvents } from '../webhooks/record-event.ts';
import type { RentReminderEventData } from './events.ts';
import {
  REMINDER_LOOKBACK_DAYS,
  RENT_REMINDER_KINDS,
  type RentReminder,
  remindersDue,
} from './reminder-rules.ts';
import { INPUT_ROW, LEDGER_INPUT_COLUMNS, type TenancyLedgerInput, toInput } from './service.ts';

const TENANCY_BATCH = 500;

const TENANT_ROW = Col.row({ ...INPUT_ROW.properties, external_id: Col.int, email: Col.text });
type TenantRow = Static<typeof TENANT_ROW>;

/** Active tenancies that can have a due date inside the window the rules look at. */
const TENANTS = sqlStatement(
  TENANT_ROW,
  `SELECT ${LEDGER_INPUT_COLUMNS}, u.external_id, u.email
     FROM tenancies t JOIN users u ON u.id = t.user_id
    WHERE t.integrator_id = $1 AND t.is_active AND t.id > $2
      AND t.end_rent_date >= $3::date AND t.start_rent_date <= $4::date
    ORDER BY t.id LIMIT $5`,
);

const CLAIM_REMINDERS = sqlStatement(
  Col.row({
    tenancy_id: Col.text,
    due_date: Col.text,
    kind: Type.Enum(RENT_REMINDER_KINDS),
    days_after_due: Col.int,
  }),
  `INSERT INTO rent_reminders (tenancy_id, due_date, kind, days_after_due, created_at)
   SELECT tenancy_id, due_date, kind, days_after_due, $2
     FROM jsonb_to_recordset($1::jsonb) AS x(tenancy_id text, due_date date, kind text, days_after_due integer)
   ON CONFLICT DO NOTHING
   RETURNING tenancy_id, due_date::text AS due_date, kind, days_after_due`,
);

/**
 * Sends rent_due_soon and rent_overdue. Each reminder is claimed by inserting its (tenancy, due date, kind,
 * days_after_due) row in the same transaction as its event, so it goes exactly once however many workers run.
 */
export class ReminderService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Reminders due on `asOf` for every integrator with reminders on, or for one; how many were sent. */
  async run(asOf: string, integratorId?: string): Promise<number> {
    let query = qb
      .selectFrom('integrators')
      .select(['id', 'reminder_days_before'])
      .where('reminder_days_before', 'is not', null)
      .where('status', '=', 'active')
      .orderBy('id')
      .$narrowType<{ reminder_days_before: number }>();
    if (integratorId !== undefined) query = query.where('id', '=', integratorId);
    const integrators = await rows(this.db, query);
    let sent = 0;
    for (const integrator of integrators) sent += await this.#runFor(integrator, asOf);
    return sent;
  }

  async #runFor(integrator: { id: string; reminder_days_before: number }, asOf: string): Promise<number> {
    let sent = 0;
    let after = '';
    for (;;) {
      const rows = await TENANTS.rows(this.db, [
        integrator.id,
        after,
        addDays(asOf, -REMINDER_LOOKBACK_DAYS),
        addDays(asOf, integrator.reminder_days_before),
        TENANCY_BATCH,
      ]);
      const due = rows.flatMap((row) => {
        const input = toInput(row);
        return remindersDue(input.due, input.payments, asOf, integrator.reminder_days_before).map(
          (reminder) => ({ row, input, reminder }),
        );
      });
      if (due.length > 0) sent += await this.#send(integrator.id, due);
      if (rows.length < TENANCY_BATCH) return sent;
      after = rows[rows.length - 1]!.id;
    }
  }

  async #send(
    integratorId: string,
    due: { row: TenantRow; input: TenancyLedgerInput; reminder: RentReminder }[],
  ): Promise<number> {
    const now = this.clock.now();
    return this.db.transaction(async (tx) => {
      const key = (tenancyId: string, r: Pick<RentReminder, 'due_date' | 'kind' | 'days_after_due'>) =>
        `${tenancyId}|${r.due_date}|${r.kind}|${r.days_after_due}`;
      const claimed = await CLAIM_REMINDERS.rows(tx, [
        due.map(({ input, reminder }) => ({
          tenancy_id: input.tenancy_id,
          due_date: reminder.due_date,
          kind: reminder.kind,
          days_after_due: reminder.days_after_due,
        })),
        now,
      ]);
      if (claimed.length === 0) return 0;
      const won = new Set(claimed.map((row) => key(row.tenancy_id, row)));
      const sending = due.filter(({ input, reminder }) => won.has(key(input.tenancy_id, reminder)));
      const eventIds = await recordEvents(
        tx,
        this.clock,
        sending.map(({ row, reminder }) => {
          const data: RentReminderEventData = {
            user_id: Number(row.external_id),
            email: row.email,
            payment_reference: row.payment_reference,
            due_date: reminder.due_date,
            amount_due: formatPence(reminder.amount_due_pence),
            arrears: formatPence(reminder.arrears_pence),
            days_after_due: reminder.days_after_due,
          };
          return { integratorId, type: reminder.kind, data };
        }),
      );
      await tx.query(
        `UPDATE rent_reminders r SET event_id = x.event_id
           FROM jsonb_to_recordset($1::jsonb)
             AS x(tenancy_id text, due_date date, kind text, days_after_due integer, event_id text)
          WHERE r.tenancy_id = x.tenancy_id AND r.due_date = x.due_date AND r.kind = x.kind
            AND r.days_after_due = x.days_after_due`,
        [
          sending.map(({ input, reminder }, i) => ({
            tenancy_id: input.tenancy_id,
            due_date: reminder.due_date,
            kind: reminder.kind,
            days_after_due: reminder.days_after_due,
            event_id: eventIds[i],
          })),
        ],
      );
      return sending.length;
    });
  }
}
