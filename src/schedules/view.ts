import type { InferResult } from 'kysely';
import { type Static, Type } from 'typebox';
import type { IntegratorNarrowing } from '../integrators/service.ts';
import { paymentAmounts } from '../payments/fees.ts';
import { qb } from '../platform/db/query-builder.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { chargeFor, firstDueFrom, type ScheduleTerms } from '../shared/dates.ts';
import { formatPence } from '../shared/money.ts';
import type { InstallmentPlan } from '../shared/vocabulary.ts';
import { FREQUENCIES, type Frequency, SCHEDULE_STATUSES } from '../shared/vocabulary.ts';
import { EVENT_TENANT_FIELDS } from '../webhooks/event-data.ts';

/** The columns a schedule's detail reads that the database types loosely (free text, JSON), as they are written. */
interface ScheduleDetailNarrowing {
  frequency: Frequency;
  plan: InstallmentPlan | null;
  /** The integrator's card fee now (what each charge adds). */
  fees: IntegratorNarrowing['fees'];
}

/**
 * Schedules as ScheduleDetails: each with what its view and its charges need from the user (alias u), the tenancy
 * (t), the card (c) and the integrator (i); add WHERE and ORDER BY.
 */
export function scheduleDetails() {
  return qb
    .selectFrom('schedules as s')
    .innerJoin('integrators as i', 'i.id', 's.integrator_id')
    .innerJoin('users as u', 'u.id', 's.user_id')
    .innerJoin('tenancies as t', 't.id', 's.tenancy_id')
    .innerJoin('saved_cards as c', 'c.id', 's.saved_card_id')
    .select((eb) => [
      's.id',
      's.integrator_id',
      's.user_id',
      's.tenancy_id',
      's.session_id',
      's.saved_card_id',
      's.status',
      's.installment_plan',
      's.pure_amount_pence',
      eb.cast<string | null>('s.next_due_date', 'text').as('next_due_date'),
      's.created_at',
      's.updated_at',
      'u.external_id as external_user_id',
      'u.email',
      't.payment_reference',
      't.frequency',
      't.rent_due_day',
      't.amount_pence as rent_pence',
      't.installment_plan as plan',
      eb.cast<string>('t.start_rent_date', 'text').as('start_rent_date'),
      eb.cast<string>('t.end_rent_date', 'text').as('end_rent_date'),
      't.is_active as tenancy_active',
      'c.brand as card_brand',
      'c.last4 as card_last4',
      'i.fees',
      's.authorization_text',
      's.authorization_version',
      's.authorized_at',
      's.status_reason',
    ])
    .$narrowType<ScheduleDetailNarrowing>();
}

/** A schedule with what its view and its charges need from the user, the tenancy and the card. */
export type ScheduleDetail = InferResult<ReturnType<typeof scheduleDetails>>[number];

/** What a schedule charges, from its tenancy as it is now. */
export function scheduleTerms(
  detail: Pick<
    ScheduleDetail,
    | 'installment_plan'
    | 'pure_amount_pence'
    | 'frequency'
    | 'rent_due_day'
    | 'rent_pence'
    | 'plan'
    | 'end_rent_date'
  >,
): ScheduleTerms {
  if (detail.installment_plan) {
    return {
      kind: 'installments',
      endRentDate: detail.end_rent_date,
      installments: (detail.plan?.installments ?? []).map((i) => ({
        ...i,
        amount_pence: Number(i.amount_pence),
      })),
    };
  }
  return {
    kind: 'rent',
    frequency: detail.frequency,
    rentDueDay: Number(detail.rent_due_day),
    endRentDate: detail.end_rent_date,
    amountPence: Number(detail.pure_amount_pence ?? detail.rent_pence),
  };
}

const MONEY = { pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] };

