import { type Actor, requirePermission } from '../audit/actor.ts';
import { recordAudit } from '../audit/log.ts';
import { hasFeature, type Integrator } from '../integrators/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { ClientContext } from '../sessions/service.ts';
import { checkPureAmount } from '../sessions/service.ts';
import {
  addDays,
  dueOnOrAfter,
  dueThrough,
  firstDueFrom,
  type ScheduleTerms,
  utcDate,
} from '../shared/dates.ts';
import { amountInRange, formatPence, PURE_AMOUNT_LIMITS } from '../shared/money.ts';
import type { SchedulePreview } from '../shared/schedule-preview.ts';
import { type EventType, recordEvent } from '../webhooks/record-event.ts';
import {
  LISTED_CHARGES,
  type PricedCharge,
  type ScheduleAgreement,
  scheduleAgreement,
} from './authorization.ts';
import { type ScheduleDetail, scheduleDetails, scheduleEventData, scheduleTerms } from './view.ts';
import { chargesWaitingForTenant } from './waiting-charges.ts';

/** Recurring rent can be turned off per integrator (feature `recurring`): then a set-up answers 409. */
export function assertRecurringEnabled(integrator: Pick<Integrator, 'features'>): void {
  if (!hasFeature(integrator, 'recurring')) {
    throw new ServiceError('feature_disabled', 'Recurring payments are not enabled for this integration.');
  }
}

export type ScheduleAction = 'pause' | 'resume' | 'cancel';

const EVENT_OF: Record<ScheduleAction, EventType> = {
  pause: 'schedule_paused',
  resume: 'schedule_resumed',
  cancel: 'schedule_canceled',
};

/**
 * A tenancy's due dates as its payments paid them (oldest first): the oldest not paid in full (null: every one is),
 * and the latest paid in full before it. `known` false: no ledger was wired (then nothing counts as paid).
 */
export type RentPaidThrough = (
  db: Queryable,
  tenancyId: string,
) => Promise<{ firstUnpaid: string | null; lastPaid: string | null; known: boolean }>;

/** Whose schedules a caller may see and change: an integrator's, or one user's of it (the Client API). */
export interface ScheduleOwner {
  integratorId: string;
  /** Our user id; absent for the integrator itself. */
  userId?: string;
}

export interface CreateScheduleInput {
  savedCardId: string;
  /** The tenant's amount; undefined: the tenancy's rent. */
  purePence: number | undefined;
  useInstallmentPlan: boolean | undefined;
}

export interface SetUpScheduleInput extends CreateScheduleInput {
  /** The sentence the tenant agreed to, as the preview gave it. */
  authorizationText: string;
}

function previewOf({
  agreement,
  usePlan,
  paidThrough,
}: {
  agreement: ScheduleAgreement;
  usePlan: boolean;
  paidThrough: string | null;
}): SchedulePreview {
  const [first] = agreement.charges;
  const priced = (c: PricedCharge) => ({
    due_date: c.due_date,
    pure_amount: formatPence(c.pure_amount_pence),
    fee: formatPence(c.fee_pence),
    amount: formatPence(c.amount_pence),
  });
  return {
    pure_amount: formatPence(first?.pure_amount_pence ?? 0),
    fee: formatPence(first?.fee_pence ?? 0),
    amount: formatPence(first?.amount_pence ?? 0),
    installment_plan: usePlan,
    payments: agreement.charges.length,
    upcoming: agreement.charges.slice(0, LISTED_CHARGES).map(priced),
    last_due_date: agreement.charges.at(-1)?.due_date ?? '',
    paid_through: paidThrough,
    authorization: { version: agreement.version, text: agreement.text },
  };
}

export async function scheduleDetail(
  db: Queryable,
  scheduleId: string,
  lock = false,
): Promise<ScheduleDetail | undefined> {
  const query = scheduleDetails().where('s.id', '=', scheduleId);
  return firstRow(db, lock ? query.forUpdate('s') : query);
}

/** Records a schedule_* event with the schedule as it is now in `tx`, in the change's own transaction. */
export async function recordScheduleEvent(
  tx: Queryable,
  clock: Clock,
  type: EventType,
  scheduleId: string,
): Promise<ScheduleDetail> {
  const detail = (await scheduleDetail(tx, scheduleId))!;
  await recordEvent(tx, clock, detail.integrator_id, type, scheduleEventData(detail));
  return detail;
}

