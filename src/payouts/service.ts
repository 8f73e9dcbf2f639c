import { sql } from 'kysely';
import { type Actor, actorRecord, requirePermission } from '../audit/actor.ts';
import { OPERATOR_SCOPE, recordAudit } from '../audit/log.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { ServiceEnv } from '../platform/config/config.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import type { Page } from '../platform/db/pages.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { utcDate } from '../shared/dates.ts';
import { formatPence } from '../shared/money.ts';
import { recordEvents } from '../webhooks/record-event.ts';
import { bankReference, type PayoutAccount, payoutReadiness } from './bank-account.ts';
import { PAYOUT_LOCK, type PaymentPayout, paymentPayout } from './paid-out.ts';
import { accountHold, approvedAccounts, type Held, type HeldPayout, payableAsOf } from './payable.ts';

import {
  accountHeldTenancies,
  disputedHolds,
  holdCandidates,
  negativeCarriedReason,
  type PlatformHold,
  type PlatformPayout,
  type PlatformPayoutFilter,
  platformPayouts,
} from './platform-payouts.ts';
import { type Reconciliation, reconcilePayouts } from './reconcile.ts';
import { type PayoutRow, type PayoutRunRow, payoutView } from './view.ts';

/** One integrator's payouts waiting: in runs not yet confirmed, and tenancies held out of runs (by why). */
export interface PayoutsWaiting {
  awaiting_confirmation: number;
  awaiting_approval: number;
  held: number;
}

/** A landlord account never paid before, in production: runs hold its rent until it is approved. */
export interface PendingPayee extends PayoutAccount {
  account_name: string;
  /** The tenancies whose rent waits for it, and how much in all. */
  tenancies: number;
  amount_pence: number;
  integrator_ids: string[];
}

function sortHeld<T extends HeldPayout>(held: T[]): T[] {
  return held.sort(
    (a, b) =>
      a.integrator_id.localeCompare(b.integrator_id) ||
      a.payment_reference.localeCompare(b.payment_reference),
  );
}

/** The columns of a PayoutRow but payment_ids: the payout's (alias po) and its tenancy's (alias t) reference. */
const PAYOUT_COLUMNS = [
  'po.id',
  'po.payout_run_id',
  'po.integrator_id',
  'po.tenancy_id',
  't.payment_reference',
  'po.status',
  'po.sort_code',
  'po.account_number',
  'po.account_name',
  'po.reference',
  'po.amount_pence',
  'po.paid_at',
] as const;

/** Payouts as PayoutRows: with their tenancy's payment reference and the payments each carries. */
function payouts() {
  return qb
    .selectFrom('payouts as po')
    .innerJoin('tenancies as t', 't.id', 'po.tenancy_id')
    .select(PAYOUT_COLUMNS)
    .select(
      sql<string[]>`COALESCE((SELECT array_agg(l.payment_id ORDER BY l.payment_id) FROM payout_lines l
                               WHERE l.payout_id = po.id AND l.kind = 'payment'), '{}')`.as('payment_ids'),
    );
}

/** Payout runs as PayoutRunRows. */
function payoutRuns() {
  return qb
    .selectFrom('payout_runs')
    .select((eb) => [
      'id',
      'status',
      eb.cast<string>('as_of', 'text').as('as_of'),
      'total_pence',
      'created_at',
      'confirmed_at',
      'canceled_at',
      'created_by',
    ])
    .$narrowType<{ created_by: PayoutRunRow['created_by'] }>();
}

export interface PayoutRun {
  run: PayoutRunRow;
  items: PayoutRow[];
}

