import { type Static, Type } from 'typebox';
import { type PayoutReadiness, payoutReadiness } from '../payouts/bank-account.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { formatPence } from '../shared/money.ts';
import { FREQUENCIES } from '../shared/vocabulary.ts';
import {
  type DocumentState,
  type SessionDetail,
  type SessionRow,
  type SessionStatus,
  sessionStatus,
} from './service.ts';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const DocumentView = Type.Object(
  {
    document_id: Nullable(
      Type.String({
        description:
          'Set once stored: GET /api/third-party/documents/{document_id}/ returns the stored bytes.',
      }),
    ),
    state: Type.Union([Type.Literal('pending'), Type.Literal('stored'), Type.Literal('failed')]),
    sha256: Nullable(Type.String()),
    size_bytes: Nullable(Type.Integer()),
    failure_reason: Nullable(Type.String()),
  },
  { title: 'DocumentState' },
);

export const SessionAmountView = Type.Object(
  {
    pure_amount: Nullable(
      Type.String({
        description: 'The amount set at user-login (pounds, before the fee); null: the tenant chooses.',
      }),
    ),
    editable: Type.Boolean({ description: 'false: the amount is fixed; the tenant cannot pay another.' }),
  },
  { title: 'SessionAmount' },
);

export function sessionAmountView(
  session: Pick<SessionRow, 'pure_amount_pence' | 'amount_editable'>,
): Static<typeof SessionAmountView> {
  return {
    pure_amount: session.pure_amount_pence === null ? null : formatPence(Number(session.pure_amount_pence)),
    editable: session.amount_editable,
  };
}

export const SessionView = Type.Object(
  {
    session_id: Type.String(),
    status: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('completed')]),
    created_at: Timestamp,
    expires_at: Timestamp,
    amount: SessionAmountView,
    user: Type.Object({
      user_id: Type.Integer(),
      email: Type.String(),
      first_name: Type.String(),
      last_name: Type.String(),
      phone_number: Type.String(),
      date_of_birth: Type.String({ format: 'date' }),
      kyc: Type.Object({
        pii_front: Nullable(Type.String()),
        pii_back: Nullable(Type.String()),
        photo: Nullable(Type.String()),
        status: Nullable(Type.String()),
      }),
      kyc_documents: Type.Record(Type.String(), DocumentView, {
        description: 'Fetch state of each KYC link that is set, by member name.',
      }),
    }),
    tenancy: Type.Object({
      post_code: Type.String(),
      address_1: Type.String(),
      city: Type.String(),
      country: Type.String(),
      is_primary: Type.Boolean(),
      start_rent_date: Type.String({ format: 'date' }),
      end_rent_date: Type.String({ format: 'date' }),
      rent_due_day: Type.Integer(),
      amount: Type.String({ examples: ['1200.00'] }),
      frequency: Type.Union(FREQUENCIES.map((f) => Type.Literal(f))),
      is_active: Type.Boolean(),
      payment_reference: Type.String(),
      recipient_bank_sort_code: Type.String(),
      recipient_bank_account_number: Type.String(),
      recipient_bank_account_name: Type.String(),
      agreement: Type.String(),
      installment_payment: Type.Optional(
        Type.Object({
          total_amount: Type.Optional(Type.Number()),
          installments: Type.Array(
            Type.Object({
              installment_number: Type.Integer(),
              due_date: Type.String(),
              amount: Type.Number(),
            }),
          ),
        }),
      ),
      agreement_document: DocumentView,
    }),
    bank_account: Type.Object({
      sort_code: Type.String(),
      account_number: Type.String(),
      account_name: Type.String(),
      payout_ready: Type.Boolean({
        description:
          'Whether rent can be paid out to this account: a UK sort code (6 digits) and account number (6 to 8 ' +
          'digits). When false, the tenancy’s rent is held out of payouts (payout_hold_reason says why).',
      }),
      payout_hold_reason: Type.Union([Type.String(), Type.Null()], {
        description: 'Why payout_ready is false; null when it is true.',
      }),
    }),
  },
  {
    title: 'SessionWithoutPayments',
    description: 'The session query without its payments, which the Integration API adds.',
  },
);
export type SessionView = Static<typeof SessionView>;