/** A schedule: the same shape in the Client API, the Integration API and schedule_* events. */
export const ScheduleView = Type.Object(
  {
    schedule_id: Type.String({ examples: ['sch_2bSWOdnxZ6vnyGqkE3HY1e'] }),
    status: Type.Enum(SCHEDULE_STATUSES),
    user_id: Type.Integer({ description: 'Your user_id, as onboarded.' }),
    payment_reference: Type.String({ description: 'The tenancy’s.' }),
    pure_amount: Type.String({
      ...MONEY,
      description:
        'What the next due date charges before the fee: the tenant’s amount or the tenancy’s rent, or with an installment plan the installment’s amount.',
    }),
    fee: Type.String({ ...MONEY, description: 'The card fee on that charge, at today’s rate.' }),
    amount: Type.String({
      ...MONEY,
      description: 'What that charge takes from the card: pure_amount plus fee.',
    }),
    frequency: Type.Enum(FREQUENCIES, { description: 'The tenancy’s.' }),
    rent_due_day: Type.Integer({ minimum: 1, maximum: 31, description: 'The tenancy’s.' }),
    next_due_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description:
        'The next due date the schedule charges (or, while paused, reaches); null once canceled or completed.',
    }),
    installment_plan: Type.Boolean({ description: 'True when it charges the tenancy’s installment plan.' }),
    card: Type.Object(
      { brand: Type.String(), last4: Type.String() },
      { description: 'The saved card it charges.' },
    ),
    authorization: Type.Union(
      [
        Type.Object({
          text: Type.String({ description: 'The sentence the tenant agreed to, word for word.' }),
          version: Type.String({ description: 'The version of the wording.' }),
          accepted_at: Timestamp,
        }),
        Type.Null(),
      ],
      {
        description:
          'The tenant’s authorisation of the charges, as given when setting the schedule up; null for a schedule set up before authorisations were recorded.',
      },
    ),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Schedule' },
);
export type ScheduleView = Static<typeof ScheduleView>;

/** The amount shown: the next due date's, or for a plan with nothing left its last installment's. */
function shownAmount(detail: ScheduleDetail): number {
  const terms = scheduleTerms(detail);
  if (terms.kind === 'rent') return terms.amountPence;
  if (detail.next_due_date !== null) return chargeFor(terms, detail.next_due_date).pure_amount_pence;
  return terms.installments.at(-1)?.amount_pence ?? 0;
}

export function scheduleView(detail: ScheduleDetail): ScheduleView {
  const amounts = paymentAmounts(shownAmount(detail), detail.fees?.card);
  return {
    schedule_id: detail.id,
    status: detail.status,
    user_id: Number(detail.external_user_id),
    payment_reference: detail.payment_reference,
    pure_amount: formatPence(amounts.purePence),
    fee: formatPence(amounts.feePence),
    amount: formatPence(amounts.amountPence),
    frequency: detail.frequency,
    rent_due_day: Number(detail.rent_due_day),
    next_due_date: detail.next_due_date,
    installment_plan: detail.installment_plan,
    card: { brand: detail.card_brand, last4: detail.card_last4 },
    authorization:
      detail.authorization_text === null || detail.authorized_at === null
        ? null
        : {
            text: detail.authorization_text,
            version: detail.authorization_version ?? '',
            accepted_at: new Date(detail.authorized_at).toISOString(),
          },
    created_at: new Date(detail.created_at).toISOString(),
    updated_at: new Date(detail.updated_at).toISOString(),
  };
}

/** The data of schedule_created, _paused, _resumed and _canceled. */
export function scheduleEventData(detail: ScheduleDetail): ScheduleEventData {
  return {
    schedule: scheduleView(detail),
    user_id: Number(detail.external_user_id),
    email: detail.email,
    payment_reference: detail.payment_reference,
  };
}

/** A tenancy's rent due date from `today` on (its plan's next installment, with one); null once none is left. */
export function nextRentDue(
  tenancy: {
    frequency: string;
    rent_due_day: number;
    start_rent_date: string;
    end_rent_date: string;
    amount_pence: number;
    installment_plan: InstallmentPlan | null;
  },
  today: string,
): string | null {
  const terms = scheduleTerms({
    installment_plan: (tenancy.installment_plan?.installments.length ?? 0) > 0,
    pure_amount_pence: null,
    frequency: tenancy.frequency as Frequency,
    rent_due_day: tenancy.rent_due_day,
    rent_pence: Number(tenancy.amount_pence),
    plan: tenancy.installment_plan,
    end_rent_date: tenancy.end_rent_date,
  });
  return firstDueFrom(terms, tenancy.start_rent_date, today);
}

export const ScheduleEventData = Type.Object(
  { schedule: ScheduleView, ...EVENT_TENANT_FIELDS },
  { title: 'ScheduleEventData' },
);
export type ScheduleEventData = Static<typeof ScheduleEventData>;
