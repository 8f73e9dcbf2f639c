import type { Static } from 'typebox';
import { type Actor, requirePermission } from '../audit/actor.ts';
import { recordAudit } from '../audit/log.ts';
import { documentFetchJob } from '../documents/jobs/document-fetch.ts';
import { documentPurgeJob } from '../documents/jobs/document-purge.ts';
import { deleteDocuments, insertDocuments, replaceDocumentSources } from '../documents/records.ts';
import type { Clock } from '../platform/clock/clock.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { type FieldErrors, FieldValidationError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueueMany } from '../platform/jobs/define.ts';
import { applyTenancyChanges } from '../schedules/service.ts';
import { utcDate } from '../shared/dates.ts';
import { numberToPence, parsePence } from '../shared/money.ts';
import { ignoredTenancyFields, STORED_TENANCY } from './ignored.ts';
import type { TenancyInput, UserInput } from './schemas.ts';

type KycKind = 'pii_front' | 'pii_back' | 'photo';
const KYC_KINDS: KycKind[] = ['pii_front', 'pii_back', 'photo'];

const EXISTING_USERS = sqlStatement(
  Col.row({
    id: Col.text,
    external_id: Col.int,
    email_key: Col.text,
    kyc_status: Col.nullable(Col.text),
    kyc_pii_front: Col.nullable(Col.text),
    kyc_pii_back: Col.nullable(Col.text),
    kyc_photo: Col.nullable(Col.text),
  }),
  `SELECT id, external_id, email_key, kyc_status, kyc_pii_front, kyc_pii_back, kyc_photo FROM users
    WHERE integrator_id = $1
      AND (external_id IN (SELECT jsonb_array_elements_text($2::jsonb)::bigint)
           OR email_key IN (SELECT jsonb_array_elements_text($3::jsonb)))`,
);

const EXISTING_TENANCIES = sqlStatement(
  Col.row({ id: Col.text, user_id: Col.text, ...STORED_TENANCY.properties }),
  `SELECT id, user_id, start_rent_date::text AS start_rent_date, payment_reference, address_1, post_code, city,
          country, is_primary, rent_due_day, is_active, recipient_bank_sort_code, recipient_bank_account_number,
          recipient_bank_account_name, agreement_url, installment_plan
     FROM tenancies
    WHERE integrator_id = $1
      AND (user_id IN (SELECT jsonb_array_elements_text($2::jsonb))
           OR payment_reference IN (SELECT jsonb_array_elements_text($3::jsonb)))`,
);

const DOCUMENT_FILES = sqlStatement(
  Col.row({ storage_key: Col.text }),
  `SELECT d.storage_key FROM documents d
     JOIN jsonb_to_recordset($1::jsonb) AS x(user_id text, kind text) ON d.user_id = x.user_id AND d.kind = x.kind
    WHERE d.storage_key IS NOT NULL`,
);

/** An onboarding's audit entry names its first users (your user_id); a bulk one also says how many. */
const AUDITED_USER_IDS = 100;

export interface OnboardingResult {
  created: number;
  updated: number;
  /** Dotted paths of fields sent for existing tenancies that differ from what is stored but may not change. */
  ignored: string[];
}

function tenancyKey(
  userId: string,
  t: { start_rent_date: string; payment_reference: string; address_1: string },
) {
  return JSON.stringify([userId, t.start_rent_date, t.payment_reference, t.address_1]);
}

function installmentPlan(tenancy: TenancyInput): Record<string, unknown> | null {
  const plan = tenancy.installment_payment;
  if (!plan) return null;
  return {
    total_amount_pence: plan.total_amount === undefined ? null : numberToPence(plan.total_amount),
    installments: (plan.installments ?? []).map((i) => ({
      installment_number: i.installment_number,
      due_date: i.due_date,
      amount_pence: numberToPence(i.amount),
    })),
  };
}

/**
 * Creates or updates users, their tenancies and KYC links, all in one transaction:
 * any clash with stored data fails the whole request with field errors and writes nothing.
 */