function documentView(doc: DocumentState | undefined): Static<typeof DocumentView> {
  return {
    document_id: doc?.document_id ?? null,
    state: doc?.state ?? 'pending',
    sha256: doc?.sha256 ?? null,
    size_bytes: doc?.size_bytes ?? null,
    failure_reason: doc?.failure_reason ?? null,
  };
}

export function sessionView(detail: SessionDetail, now: Date): SessionView {
  const { session, user, tenancy, documents } = detail;
  const status: SessionStatus = sessionStatus(session, now);
  const plan = tenancy.installment_plan;
  const kycDocuments: Record<string, Static<typeof DocumentView>> = {};
  for (const doc of documents) if (doc.kind !== 'agreement') kycDocuments[doc.kind] = documentView(doc);
  return {
    session_id: session.id,
    status,
    created_at: new Date(session.created_at).toISOString(),
    expires_at: new Date(session.expires_at).toISOString(),
    amount: sessionAmountView(session),
    user: {
      user_id: Number(user.external_id),
      email: String(user.email),
      first_name: String(user.first_name),
      last_name: String(user.last_name),
      phone_number: String(user.phone_number),
      date_of_birth: user.date_of_birth,
      kyc: {
        pii_front: (user.kyc_pii_front as string | null) ?? null,
        pii_back: (user.kyc_pii_back as string | null) ?? null,
        photo: (user.kyc_photo as string | null) ?? null,
        status: (user.kyc_status as string | null) ?? null,
      },
      kyc_documents: kycDocuments,
    },
    tenancy: {
      post_code: String(tenancy.post_code),
      address_1: String(tenancy.address_1),
      city: String(tenancy.city),
      country: String(tenancy.country),
      is_primary: Boolean(tenancy.is_primary),
      start_rent_date: tenancy.start_rent_date,
      end_rent_date: tenancy.end_rent_date,
      rent_due_day: Number(tenancy.rent_due_day),
      amount: formatPence(Number(tenancy.amount_pence)),
      frequency: tenancy.frequency as SessionView['tenancy']['frequency'],
      is_active: Boolean(tenancy.is_active),
      payment_reference: String(tenancy.payment_reference),
      recipient_bank_sort_code: String(tenancy.recipient_bank_sort_code),
      recipient_bank_account_number: String(tenancy.recipient_bank_account_number),
      recipient_bank_account_name: String(tenancy.recipient_bank_account_name),
      agreement: String(tenancy.agreement_url),
      ...(plan
        ? {
            installment_payment: {
              ...(plan.total_amount_pence === null ? {} : { total_amount: plan.total_amount_pence / 100 }),
              installments: plan.installments.map((i) => ({
                installment_number: i.installment_number,
                due_date: i.due_date,
                amount: i.amount_pence / 100,
              })),
            },
          }
        : {}),
      agreement_document: documentView(documents.find((d) => d.kind === 'agreement')),
    },
    bank_account: {
      sort_code: String(tenancy.recipient_bank_sort_code),
      account_number: String(tenancy.recipient_bank_account_number),
      account_name: String(tenancy.recipient_bank_account_name),
      ...payoutFlag(
        payoutReadiness(
          String(tenancy.recipient_bank_sort_code),
          String(tenancy.recipient_bank_account_number),
          String(tenancy.recipient_bank_account_name),
        ),
      ),
    },
  };
}

function payoutFlag(readiness: PayoutReadiness): {
  payout_ready: boolean;
  payout_hold_reason: string | null;
} {
  return readiness.ready
    ? { payout_ready: true, payout_hold_reason: null }
    : { payout_ready: false, payout_hold_reason: readiness.reason };
}