/** Payout runs over settled rent, one payout per tenancy to the landlord's account; confirm, cancel, approve. */
export class PayoutService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly env: ServiceEnv,
  ) {}

  /** The payout invariants checked against the payments, refunds and runs (the operator's reconcile). */
  reconcile(today: string): Promise<Reconciliation> {
    return reconcilePayouts(this.db, today);
  }

  /** Production: the accounts approved for payouts ("sort_code:account_number"); undefined elsewhere. */
  #approvedAccounts(tx: Queryable): Promise<Set<string> | undefined> {
    return approvedAccounts(tx, this.env);
  }

  /** What is payable as of a day (see payableAsOf). */
  #payable(tx: Queryable, asOf: string, of: Parameters<typeof payableAsOf>[4] = {}) {
    return payableAsOf(tx, this.clock, this.env, asOf, of);
  }

  /** Tenancies with rent to pay out that a run would leave out, and why. */
  async held(asOf = utcDate(this.clock.now())): Promise<HeldPayout[]> {
    const { held } = await this.#payable(this.db, asOf);
    return sortHeld(held.map(({ awaiting: _account, ...payout }) => payout));
  }

  /**
   * Production: the landlord accounts with rent to pay out that have never been paid, each with the tenancies it
   * holds back, by sort code and account number. Empty in the sandbox, which pays every UK account.
   */
  async pendingPayees(): Promise<PendingPayee[]> {
    if (this.env !== 'production') return [];
    const { held } = await this.#payable(this.db, utcDate(this.clock.now()));
    const byAccount = new Map<string, PendingPayee>();
    for (const payout of held) {
      if (!payout.awaiting) continue;
      const { sort_code, account_number, account_name } = payout.awaiting;
      const key = `${sort_code}:${account_number}`;
      const payee = byAccount.get(key) ?? {
        sort_code,
        account_number,
        account_name,
        tenancies: 0,
        amount_pence: 0,
        integrator_ids: [],
      };
      payee.tenancies += 1;
      payee.amount_pence += payout.amount_pence;
      if (!payee.integrator_ids.includes(payout.integrator_id))
        payee.integrator_ids.push(payout.integrator_id);
      byAccount.set(key, payee);
    }
    return [...byAccount.values()]
      .map((payee) => ({ ...payee, integrator_ids: payee.integrator_ids.sort() }))
      .sort((a, b) => `${a.sort_code}${a.account_number}`.localeCompare(`${b.sort_code}${b.account_number}`));
  }

  /**
   * What is payable as of `asOf` for the integrator's tenancies that `candidates` finds a run could hold back, not
   * for every payment it ever took: the account check is the runs' own (accountHold).
   */
  async #holdable(
    integratorId: string,
    asOf: string,
    candidates: typeof accountHeldTenancies,
  ): Promise<{
    held: Held[];
    carried: { integrator_id: string; payment_reference: string; amount_pence: number }[];
  }> {
    const approved = await this.#approvedAccounts(this.db);
    const tenancyIds = await candidates(
      this.db,
      integratorId,
      (tenancy) => !accountHold(approved, tenancy).ready,
    );
    if (tenancyIds.length === 0) return { held: [], carried: [] };
    const { held, carried } = await this.#payable(this.db, asOf, { tenancyIds, approved });
    return {
      held: held.filter((entry) => entry.integrator_id === integratorId),
      carried: carried.filter((entry) => entry.integrator_id === integratorId),
    };
  }

  /** The payout carrying a payment's rent, if one does (see paymentPayout). */
  paymentPayout(paymentId: string): Promise<PaymentPayout> {
    return paymentPayout(this.db, paymentId);
  }

  /**
   * An integrator's payouts waiting, as counts: payouts in runs not yet confirmed, tenancies held until their landlord
   * account is approved, and tenancies held for another reason (the bank details cannot be paid).
   */
  async waiting(integratorId: string): Promise<PayoutsWaiting> {
    const created = await firstRow(
      this.db,
      qb
        .selectFrom('payouts')
        .select(sql<number>`count(*)::int`.as('count'))
        .where('integrator_id', '=', integratorId)
        .where('status', '=', 'created'),
    );
    // Only tenancies whose account a run would hold back can be held for it.
    const { held } = await this.#holdable(integratorId, utcDate(this.clock.now()), accountHeldTenancies);
    const approval = held.filter((entry) => entry.kind === 'payee_awaiting_approval').length;
    return {
      awaiting_confirmation: created?.count ?? 0,
      awaiting_approval: approval,
      held: held.length - approval,
    };
  }

  /**
   * The integrator's tenancies whose rent is held back, and why, by payment reference: an account a run cannot pay
   * or (in production) not yet approved, refunds and lost disputes that outweigh the rent waiting (carried to the
   * next payouts), and rent under an open dispute.
   */
  async heldFor(integratorId: string, asOf = utcDate(this.clock.now())): Promise<PlatformHold[]> {
    // Also those with refunds or lost disputes not yet deducted, which can outweigh the rent waiting.
    const { held, carried } = await this.#holdable(integratorId, asOf, holdCandidates);
    const holds: PlatformHold[] = [
      ...held,
      ...carried.map((c) => ({
        ...c,
        kind: 'negative_carried' as const,
        reason: negativeCarriedReason(c.amount_pence),
      })),
      ...(await disputedHolds(this.db, integratorId)),
    ];
    return holds
      .map(({ payment_reference, kind, amount_pence, reason }) => ({
        payment_reference,
        kind,
        amount_pence,
        reason,
      }))
      .sort((a, b) => a.payment_reference.localeCompare(b.payment_reference) || a.kind.localeCompare(b.kind));
  }

  /** The integrator's payouts of every tenancy (or one), newest first, one page. */
  listForIntegrator(integratorId: string, filter: PlatformPayoutFilter): Promise<Page<PlatformPayout>> {
    return platformPayouts(this.db, integratorId, filter);
  }

  /**
   * A new run: one payout per tenancy with a positive payable and a payable account, and the lines each is made
   * of, in one transaction under a lock every node shares, so concurrent runs never take a line twice. Audited as
   * the actor's, in the operator's chain; the run records who made it (four eyes) and the tenancies it held back.
   */
  async createRun(actor: Actor, asOf = utcDate(this.clock.now())): Promise<PayoutRun> {
    requirePermission(actor, 'payouts.manage');
    const now = this.clock.now();
    const runId = newId('prun');
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [PAYOUT_LOCK]);
      const { paying, held } = await this.#payable(tx, asOf);
      const payouts = paying.map((entry) => ({
        id: newId('po'),
        integrator_id: entry.first.integrator_id,
        tenancy_id: entry.first.tenancy_id,
        sort_code: entry.account.sort_code,
        account_number: entry.account.account_number,
        account_name: entry.first.recipient_bank_account_name.trim(),
        reference: bankReference(entry.first.payment_reference),
        amount_pence: entry.amount_pence,
        lines: entry.lines,
      }));
      const total = payouts.reduce((sum, p) => sum + p.amount_pence, 0);
      await tx.query(
        `INSERT INTO payout_runs (id, status, as_of, total_pence, created_at, updated_at, created_by)
         VALUES ($1, 'created', $2, $3, $4, $4, $5)`,
        [runId, asOf, total, now, JSON.stringify(actorRecord(actor))],
      );
      if (held.length > 0) {
        await tx.query(
          `INSERT INTO payout_run_holds
             (payout_run_id, integrator_id, payment_reference, amount_pence, kind, reason)
           SELECT $2, x.integrator_id, x.payment_reference, x.amount_pence, x.kind, x.reason
             FROM jsonb_to_recordset($1::jsonb)
               AS x(integrator_id text, payment_reference text, amount_pence bigint, kind text, reason text)`,
          [held.map(({ awaiting: _account, ...payout }) => payout), runId],
        );
      }
      await recordAudit(tx, this.clock, actor, {
        scope: OPERATOR_SCOPE,
        action: 'payout_run.create',
        target: { type: 'payout_run', id: runId },
        after: { as_of: asOf, payouts: payouts.length, total: formatPence(total) },
      });
      if (payouts.length === 0) return;
      await tx.query(
        `INSERT INTO payouts (id, payout_run_id, integrator_id, tenancy_id, status, sort_code, account_number,
                              account_name, reference, amount_pence, created_at)
         SELECT x.id, $2, x.integrator_id, x.tenancy_id, 'created', x.sort_code, x.account_number, x.account_name,
                x.reference, x.amount_pence, $3
           FROM jsonb_to_recordset($1::jsonb) AS x(id text, integrator_id text, tenancy_id text, sort_code text,
                account_number text, account_name text, reference text, amount_pence bigint)`,
        [payouts.map(({ lines: _lines, ...payout }) => payout), runId, now],
      );
      await tx.query(
        `INSERT INTO payout_lines (payout_id, kind, payment_id, refund_id, amount_pence)
         SELECT x.payout_id, x.kind, x.payment_id, x.refund_id, x.amount_pence
           FROM jsonb_to_recordset($1::jsonb)
             AS x(payout_id text, kind text, payment_id text, refund_id text, amount_pence bigint)`,
        [
          payouts.flatMap((payout) =>
            payout.lines.map((line) => ({
              payout_id: payout.id,
              kind: line.kind,
              payment_id: line.payment_id,
              refund_id: line.refund_id,
              amount_pence: line.amount_pence,
            })),
          ),
        ],
      );
    });
    return (await this.getRun(runId))!;
  }

  async getRun(id: string, db: Queryable = this.db): Promise<PayoutRun | undefined> {
    const run = await firstRow(db, payoutRuns().where('id', '=', id));
    if (!run) return undefined;
    const items = await rows(
      db,
      payouts().where('po.payout_run_id', '=', id).orderBy('t.payment_reference').orderBy('po.id'),
    );
    return { run, items };
  }

  /** The tenancies the run held back when it was made, and why (none recorded for runs made before this was kept). */
  async heldBy(runId: string): Promise<HeldPayout[]> {
    return rows(
      this.db,
      qb
        .selectFrom('payout_run_holds')
        .select(['integrator_id', 'payment_reference', 'amount_pence', 'kind', 'reason'])
        .where('payout_run_id', '=', runId)
        .orderBy('integrator_id')
        .orderBy('payment_reference'),
    );
  }

  /** The newest runs first, without their items. */
  async listRuns(limit = 100): Promise<PayoutRunRow[]> {
    return rows(this.db, payoutRuns().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(limit));
  }

  /**
   * The run is paid (the bank file was sent): its payouts are paid, with a payout_paid event each. In production the
   * person who made the run cannot confirm it (403): another must (four eyes).
   */
  async confirm(id: string, actor: Actor): Promise<PayoutRun> {
    requirePermission(actor, 'payouts.manage');
    return this.#transition(id, 'confirmed', actor, async (tx, now) => {
      const made = await firstRow(tx, payoutRuns().where('id', '=', id));
      const refusal = this.#fourEyes(made!.created_by, actor);
      if (refusal) throw new ServiceError('forbidden', refusal);
      await tx.query(
        "UPDATE payout_runs SET status = 'confirmed', confirmed_at = $2, updated_at = $2 WHERE id = $1",
        [id, now],
      );
      await tx.query("UPDATE payouts SET status = 'paid', paid_at = $2 WHERE payout_run_id = $1", [id, now]);
      const run = (await this.getRun(id, tx))!;
      await recordEvents(
        tx,
        this.clock,
        run.items.map((item) => ({
          integratorId: item.integrator_id,
          type: 'payout_paid' as const,
          data: { payout: payoutView(item), payment_reference: item.payment_reference },
        })),
      );
    });
  }

  /**
   * Why `actor` may not confirm the run now, or undefined when they may: their role, the run's status, or (in
   * production) having made it. For views that say so before anyone tries.
   */
  confirmRefusal(run: PayoutRunRow, actor: Actor): string | undefined {
    try {
      requirePermission(actor, 'payouts.manage');
    } catch (error) {
      if (error instanceof ServiceError) return error.detail;
      throw error;
    }
    if (run.status !== 'created') return `The run is ${run.status}; only a created run can be confirmed.`;
    return this.#fourEyes(run.created_by, actor);
  }

  /** In production, the person who made a run may not confirm it; any other person, or a token, may. */
  #fourEyes(createdBy: PayoutRunRow['created_by'], actor: Actor): string | undefined {
    if (this.env !== 'production' || actor.kind !== 'dashboard_user') return undefined;
    if (createdBy?.kind !== 'dashboard_user' || createdBy.user_id !== actor.userId) return undefined;
    return (
      'You made this payout run, so you cannot confirm it: in production a second person checks a run and ' +
      'confirms it (four eyes). Ask another operator_admin to confirm it.'
    );
  }

  /** An unconfirmed run is dropped: its lines are payable again. */
  async cancel(id: string, actor: Actor): Promise<PayoutRun> {
    requirePermission(actor, 'payouts.manage');
    return this.#transition(id, 'canceled', actor, async (tx, now) => {
      await tx.query(
        "UPDATE payout_runs SET status = 'canceled', canceled_at = $2, updated_at = $2 WHERE id = $1",
        [id, now],
      );
      await tx.query("UPDATE payouts SET status = 'canceled' WHERE payout_run_id = $1", [id]);
      await tx.query(
        'UPDATE payout_lines l SET active = false FROM payouts po WHERE po.id = l.payout_id AND po.payout_run_id = $1',
        [id],
      );
    });
  }

  async #transition(
    id: string,
    to: 'confirmed' | 'canceled',
    actor: Actor,
    apply: (tx: Queryable, now: Date) => Promise<void>,
  ): Promise<PayoutRun> {
    await this.db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [PAYOUT_LOCK]);
      const run = await firstRow(
        tx,
        qb.selectFrom('payout_runs').select('status').where('id', '=', id).forUpdate(),
      );
      if (!run) throw new ServiceError('not_found', `No payout run ${id}.`);
      // Asking again for what is done already is answered with the run as it is.
      if (run.status === to) return;
      if (run.status !== 'created') {
        throw new ServiceError(
          'conflict',
          `Payout run ${id} is ${run.status}; only a created run can be ${to === 'confirmed' ? 'confirmed' : 'canceled'}.`,
        );
      }
      await apply(tx, this.clock.now());
      await recordAudit(tx, this.clock, actor, {
        scope: OPERATOR_SCOPE,
        action: to === 'confirmed' ? 'payout_run.confirm' : 'payout_run.cancel',
        target: { type: 'payout_run', id },
        before: { status: run.status },
        after: { status: to },
      });
    });
    return (await this.getRun(id))!;
  }

  /** Production: lets payouts to this account go (the first payout to an account waits for this). */
  async approve(
    sortCode: string,
    accountNumber: string,
    actor: Actor,
  ): Promise<{ sort_code: string; account_number: string }> {
    requirePermission(actor, 'payouts.manage');
    const readiness = payoutReadiness(sortCode, accountNumber, 'approved');
    if (!readiness.ready) throw new ServiceError('invalid_request', readiness.reason);
    const { sort_code, account_number } = readiness.account;
    await this.db.transaction(async (tx) => {
      const [approved] = await tx.query(
        `INSERT INTO payee_approvals (sort_code, account_number, approved_at) VALUES ($1, $2, $3)
         ON CONFLICT DO NOTHING RETURNING sort_code`,
        [sort_code, account_number, this.clock.now()],
      );
      if (!approved) return;
      await recordAudit(tx, this.clock, actor, {
        scope: OPERATOR_SCOPE,
        action: 'payee.approve',
        target: { type: 'bank_account', id: `${sort_code} ${account_number}` },
        after: { approved: true },
      });
    });
    return readiness.account;
  }

  /** One of the integrator's tenancies' payouts, newest first; undefined: no such tenancy. */
  async forTenancy(integratorId: string, paymentReference: string): Promise<PayoutRow[] | undefined> {
    const tenancy = await firstRow(
      this.db,
      qb
        .selectFrom('tenancies')
        .select('id')
        .where('integrator_id', '=', integratorId)
        .where('payment_reference', '=', paymentReference),
    );
    if (!tenancy) return undefined;
    return rows(
      this.db,
      payouts()
        .where('po.tenancy_id', '=', tenancy.id)
        .orderBy('po.created_at', 'desc')
        .orderBy('po.id', 'desc'),
    );
  }
}
