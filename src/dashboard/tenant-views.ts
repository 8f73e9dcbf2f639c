import { type Static, Type } from 'typebox';
import { CardOnFileView } from '../cards/view.ts';
import { CalendarDate } from '../ledger/view.ts';
import type { TenantRecord, TenantSummary, TenantTenancy } from '../onboarding/tenants.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import type { ScheduleDetail } from '../schedules/view.ts';
import { ScheduleView, scheduleView } from '../schedules/view.ts';
import { formatPence } from '../shared/money.ts';
import { FREQUENCIES } from '../shared/vocabulary.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });

export const UserIdParams = Type.Object({
  user_id: Type.Integer({
    minimum: 1,
    maximum: Number.MAX_SAFE_INTEGER,
    description: 'The tenant’s user_id, as the platform onboarded them.',
  }),
});

export const TenantSummaryView = Type.Object(
  {
    user_id: Type.Integer({ description: 'As the platform onboarded them.' }),
    email: Type.String(),
    name: Type.String({ description: 'First and last name.' }),
    tenancies: Type.Integer({ minimum: 0, description: 'How many tenancies they have, active or not.' }),
    arrears: {
      ...Money,
      description: 'What they owe today over all their tenancies (each ledger’s arrears).',
    },
  },
  { title: 'TenantSummary' },
);

export function tenantSummaryView(row: TenantSummary): Static<typeof TenantSummaryView> {
  return {
    user_id: row.external_id,
    email: row.email,
    name: `${row.first_name} ${row.last_name}`,
    tenancies: row.tenancies,
    arrears: formatPence(row.arrears_pence),
  };
}

/** A schedule as the dashboard shows it: the Schedule every API shows, and why it was last paused or canceled. */
export const DashboardScheduleView = Type.Object(
  {
    ...ScheduleView.properties,
    reason: Type.Union([Type.String(), Type.Null()], {
      description:
        'Why it was paused or canceled, as the person who did it wrote (or why rentpay paused it); null when no ' +
        'reason was given, and once it is resumed.',
    }),
  },
  { title: 'DashboardSchedule' },
);

export function dashboardScheduleView(detail: ScheduleDetail): Static<typeof DashboardScheduleView> {
  return { ...scheduleView(detail), reason: detail.status_reason };
}

const TenancyView = Type.Object({
  payment_reference: Type.String(),
  address: Type.Object({
    address_1: Type.String(),
    city: Type.String(),
    post_code: Type.String(),
    country: Type.String(),
  }),
  payee_name: Type.String({ description: 'The landlord’s account name, whom the rent is paid out to.' }),
  rent: { ...Money, description: 'The rent on each due date, as onboarded now.' },
  frequency: Type.Enum(FREQUENCIES),
  rent_due_day: Type.Integer({ minimum: 1, maximum: 31 }),
  start_rent_date: CalendarDate,
  end_rent_date: CalendarDate,
  status: Type.Enum(['active', 'inactive'], { description: 'As the platform onboarded it (is_active).' }),
  arrears: { ...Money, description: 'What the tenant owes on it today (its ledger’s arrears).' },
  days_overdue: Type.Integer({ minimum: 0, description: 'Days since the oldest due date not fully paid.' }),
  next_due: Type.Union([Type.Object({ date: CalendarDate, amount: Money }), Type.Null()], {
    description: 'The first due date after today; null when the tenancy has no more.',
  }),
});

function tenancyView(tenancy: TenantTenancy): Static<typeof TenancyView> {
  const { ledger } = tenancy;
  return {
    payment_reference: tenancy.payment_reference,
    address: {
      address_1: tenancy.address_1,
      city: tenancy.city,
      post_code: tenancy.post_code,
      country: tenancy.country,
    },
    payee_name: tenancy.payee_name,
    rent: formatPence(tenancy.amount_pence),
    frequency: tenancy.frequency,
    rent_due_day: tenancy.rent_due_day,
    start_rent_date: tenancy.start_rent_date,
    end_rent_date: tenancy.end_rent_date,
    status: tenancy.is_active ? 'active' : 'inactive',
    arrears: formatPence(ledger.arrears_pence),
    days_overdue: ledger.days_overdue,
    next_due: ledger.next_due
      ? { date: ledger.next_due.date, amount: formatPence(ledger.next_due.amount_pence) }
      : null,
  };
}

const DocumentListingView = Type.Object({
  document_id: Type.String({ description: 'doc_…: GET /documents/{document_id}/ opens it once stored.' }),
  kind: Type.Enum(['agreement', 'pii_front', 'pii_back', 'photo'], {
    description: 'agreement: a tenancy’s; pii_front, pii_back, photo: KYC (identity document, photo).',
  }),
  status: Type.Enum(['pending', 'stored', 'failed'], {
    description:
      'pending: being fetched from the platform’s link; stored: can be opened; failed: could not be.',
  }),
  payment_reference: Type.Union([Type.String(), Type.Null()], {
    description: 'The tenancy of an agreement; null for KYC.',
  }),
});

export const TenantView = Type.Object(
  {
    user_id: Type.Integer(),
    email: Type.String(),
    first_name: Type.String(),
    last_name: Type.String(),
    phone_number: Type.String(),
    date_of_birth: CalendarDate,
    kyc_status: Type.Union([Type.String(), Type.Null()], { description: 'As the platform onboarded it.' }),
    created_at: Timestamp,
    tenancies: Type.Array(TenancyView, { description: 'Active ones first, then the latest start first.' }),
    schedules: Type.Array(DashboardScheduleView, { description: 'Newest first.' }),
    cards: Type.Array(CardOnFileView, { description: 'Active saved cards, the default first.' }),
    documents: Type.Array(DocumentListingView, {
      description: 'Agreements and KYC files; never their contents.',
    }),
  },
  { title: 'Tenant' },
);

export function tenantView(record: TenantRecord): Static<typeof TenantView> {
  const { profile } = record;
  return {
    user_id: profile.external_id,
    email: profile.email,
    first_name: profile.first_name,
    last_name: profile.last_name,
    phone_number: profile.phone_number,
    date_of_birth: profile.date_of_birth,
    kyc_status: profile.kyc_status,
    created_at: new Date(profile.created_at).toISOString(),
    tenancies: record.tenancies.map(tenancyView),
    schedules: record.schedules.map(dashboardScheduleView),
    cards: record.cards.map((card) => ({
      brand: card.brand,
      last4: card.last4,
      exp_month: Number(card.exp_month),
      exp_year: Number(card.exp_year),
      is_default: card.is_default,
    })),
    documents: record.documents.map((document) => ({
      document_id: document.id,
      kind: document.kind,
      status: document.state,
      payment_reference: document.payment_reference,
    })),
  };
}
