import { type Static, Type } from 'typebox';
import type { AppContext } from '../app-context.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { addDays, daysInMonth } from '../shared/dates.ts';
import { formatPence } from '../shared/money.ts';
import { monthStart, ukDate, ukDayStart } from '../shared/uk-days.ts';
import { paymentSearchLink } from './payment-search.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });
const Day = Type.String({ format: 'date' });
const Link = (lists: string) =>
  Type.String({
    description: `The Dashboard API request that lists ${lists}.`,
    examples: ['/api/dashboard/…'],
  });

const Amount = (what: string, lists: string) =>
  Type.Object({ amount: { ...Money, description: what }, link: Link(lists) });
const Count = (what: string, lists: string) =>
  Type.Object({ count: Type.Integer({ minimum: 0, description: what }), link: Link(lists) });

/** How many days the home's chart shows, ending today. */
export const SERIES_DAYS = 30;

/** Arrears by how long they have been overdue: [min, max] days, max null for "over 60". */
export const ARREARS_BUCKETS = [
  { label: '0-7', min_days: 0, max_days: 7 },
  { label: '8-30', min_days: 8, max_days: 30 },
  { label: '31-60', min_days: 31, max_days: 60 },
  { label: 'over_60', min_days: 61, max_days: null },
] as const;

const ArrearsFigure = Type.Object({
  tenancies: Type.Integer({ minimum: 0 }),
  amount: Money,
});

export const HomeView = Type.Object(
  {
    as_of: { ...Timestamp, description: 'When the figures were read.' },
    today: { ...Day, description: 'Today as a UK day (Europe/London).' },
    month: Type.String({ pattern: '^\\d{4}-\\d{2}$', description: 'This UK month, YYYY-MM.' }),
    collected_today: Amount(
      'Rent collected today: the rent (pure_amount, without fees) of the payments made today that succeeded, ' +
        'less what refunds and lost disputes have taken back of them since (the rent part: refunds give the rent ' +
        'back first).',
      'those payments',
    ),
    collected_this_month: Amount(
      'Rent collected this month, counted as collected_today is.',
      'those payments',
    ),
    due_this_month: Amount(
      'Rent falling due this month on the platform’s active tenancies (their due dates, as the ledger counts them).',
      'the tenants',
    ),
    series: Type.Array(
      Type.Object({
        date: Day,
        collected: { ...Money, description: 'Rent collected that day (as collected_today).' },
        due: { ...Money, description: 'Rent that fell due that day.' },
        link: Link('that day’s succeeded payments'),
      }),
      { description: `The last ${SERIES_DAYS} UK days, oldest first, ending today: for the chart.` },
    ),
    arrears: Type.Object(
      {
        as_of: { ...Day, description: 'The day the arrears are counted to: the ledger’s today (a UTC day).' },
        total: ArrearsFigure,
        buckets: Type.Array(
          Type.Object({
            label: Type.Enum(ARREARS_BUCKETS.map((bucket) => bucket.label)),
            min_days: Type.Integer(),
            max_days: Type.Union([Type.Integer(), Type.Null()]),
            ...ArrearsFigure.properties,
          }),
          {
            description:
              'Tenancies in arrears by days overdue (the ledger’s days_overdue: from the oldest due date not fully ' +
              'paid): 0–7, 8–30, 31–60, over 60.',
          },
        ),
        link: Link('the tenants'),
      },
      {
        description:
          'Active tenancies whose ledger shows arrears (its balance when positive): how many and how much.',
      },
    ),
    failed_payments: Count(`Payments that failed in the last ${SERIES_DAYS} days.`, 'them'),
    requires_action: Count(
      'Payments waiting for their tenant now: to authenticate with their bank (3-D Secure, or a recurring charge ' +
        'their bank stopped), or to finish on an APM’s page.',
      'them',
    ),
    payouts: Type.Object({
      awaiting_confirmation: Count(
        'Payouts in runs made but not yet confirmed (paid).',
        'the platform’s payouts',
      ),
      awaiting_approval: Count(
        'Tenancies whose rent is held until the operator approves their landlord’s account (production’s first ' +
          'payout to it).',
        'the held tenancies',
      ),
      held: Count(
        'Tenancies whose rent is held for another reason (bank details that cannot be paid).',
        'them',
      ),
    }),
    webhooks: Type.Object({
      failed: Count('Deliveries whose every attempt failed (redeliver them).', 'those events'),
      pending: Type.Object({
        count: Type.Integer({ minimum: 0, description: 'Deliveries waiting for an attempt.' }),
        retrying: Type.Integer({
          minimum: 0,
          description: 'Of those, how many have failed an attempt already.',
        }),
        oldest_since: Type.Union([Timestamp, Type.Null()], {
          description: 'When the oldest pending delivery began waiting; null when none is.',
        }),
        oldest_age_seconds: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
        link: Link('those events'),
      }),
    }),
  },
  { title: 'DashboardHome' },
);
export type HomeView = Static<typeof HomeView>;