/**
 * A schedule is set up only if every amount it would charge from `first` on, as the tenancy is now, is within the
 * payment limits: the rent (the tenant's own amount is checked before) or each installment left. 400 on the field
 * to change.
 */
function assertAmountsInRange(terms: ScheduleTerms, first: string): void {
  if (terms.kind === 'rent') {
    if (!amountInRange(terms.amountPence)) {
      throw new FieldValidationError({
        pure_amount: [
          `The tenancy’s rent (${formatPence(terms.amountPence)}) is outside the payment limits: enter an amount from ${PURE_AMOUNT_LIMITS}.`,
        ],
      });
    }
    return;
  }
  const outside = dueThrough(terms, first, addDays(terms.endRentDate, 1)).due.filter(
    (charge) => !amountInRange(charge.pure_amount_pence),
  );
  if (outside.length > 0) {
    const list = outside
      .map((c) => `installment ${c.installment_number} (${formatPence(c.pure_amount_pence)})`)
      .join(', ');
    throw new FieldValidationError({
      use_installment_plan: [
        `The installment plan has amounts outside the payment limits (${PURE_AMOUNT_LIMITS}): ${list}. ` +
          'Set use_installment_plan to false to pay the rent, or an amount of your own, instead.',
      ],
    });
  }
}

/**
 * Pending charges (waiting for an attempt or a retry) of a schedule that stops charging are withdrawn; not one whose
 * attempt has started (sent to the processor, answer not recorded yet): that attempt may have charged, so its job
 * records its outcome (and a failure of it is then not retried).
 */
async function withdrawPendingCharges(tx: Queryable, scheduleId: string, now: Date): Promise<void> {
  await tx.query(
    `UPDATE schedule_charges SET status = 'canceled', updated_at = $2
      WHERE schedule_id = $1 AND status = 'pending' AND started_attempt <= attempts`,
    [scheduleId, now],
  );
}

/**
 * Schedules of recurring rent: set up by the tenant (Client API) on one of its tenancies with an active saved card;
 * listed, paused, resumed and canceled by the tenant or the integrator. Each change records its schedule_* event in
 * the same transaction. The scheduler (scheduler.ts) charges them.
 */