export class OnboardingService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Creates or updates users and their tenancies in one transaction; audited as one entry, the actor's. */
  async onboard(
    integratorId: string,
    users: UserInput[],
    isArray: boolean,
    actor: Actor,
  ): Promise<OnboardingResult> {
    requirePermission(actor, 'tenants.manage');
    return this.db.transaction(async (tx) => {
      // One onboarding at a time per integrator: uniqueness checks below then hold until commit.
      await tx.query('SELECT pg_advisory_xact_lock(hashtext($1))', [integratorId]);
      const now = this.clock.now();
      const externalIds = users.map((u) => u.user_id);
      const emailKeys = users.map((u) => u.email.toLowerCase());
      const existingUsers = await EXISTING_USERS.rows(tx, [integratorId, externalIds, emailKeys]);
      const byExternalId = new Map(existingUsers.map((u) => [Number(u.external_id), u]));
      const byEmail = new Map(existingUsers.map((u) => [u.email_key, u]));
      const references = users.flatMap((u) => u.tenant.map((t) => t.payment_reference));
      const existingTenancies = await EXISTING_TENANCIES.rows(tx, [
        integratorId,
        existingUsers.map((u) => u.id),
        references,
      ]);
      const tenancyByIdentity = new Map(existingTenancies.map((t) => [tenancyKey(t.user_id, t), t]));
      const referenceTaken = new Set(existingTenancies.map((t) => t.payment_reference));

      const errors: FieldErrors = {};
      const userRows: Record<string, unknown>[] = [];
      const newTenancies: Record<string, unknown>[] = [];
      const tenancyUpdates: Record<string, unknown>[] = [];
      const documentInserts: Parameters<typeof insertDocuments>[2] = [];
      const documentChanges: { user_id: string; kind: KycKind; url: string }[] = [];
      const documentDeletes: { user_id: string; kind: KycKind }[] = [];
      const ignored: string[] = [];
      let created = 0;
      let updated = 0;

      users.forEach((user, index) => {
        const at = (path: string) => (isArray ? `${index}.${path}` : path);
        const existing = byExternalId.get(user.user_id);
        const emailKey = user.email.toLowerCase();
        const emailOwner = byEmail.get(emailKey);
        if (emailOwner && Number(emailOwner.external_id) !== user.user_id) {
          errors[at('email')] = [
            'A user with this email already exists under another user_id. To update that user, send its user_id; ' +
              'otherwise use another email.',
          ];
        }
        const userId = existing?.id ?? newId('usr');
        if (existing) updated++;
        else created++;
        const kyc: Record<string, string | null> = {};
        for (const kind of KYC_KINDS) {
          const sent = user.kyc[kind];
          const current = existing ? existing[`kyc_${kind}`] : null;
          const next = sent === undefined ? current : sent;
          kyc[kind] = next;
          if (next === current) continue;
          if (next === null) documentDeletes.push({ user_id: userId, kind });
          else if (current === null) {
            documentInserts.push({
              id: newId('doc'),
              user_id: userId,
              tenancy_id: null,
              kind,
              source_url: next,
            });
          } else documentChanges.push({ user_id: userId, kind, url: next });
        }
        userRows.push({
          id: userId,
          external_id: user.user_id,
          email: user.email,
          email_key: emailKey,
          first_name: user.first_name,
          last_name: user.last_name,
          phone_number: user.phone_number,
          date_of_birth: user.date_of_birth,
          kyc_status: user.kyc.status === undefined ? (existing?.kyc_status ?? null) : user.kyc.status,
          kyc_pii_front: kyc.pii_front,
          kyc_pii_back: kyc.pii_back,
          kyc_photo: kyc.photo,
        });
        user.tenant.forEach((tenancy, j) => {
          const amountPence = parsePence(tenancy.amount)!;
          const match = existing ? tenancyByIdentity.get(tenancyKey(existing.id, tenancy)) : undefined;
          if (match) {
            ignored.push(...ignoredTenancyFields(tenancy, match, at(`tenant.${j}`)));
            tenancyUpdates.push({
              id: match.id,
              end_rent_date: tenancy.end_rent_date,
              amount_pence: amountPence,
              frequency: tenancy.frequency,
            });
            return;
          }
          if (referenceTaken.has(tenancy.payment_reference)) {
            errors[at(`tenant.${j}.payment_reference`)] = [
              'A tenancy with this payment_reference already exists. To update it, send the same user_id, start_rent_date and address_1.',
            ];
            return;
          }
          const tenancyId = newId('ten');
          newTenancies.push({
            id: tenancyId,
            user_id: userId,
            post_code: tenancy.post_code,
            address_1: tenancy.address_1,
            city: tenancy.city,
            country: tenancy.country,
            is_primary: tenancy.is_primary,
            start_rent_date: tenancy.start_rent_date,
            end_rent_date: tenancy.end_rent_date,
            rent_due_day: tenancy.rent_due_day,
            amount_pence: amountPence,
            frequency: tenancy.frequency,
            is_active: tenancy.is_active,
            payment_reference: tenancy.payment_reference,
            recipient_bank_sort_code: tenancy.recipient_bank_sort_code,
            recipient_bank_account_number: tenancy.recipient_bank_account_number,
            recipient_bank_account_name: tenancy.recipient_bank_account_name,
            agreement_url: tenancy.agreement,
            installment_plan: installmentPlan(tenancy),
          });
          documentInserts.push({
            id: newId('doc'),
            user_id: userId,
            tenancy_id: tenancyId,
            kind: 'agreement',
            source_url: tenancy.agreement,
          });
        });
      });
      if (Object.keys(errors).length > 0) throw new FieldValidationError(errors);

      await upsertUsers(tx, integratorId, userRows, now);
      if (newTenancies.length > 0) await insertTenancies(tx, integratorId, newTenancies, now);
      if (tenancyUpdates.length > 0) {
        await recordTermsChanges(tx, tenancyUpdates, now);
        await tx.query(
          `UPDATE tenancies t SET end_rent_date = x.end_rent_date, amount_pence = x.amount_pence,
                  frequency = x.frequency, updated_at = $2
             FROM jsonb_to_recordset($1::jsonb) AS x(id text, end_rent_date date, amount_pence bigint, frequency text)
            WHERE t.id = x.id`,
          [tenancyUpdates, now],
        );
        // Their schedules: completed when the tenancy now ends before the next due date (rent and frequency are
        // read at each due date, so a change applies from the next one).
        await applyTenancyChanges(
          tx,
          this.clock,
          tenancyUpdates.map((u) => String(u.id)),
        );
      }
      const fetches: { payload: Static<typeof documentFetchJob.payload> }[] = [];
      const purges: { payload: { storage_key: string } }[] = [];
      await insertDocuments(tx, integratorId, documentInserts, now);
      for (const doc of documentInserts) fetches.push(fetchJob(integratorId, doc.id, 1));
      // Files of documents being replaced or cleared are deleted once this commits (see document.purge).
      const replacedFiles = await DOCUMENT_FILES.rows(tx, [[...documentChanges, ...documentDeletes]]);
      for (const { storage_key } of replacedFiles) purges.push({ payload: { storage_key } });
      for (const doc of await replaceDocumentSources(tx, documentChanges, now)) {
        fetches.push(fetchJob(integratorId, doc.id, doc.generation));
      }
      await deleteDocuments(tx, documentDeletes);
      await enqueueMany(tx, this.clock, documentFetchJob, fetches);
      await enqueueMany(tx, this.clock, documentPurgeJob, purges);
      await recordAudit(tx, this.clock, actor, {
        scope: integratorId,
        action: 'tenants.onboard',
        target: { type: 'integrator', id: integratorId },
        after: {
          users: users.length,
          user_ids: users.slice(0, AUDITED_USER_IDS).map((user) => user.user_id),
          tenancies_created: created,
          tenancies_updated: updated,
        },
      });
      return { created, updated, ignored };
    });
  }
}