const TENANTS_LINK = '/api/dashboard/tenants/';

/** In which ARREARS_BUCKETS entry a number of days overdue falls. */
function bucketOf(days: number): number {
  return ARREARS_BUCKETS.findIndex((b) => days >= b.min_days && (b.max_days === null || days <= b.max_days));
}

/**
 * The home page's figures for an integrator, from a handful of set-wise statements (one per domain: payments,
 * ledger, payouts, webhooks), however many tenancies and payments it has.
 */
export async function homeFigures(ctx: AppContext, integratorId: string): Promise<HomeView> {
  const now = ctx.clock.now();
  const today = ukDate(now);
  const firstDay = addDays(today, -(SERIES_DAYS - 1));
  const month = monthStart(today);
  const from = month < firstDay ? month : firstDay;
  const monthEnd = `${today.slice(0, 8)}${daysInMonth(Number(today.slice(0, 4)), Number(today.slice(5, 7)))}`;
  const [collection, rent, payouts, webhooks] = await Promise.all([
    ctx.payments.collection(integratorId, {
      from: ukDayStart(from),
      before: ukDayStart(addDays(today, 1)),
      failedFrom: ukDayStart(firstDay),
    }),
    ctx.ledger.overview(integratorId, { from, to: monthEnd }),
    ctx.payouts.waiting(integratorId),
    ctx.webhooks.health(integratorId),
  ]);
  const collectedBetween = (first: string, last: string) => {
    let pence = 0;
    for (const [day, rentPence] of collection.rent_by_day)
      if (day >= first && day <= last) pence += rentPence;
    return pence;
  };
  let dueThisMonth = 0;
  for (const [day, pence] of rent.due_by_day) if (day >= month && day <= monthEnd) dueThisMonth += pence;
  const buckets = ARREARS_BUCKETS.map((bucket) => ({ ...bucket, tenancies: 0, pence: 0 }));
  let inArrears = 0;
  let arrearsPence = 0;
  for (const tenancy of rent.tenancies) {
    if (tenancy.arrears_pence <= 0) continue;
    const bucket = buckets[bucketOf(tenancy.days_overdue)]!;
    bucket.tenancies++;
    bucket.pence += tenancy.arrears_pence;
    inArrears++;
    arrearsPence += tenancy.arrears_pence;
  }
  const series = Array.from({ length: SERIES_DAYS }, (_, i) => {
    const date = addDays(firstDay, i);
    return {
      date,
      collected: formatPence(collection.rent_by_day.get(date) ?? 0),
      due: formatPence(rent.due_by_day.get(date) ?? 0),
      link: paymentSearchLink({ status: 'succeeded', from: date, to: date }),
    };
  });
  const oldest = webhooks.oldest_pending_since;
  return {
    as_of: now.toISOString(),
    today,
    month: today.slice(0, 7),
    collected_today: {
      amount: formatPence(collectedBetween(today, today)),
      link: paymentSearchLink({ status: 'succeeded', from: today, to: today }),
    },
    collected_this_month: {
      amount: formatPence(collectedBetween(month, today)),
      link: paymentSearchLink({ status: 'succeeded', from: month, to: today }),
    },
    due_this_month: { amount: formatPence(dueThisMonth), link: TENANTS_LINK },
    series,
    arrears: {
      as_of: rent.as_of,
      total: { tenancies: inArrears, amount: formatPence(arrearsPence) },
      buckets: buckets.map(({ pence, ...bucket }) => ({ ...bucket, amount: formatPence(pence) })),
      link: TENANTS_LINK,
    },
    failed_payments: {
      count: collection.failed,
      link: paymentSearchLink({ status: 'failed', from: firstDay, to: today }),
    },
    requires_action: {
      count: collection.requires_action,
      link: paymentSearchLink({ status: 'requires_action' }),
    },
    payouts: {
      awaiting_confirmation: {
        count: payouts.awaiting_confirmation,
        link: '/api/dashboard/payouts/?status=created',
      },
      awaiting_approval: { count: payouts.awaiting_approval, link: '/api/dashboard/payouts/held/' },
      held: { count: payouts.held, link: '/api/dashboard/payouts/held/' },
    },
    webhooks: {
      failed: { count: webhooks.failed, link: '/api/dashboard/events/?status=failed' },
      pending: {
        count: webhooks.pending,
        retrying: webhooks.retrying,
        oldest_since: oldest === null ? null : new Date(oldest).toISOString(),
        oldest_age_seconds:
          oldest === null
            ? null
            : Math.max(0, Math.floor((now.getTime() - new Date(oldest).getTime()) / 1000)),
        link: '/api/dashboard/events/?status=pending',
      },
    },
  };
}