export class ScheduleService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    /** Where the tenancy's rent stands (the ledger's answer): a schedule never charges a due date already paid. */
    private readonly rentPaid: RentPaidThrough = async () => ({
      firstUnpaid: null,
      lastPaid: null,
      known: false,
    }),
  ) {}

  /** The tenant's recurring charges waiting for their authentication, each with its confirm-by day. */
  chargesWaitingForTenant(tenant: { user_id: string; integrator_id: string }) {
    return chargesWaitingForTenant(this.db, tenant);
  }

  /**
   * What of the tenancy's rent is paid, as the ledger counts it: the plan's due dates with a plan, else the rent's. A
   * schedule that charges the rent instead of the tenancy's plan has no such count (nothing counts as paid).
   */
  async #rentPaidFor(tx: Queryable, tenancyId: string, usePlan: boolean, plan: ScheduleDetail['plan']) {
    const hasPlan = (plan?.installments.length ?? 0) > 0;
    return usePlan === hasPlan
      ? this.rentPaid(tx, tenancyId)
      : { firstUnpaid: null, lastPaid: null, known: false };
  }

  /** A user's schedules of every tenancy, newest first. */
  async listForUser(integratorId: string, userId: string): Promise<ScheduleDetail[]> {
    return rows(
      this.db,
      scheduleDetails()
        .where('s.user_id', '=', userId)
        .where('s.integrator_id', '=', integratorId)
        .orderBy('s.created_at', 'desc')
        .orderBy('s.id', 'desc'),
    );
  }

  /** The schedules of the integrator's user `externalId`; undefined when it has no such user. */
  async listForExternalUser(integratorId: string, externalId: number): Promise<ScheduleDetail[] | undefined> {
    const user = await firstRow(
      this.db,
      qb
        .selectFrom('users')
        .select('id')
        .where('integrator_id', '=', integratorId)
        .where('external_id', '=', externalId),
    );
    return user && this.listForUser(integratorId, user.id);
  }

  /**
   * What setting up a schedule now would charge and the sentence the tenant agrees to, checked as a set-up is (400,
   * 409) but writing nothing. `lock`: the set-up's own check, queued on the tenancy's row.
   */
  async #agreement(tx: Queryable, client: ClientContext, input: CreateScheduleInput, lock: boolean) {
    const { session } = client;
    if (input.purePence !== undefined) checkPureAmount(input.purePence);
    // Set-ups of one tenancy queue on its row, so "is there a live schedule?" is answered once at a time (the
    // partial unique index would refuse a second one anyway).
    const tenancies = qb
      .selectFrom('tenancies')
      .select((eb) => [
        'is_active',
        'amount_pence',
        'frequency',
        'rent_due_day',
        eb.cast<string>('start_rent_date', 'text').as('start_rent_date'),
        eb.cast<string>('end_rent_date', 'text').as('end_rent_date'),
        'installment_plan',
        'address_1',
        'recipient_bank_account_name as payee',
      ])
      .where('id', '=', session.tenancy_id)
      .$narrowType<{ frequency: ScheduleDetail['frequency']; installment_plan: ScheduleDetail['plan'] }>();
    const tenancy = await firstRow(tx, lock ? tenancies.forNoKeyUpdate() : tenancies);
    const cards = qb
      .selectFrom('saved_cards')
      .select(['id', 'brand', 'last4'])
      .where('id', '=', input.savedCardId)
      .where('user_id', '=', session.user_id)
      .where('integrator_id', '=', session.integrator_id)
      .where('status', '=', 'active');
    const card = await firstRow(tx, lock ? cards.forShare() : cards);
    const hasPlan = (tenancy?.installment_plan?.installments.length ?? 0) > 0;
    const usePlan = input.useInstallmentPlan ?? hasPlan;
    const errors: Record<string, string[]> = {};
    if (!card) errors.saved_card_id = ['Unknown saved card.'];
    if (usePlan && !hasPlan) errors.use_installment_plan = ['This tenancy has no installment plan.'];
    if (usePlan && hasPlan && input.purePence !== undefined) {
      errors.pure_amount = [
        'An installment plan charges each installment’s own amount: leave pure_amount out, or set use_installment_plan to false.',
      ];
    }
    if (Object.keys(errors).length > 0 || !card) throw new FieldValidationError(errors);
    if (!tenancy?.is_active) {
      throw new ServiceError(
        'conflict',
        'This tenancy is not active, so no recurring payment can be set up for it.',
      );
    }
    const live = await firstRow(
      tx,
      qb
        .selectFrom('schedules')
        .select(['id', 'status'])
        .where('tenancy_id', '=', session.tenancy_id)
        .where('status', 'in', ['active', 'paused']),
    );
    if (live) {
      throw new ServiceError(
        'conflict',
        `This tenancy has ${live.status === 'active' ? 'an' : 'a'} ${live.status} schedule already (${live.id}); ` +
          'cancel it before setting up another.',
      );
    }
    // The tenant's amount is kept only when it differs from the rent: the rent itself follows the tenancy.
    const ownPence =
      input.purePence !== undefined && input.purePence !== Number(tenancy.amount_pence)
        ? input.purePence
        : null;
    const terms = scheduleTerms({
      installment_plan: usePlan,
      pure_amount_pence: ownPence,
      frequency: tenancy.frequency,
      rent_due_day: tenancy.rent_due_day,
      rent_pence: tenancy.amount_pence,
      plan: tenancy.installment_plan,
      end_rent_date: tenancy.end_rent_date,
    });
    // Rent paid already (paying ahead, credit) is never charged again: the schedule starts after it. The ledger
    // counts the plan's due dates when the tenancy has one, so a schedule of the rent instead has no such count.
    const today = utcDate(this.clock.now());
    const paid = await this.#rentPaidFor(tx, session.tenancy_id, usePlan, tenancy.installment_plan);
    if (paid.known && paid.firstUnpaid === null) {
      throw new ServiceError(
        'conflict',
        `The rent of this tenancy is paid to its end (${tenancy.end_rent_date}): there is nothing left for recurring rent to charge.`,
      );
    }
    const from = paid.firstUnpaid !== null && paid.firstUnpaid > today ? paid.firstUnpaid : today;
    const first = firstDueFrom(terms, tenancy.start_rent_date, from);
    const paidThrough = from === today ? null : paid.lastPaid;
    if (first === null) {
      throw new ServiceError(
        'conflict',
        usePlan
          ? 'No installment of this tenancy is due from today on.'
          : `No rent is due from today until the tenancy ends (${tenancy.end_rent_date}).`,
      );
    }
    assertAmountsInRange(terms, first);
    const agreement = scheduleAgreement(terms, first, {
      platform: client.integrator.name,
      payee: tenancy.payee,
      address: tenancy.address_1,
      card,
      cardFee: client.integrator.fees.card,
    });
    return { agreement, first, usePlan, ownPence, paidThrough };
  }

  /** What a set-up with `input` would charge now, and the sentence the tenant would agree to. */
  async preview(client: ClientContext, input: CreateScheduleInput): Promise<SchedulePreview> {
    return previewOf(await this.#agreement(this.db, client, input, false));
  }

  /**
   * A schedule of the session's tenancy, starting with the first due date on or after today, once the tenant agreed
   * to exactly the sentence `preview` gives now (else 409 terms_changed with the fresh preview, and nothing is set up).
   */
  async create(client: ClientContext, input: SetUpScheduleInput): Promise<ScheduleDetail> {
    const { session } = client;
    return this.db.transaction(async (tx) => {
      const planned = await this.#agreement(tx, client, input, true);
      if (planned.agreement.text !== input.authorizationText) {
        throw new ServiceError(
          'terms_changed',
          'What this schedule would charge has changed since it was shown: show the tenant the new terms and ask again.',
          {},
          { terms: previewOf(planned) },
        );
      }
      const now = this.clock.now();
      const id = newId('sch');
      await tx.query(
        `INSERT INTO schedules (id, integrator_id, user_id, tenancy_id, session_id, saved_card_id, status,
                                installment_plan, pure_amount_pence, next_due_date, authorization_text,
                                authorization_version, authorized_at, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'active', $7, $8, $9, $10, $11, $12, $12, $12)`,
        [
          id,
          session.integrator_id,
          session.user_id,
          session.tenancy_id,
          session.id,
          input.savedCardId,
          planned.usePlan,
          planned.ownPence,
          planned.first,
          planned.agreement.text,
          planned.agreement.version,
          now,
        ],
      );
      return recordScheduleEvent(tx, this.clock, 'schedule_created', id);
    });
  }

  /**
   * Pauses, resumes or cancels one of the owner's schedules (404 for anyone else's, as for an unknown one; 409 when
   * the move is not allowed from its state). Resuming continues with the first due date after today: the ones that
   * passed while it was paused, today's included, are skipped. `reason` (a person's, from the dashboard) is kept
   * with a paused or canceled schedule and audited; a resume clears the one kept. Audited as the actor's.
   */
  async change(
    owner: ScheduleOwner,
    scheduleId: string,
    action: ScheduleAction,
    actor: Actor,
    reason?: string,
  ): Promise<ScheduleDetail> {
    requirePermission(actor, 'schedules.manage');
    const given = reason?.trim();
    if (given === '') throw new FieldValidationError({ reason: ['This field may not be blank.'] });
    return this.db.transaction(async (tx) => {
      const current = await scheduleDetail(tx, scheduleId, true);
      if (
        !current ||
        current.integrator_id !== owner.integratorId ||
        (owner.userId !== undefined && current.user_id !== owner.userId)
      ) {
        throw new ServiceError('not_found', `No schedule ${scheduleId}.`);
      }
      const now = this.clock.now();
      const { status } = current;
      if (action === 'pause') {
        if (status !== 'active') {
          throw new ServiceError('conflict', `Only an active schedule can be paused; this one is ${status}.`);
        }
        await tx.query(
          "UPDATE schedules SET status = 'paused', status_reason = $3, updated_at = $2 WHERE id = $1",
          [scheduleId, now, given ?? null],
        );
        await withdrawPendingCharges(tx, scheduleId, now);
      } else if (action === 'resume') {
        if (status !== 'paused') {
          throw new ServiceError('conflict', `Only a paused schedule can be resumed; this one is ${status}.`);
        }
        if (!current.tenancy_active) {
          throw new ServiceError('conflict', 'The tenancy is not active, so its schedule cannot be resumed.');
        }
        // Strictly after today, whatever the time of day and whether today's scheduler run has reached today's due
        // date yet: a due date that is today passed while the schedule was paused. Nor one paid meanwhile.
        const tomorrow = addDays(utcDate(now), 1);
        const paid = await this.#rentPaidFor(tx, current.tenancy_id, current.installment_plan, current.plan);
        if (paid.known && paid.firstUnpaid === null) {
          throw new ServiceError(
            'conflict',
            'The rent of this tenancy is paid to its end: nothing is left to charge.',
          );
        }
        const from = paid.firstUnpaid !== null && paid.firstUnpaid > tomorrow ? paid.firstUnpaid : tomorrow;
        const next = dueOnOrAfter(scheduleTerms(current), current.next_due_date!, from);
        if (next === null) {
          throw new ServiceError('conflict', 'No due date of this schedule is left before the tenancy ends.');
        }
        await tx.query(
          "UPDATE schedules SET status = 'active', next_due_date = $2, status_reason = NULL, updated_at = $3 WHERE id = $1",
          [scheduleId, next, now],
        );
      } else {
        if (status !== 'active' && status !== 'paused') {
          throw new ServiceError(
            'conflict',
            `Only an active or paused schedule can be canceled; this one is ${status}.`,
          );
        }
        await tx.query(
          "UPDATE schedules SET status = 'canceled', next_due_date = NULL, status_reason = $3, updated_at = $2 WHERE id = $1",
          [scheduleId, now, given ?? null],
        );
        await withdrawPendingCharges(tx, scheduleId, now);
      }
      const changed = await recordScheduleEvent(tx, this.clock, EVENT_OF[action], scheduleId);
      await recordAudit(tx, this.clock, actor, {
        scope: current.integrator_id,
        action: `schedule.${action}`,
        target: { type: 'schedule', id: scheduleId },
        before: { status, next_due_date: current.next_due_date },
        after: {
          status: changed.status,
          next_due_date: changed.next_due_date,
          ...(given === undefined ? {} : { reason: given }),
        },
      });
      return changed;
    });
  }
}