/** Fair per integrator: one integrator's slow document hosts take only a share of the workers. */
function fetchJob(integratorId: string, documentId: string, generation: number) {
  return { payload: { document_id: documentId, generation, integrator_id: integratorId } };
}

async function upsertUsers(tx: Queryable, integratorId: string, rows: Record<string, unknown>[], now: Date) {
  await tx.query(
    `INSERT INTO users AS u (id, integrator_id, external_id, email, email_key, first_name, last_name, phone_number,
                        date_of_birth, kyc_status, kyc_pii_front, kyc_pii_back, kyc_photo, created_at, updated_at)
     SELECT x.id, $2, x.external_id, x.email, x.email_key, x.first_name, x.last_name, x.phone_number, x.date_of_birth,
            x.kyc_status, x.kyc_pii_front, x.kyc_pii_back, x.kyc_photo, $3, $3
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, external_id bigint, email text, email_key text, first_name text,
            last_name text, phone_number text, date_of_birth date, kyc_status text, kyc_pii_front text,
            kyc_pii_back text, kyc_photo text)
     ON CONFLICT (integrator_id, external_id) DO UPDATE SET
       email = EXCLUDED.email, email_key = EXCLUDED.email_key, first_name = EXCLUDED.first_name,
       last_name = EXCLUDED.last_name, phone_number = EXCLUDED.phone_number, date_of_birth = EXCLUDED.date_of_birth,
       kyc_status = EXCLUDED.kyc_status,
       kyc_pii_front = EXCLUDED.kyc_pii_front, kyc_pii_back = EXCLUDED.kyc_pii_back, kyc_photo = EXCLUDED.kyc_photo,
       updated_at = $3`,
    [rows, integratorId, now],
  );
}