const PAUSE_INACTIVE_TENANCY_SCHEDULES = sqlStatement(
  Col.row({ id: Col.text }),
  `UPDATE schedules s SET status = 'paused', status_reason = 'The tenancy is no longer active.', updated_at = $2
     FROM tenancies t
    WHERE t.id = s.tenancy_id AND s.tenancy_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND s.status = 'active' AND NOT t.is_active
    RETURNING s.id`,
);

/**
 * After onboarding changed tenancies (end_rent_date, amount, frequency), in its transaction: a live schedule whose
 * next due date is now past the tenancy's end is completed; one of a tenancy no longer active is paused (with its
 * event). A new amount or frequency needs nothing here: the scheduler reads them when it reaches the next due date.
 */
export async function applyTenancyChanges(tx: Queryable, clock: Clock, tenancyIds: string[]): Promise<void> {
  if (tenancyIds.length === 0) return;
  const now = clock.now();
  await tx.query(
    `UPDATE schedules s SET status = 'completed', next_due_date = NULL, updated_at = $2
       FROM tenancies t
      WHERE t.id = s.tenancy_id AND s.tenancy_id IN (SELECT jsonb_array_elements_text($1::jsonb)) AND s.status IN ('active', 'paused')
        AND s.next_due_date > t.end_rent_date`,
    [tenancyIds, now],
  );
  const paused = await PAUSE_INACTIVE_TENANCY_SCHEDULES.rows(tx, [tenancyIds, now]);
  for (const { id } of paused) {
    await withdrawPendingCharges(tx, id, now);
    await recordScheduleEvent(tx, clock, 'schedule_paused', id);
  }
}