async function insertTenancies(
  tx: Queryable,
  integratorId: string,
  rows: Record<string, unknown>[],
  now: Date,
) {
  await tx.query(
    `INSERT INTO tenancies (id, integrator_id, user_id, post_code, address_1, city, country, is_primary,
                            start_rent_date, end_rent_date, rent_due_day, amount_pence, frequency, is_active,
                            payment_reference, recipient_bank_sort_code, recipient_bank_account_number,
                            recipient_bank_account_name, agreement_url, installment_plan, created_at, updated_at)
     SELECT x.id, $2, x.user_id, x.post_code, x.address_1, x.city, x.country, x.is_primary, x.start_rent_date,
            x.end_rent_date, x.rent_due_day, x.amount_pence, x.frequency, x.is_active, x.payment_reference,
            x.recipient_bank_sort_code, x.recipient_bank_account_number, x.recipient_bank_account_name,
            x.agreement_url, x.installment_plan, $3, $3
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, user_id text, post_code text, address_1 text, city text,
            country text, is_primary boolean, start_rent_date date, end_rent_date date, rent_due_day integer,
            amount_pence bigint, frequency text, is_active boolean, payment_reference text,
            recipient_bank_sort_code text, recipient_bank_account_number text, recipient_bank_account_name text,
            agreement_url text, installment_plan jsonb)`,
    [rows, integratorId, now],
  );
  // The first terms apply from the start (or from today, for a tenancy that starts later and changes before then).
  await tx.query(
    `INSERT INTO tenancy_terms (tenancy_id, effective_on, amount_pence, frequency, created_at)
     SELECT x.id, LEAST(x.start_rent_date, $2::date), x.amount_pence, x.frequency, $3
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, start_rent_date date, amount_pence bigint, frequency text)`,
    [rows, utcDate(now), now],
  );
}

/**
 * A changed amount or frequency applies from today's due dates on: a terms row effective today (one per day, the
 * last change of the day wins). Unchanged terms add nothing.
 */
async function recordTermsChanges(tx: Queryable, updates: Record<string, unknown>[], now: Date) {
  await tx.query(
    `INSERT INTO tenancy_terms (tenancy_id, effective_on, amount_pence, frequency, created_at)
     SELECT x.id, $2::date, x.amount_pence, x.frequency, $3
       FROM jsonb_to_recordset($1::jsonb) AS x(id text, amount_pence bigint, frequency text)
      WHERE NOT EXISTS (
        SELECT 1 FROM (SELECT amount_pence, frequency FROM tenancy_terms c WHERE c.tenancy_id = x.id
                        ORDER BY effective_on DESC LIMIT 1) current
         WHERE current.amount_pence = x.amount_pence AND current.frequency = x.frequency)
     ON CONFLICT (tenancy_id, effective_on)
       DO UPDATE SET amount_pence = EXCLUDED.amount_pence, frequency = EXCLUDED.frequency, created_at = EXCLUDED.created_at`,
    [updates, utcDate(now), now],
  );
}
