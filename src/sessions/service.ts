import { type Static, Type } from 'typebox';
import { INTEGRATOR_JSON, type Integrator, integratorFromJson } from '../integrators/service.ts';
import {
  hashToken,
  isUserSessionTokenShaped,
  USER_SESSION_TOKEN_LENGTH,
  USER_SESSION_TOKEN_PREFIX,
} from '../integrators/tokens.ts';
import type { Clock } from '../platform/clock/clock.ts';
import { StatementBatcher } from '../platform/db/batcher.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { isDatabaseUnavailable } from '../platform/db/unavailable.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { textProblem } from '../platform/http/input-checks.ts';
import { newId, randomBase62 } from '../platform/ids.ts';
import { INSTALLMENT_PLAN_COLUMN } from '../shared/installment-plan-schema.ts';
import { amountInRange, formatPence, PURE_AMOUNT_LIMITS } from '../shared/money.ts';
import type { InstallmentPlan } from '../shared/vocabulary.ts';
import { loginMetrics } from './metrics.ts';

export interface LoginResult {
  token: string;
  sessionId: string;
  tokenExpiresAt: Date;
  sessionExpiresAt: Date;
}

export interface SessionRow {
  id: string;
  integrator_id: string;
  user_id: string;
  tenancy_id: string;
  token_expires_at: Date;
  expires_at: Date;
  completed_at: Date | null;
  created_at: Date;
  /** The amount the integrator's server set at user-login; null: the tenant chooses. */
  pure_amount_pence: number | null;
  /** false: the amount is fixed (the Client API refuses any other); true: it only pre-fills, or there is none. */
  amount_editable: boolean;
}

/** A session as to_jsonb(s) gives it (timestamps as ISO text). */
const SESSION_JSON = Col.row({
  id: Col.text,
  integrator_id: Col.text,
  user_id: Col.text,
  tenancy_id: Col.text,
  token_expires_at: Col.text,
  expires_at: Col.text,
  completed_at: Col.nullable(Col.text),
  created_at: Col.text,
  pure_amount_pence: Col.nullable(Col.int),
  amount_editable: Col.bool,
});

function sessionFromJson(json: Static<typeof SESSION_JSON>): SessionRow {
  return {
    id: json.id,
    integrator_id: json.integrator_id,
    user_id: json.user_id,
    tenancy_id: json.tenancy_id,
    token_expires_at: new Date(json.token_expires_at),
    expires_at: new Date(json.expires_at),
    completed_at: json.completed_at === null ? null : new Date(json.completed_at),
    created_at: new Date(json.created_at),
    pure_amount_pence: json.pure_amount_pence,
    amount_editable: json.amount_editable,
  };
}

/** How user-login sets the session's amount: fixed, a pre-filled suggestion, or none (the tenant chooses). */
export interface SessionAmount {
  purePence: number | null;
  editable: boolean;
}

type AmountFields = Pick<SessionRow, 'pure_amount_pence' | 'amount_editable'>;

/** The amount the integrator fixed for this session, if it did (a pre-filled amount is not fixed). */
export function fixedAmountPence(session: AmountFields): number | undefined {
  return session.pure_amount_pence !== null && !session.amount_editable
    ? Number(session.pure_amount_pence)
    : undefined;
}

/** Text PostgreSQL cannot take (NUL, unpaired surrogates) can name no user or tenancy: a field error, not a 500. */
function checkLoginText(email: string, paymentReference: string | undefined): void {
  const errors: Record<string, string[]> = {};
  const emailProblem = textProblem(email);
  if (emailProblem) errors.email = [emailProblem];
  const referenceProblem = paymentReference === undefined ? undefined : textProblem(paymentReference);
  if (referenceProblem) errors.payment_reference = [referenceProblem];
  if (Object.keys(errors).length > 0) throw new FieldValidationError(errors);
}

/** 400 on `pure_amount` unless the amount is within the payment limits. */
export function checkPureAmount(purePence: number): void {
  if (!amountInRange(purePence)) {
    throw new FieldValidationError({ pure_amount: [`Enter an amount from ${PURE_AMOUNT_LIMITS}.`] });
  }
}

/** 400 on `pure_amount` when the session's amount is fixed and this is another one. */
export function checkSessionAmount(session: AmountFields, purePence: number): void {
  const fixed = fixedAmountPence(session);
  if (fixed !== undefined && purePence !== fixed) {
    throw new FieldValidationError({
      pure_amount: [
        `The amount of this session is fixed at ${formatPence(fixed)} by the platform; pay exactly that amount.`,
      ],
    });
  }
}

const DOCUMENT_STATE = Col.row({
  kind: Col.text,
  /** Set once stored: GET /api/third-party/documents/{document_id}/ returns the bytes. */
  document_id: Col.nullable(Col.text),
  state: Type.Enum(['pending', 'stored', 'failed']),
  sha256: Col.nullable(Col.text),
  size_bytes: Col.nullable(Col.int),
  failure_reason: Col.nullable(Col.text),
});
export type DocumentState = Static<typeof DOCUMENT_STATE>;

export interface SessionDetail {
  session: SessionRow;
  user: Record<string, unknown> & { external_id: number; date_of_birth: string };
  tenancy: Record<string, unknown> & {
    amount_pence: number;
    start_rent_date: string;
    end_rent_date: string;
    installment_plan: InstallmentPlan | null;
  };
  documents: DocumentState[];
}

export type SessionStatus = 'active' | 'expired' | 'completed';

export function sessionStatus(
  session: Pick<SessionRow, 'completed_at' | 'expires_at'>,
  now: Date,
): SessionStatus {
  if (session.completed_at) return 'completed';
  return new Date(session.expires_at).getTime() <= now.getTime() ? 'expired' : 'active';
}

export interface ClientContext {
  session: SessionRow;
  integrator: Integrator;
  user: { external_id: number; email: string; first_name: string; last_name: string };
  tenancy: {
    payment_reference: string;
    address_1: string;
    city: string;
    post_code: string;
    country: string;
    amount_pence: number;
    frequency: string;
    rent_due_day: number;
    start_rent_date: string;
    end_rent_date: string;
    installment_plan: InstallmentPlan | null;
    recipient_bank_account_name: string;
  };
}

/** One login of a batch, as the statement reads it (timestamps as ISO text). */
interface LoginInput {
  integrator_id: string;
  email_key: string;
  payment_reference: string | null;
  session_id: string;
  token_hash: string;
  token_expires_at: string;
  expires_at: string;
  created_at: string;
  pure_amount_pence: number | null;
  amount_editable: boolean;
}

const LOGIN_FOUND = Col.row({
  user_id: Col.nullable(Col.text),
  tenancy_id: Col.nullable(Col.text),
  /** The tenancy was active, so the session was inserted. */
  created: Col.bool,
});
type LoginFound = Static<typeof LOGIN_FOUND>;

/**
 * Each login ($1: a JSON array of LoginInput with its index n): the user by email, then the tenancy named by
 * payment_reference, else the primary active one, else the newest active one; the session is inserted only when
 * that tenancy is active. One row per login that found its user. The INSERT runs whether or not it is read, and the
 * statement is all or nothing, so an active tenancy means its session was inserted.
 */
const LOGIN = sqlStatement(
  Col.row({ n: Col.int, ...LOGIN_FOUND.properties }),
  `
  WITH input AS (
    SELECT * FROM jsonb_to_recordset($1::jsonb) AS i(
      n int, integrator_id text, email_key text, payment_reference text, session_id text, token_hash text,
      token_expires_at timestamptz, expires_at timestamptz, created_at timestamptz, pure_amount_pence bigint,
      amount_editable boolean)
  ), found AS (
    SELECT i.*, u.id AS user_id, t.id AS tenancy_id, t.is_active AS tenancy_active
      FROM input i
      JOIN users u ON u.integrator_id = i.integrator_id AND u.email_key = i.email_key
      LEFT JOIN LATERAL (
        SELECT t.id, t.is_active FROM tenancies t
         WHERE t.user_id = u.id
           AND ((i.payment_reference IS NULL AND t.is_active) OR t.payment_reference = i.payment_reference)
         ORDER BY t.is_primary DESC, t.created_at DESC, t.start_rent_date DESC, t.id DESC
         LIMIT 1
      ) t ON true
  ), created AS (
    INSERT INTO sessions (id, integrator_id, user_id, tenancy_id, token_hash, token_expires_at, expires_at, created_at,
                          pure_amount_pence, amount_editable)
    SELECT session_id, integrator_id, user_id, tenancy_id, token_hash, token_expires_at, expires_at, created_at,
           pure_amount_pence, amount_editable
      FROM found WHERE tenancy_active
  )
  SELECT n, user_id, tenancy_id, tenancy_active IS TRUE AS created FROM found`,
  { prepare: 'user-login' },
);

const DETAIL = sqlStatement(
  Col.row({
    session: SESSION_JSON,
    usr: Type.Object({ external_id: Col.int, date_of_birth: Col.text }),
    tenancy: Type.Object({
      amount_pence: Col.int,
      start_rent_date: Col.text,
      end_rent_date: Col.text,
      installment_plan: INSTALLMENT_PLAN_COLUMN,
    }),
    documents: Col.nullable(Type.Array(DOCUMENT_STATE)),
  }),
  `SELECT to_jsonb(s) AS session,
          to_jsonb(u) || jsonb_build_object('date_of_birth', u.date_of_birth::text) AS usr,
          to_jsonb(t) || jsonb_build_object('start_rent_date', t.start_rent_date::text,
                                            'end_rent_date', t.end_rent_date::text) AS tenancy,
          (SELECT jsonb_agg(jsonb_build_object('kind', d.kind, 'state', d.state, 'sha256', d.sha256,
                                               'document_id', CASE WHEN d.state = 'stored' THEN d.id END,
                                               'size_bytes', d.size_bytes, 'failure_reason', d.failure_reason))
             FROM documents d
            WHERE d.tenancy_id = t.id OR (d.user_id = u.id AND d.kind <> 'agreement')) AS documents
     FROM sessions s
     JOIN users u ON u.id = s.user_id
     JOIN tenancies t ON t.id = s.tenancy_id
    WHERE s.id = $1 AND s.integrator_id = $2`,
);

const CLIENT_CONTEXT_ROW = Col.row({
  token_hash: Col.text,
  session: SESSION_JSON,
  integrator: INTEGRATOR_JSON,
  usr: Col.row({ external_id: Col.int, email: Col.text, first_name: Col.text, last_name: Col.text }),
  tenancy: Col.row({
    payment_reference: Col.text,
    address_1: Col.text,
    city: Col.text,
    post_code: Col.text,
    country: Col.text,
    amount_pence: Col.int,
    frequency: Col.text,
    rent_due_day: Col.int,
    start_rent_date: Col.text,
    end_rent_date: Col.text,
    installment_plan: INSTALLMENT_PLAN_COLUMN,
    recipient_bank_account_name: Col.text,
  }),
});
type ClientContextRow = Static<typeof CLIENT_CONTEXT_ROW>;

const CLIENT_CONTEXT = sqlStatement(
  CLIENT_CONTEXT_ROW,
  // Each session's rows by their keys (the foreign keys guarantee them): a join would be planned for a batch of
  // the function's default 100 rows, a hash join that reads every user.
  `SELECT s.token_hash, to_jsonb(s) AS session,
          (SELECT to_jsonb(i) FROM integrators i WHERE i.id = s.integrator_id) AS integrator,
          (SELECT jsonb_build_object('external_id', u.external_id, 'email', u.email, 'first_name', u.first_name,
                                     'last_name', u.last_name)
             FROM users u WHERE u.id = s.user_id) AS usr,
          (SELECT to_jsonb(t) || jsonb_build_object('start_rent_date', t.start_rent_date::text,
                                                    'end_rent_date', t.end_rent_date::text)
             FROM tenancies t WHERE t.id = s.tenancy_id) AS tenancy
     FROM sessions s
    WHERE s.token_hash = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))`,
  { prepare: 'client-context' },
);

export class SessionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly tokenTtlSeconds: number,
    private readonly sessionTtlSeconds: number,
  ) {}

  /**
   * user-login: one round trip finds the user and the tenancy to pay for and, when both are fit, creates the
   * session. The token is returned once and stored as its hash. Logins made in the same turn of the event loop share
   * that round trip (one statement, one commit), each answered once its session is committed.
   */
  async login(
    integratorId: string,
    email: string,
    paymentReference: string | undefined,
    amount: SessionAmount = { purePence: null, editable: true },
  ): Promise<LoginResult> {
    checkLoginText(email, paymentReference);
    const now = this.clock.now();
    const token = `${USER_SESSION_TOKEN_PREFIX}${randomBase62(USER_SESSION_TOKEN_LENGTH)}`;
    const sessionId = newId('ses');
    const tokenExpiresAt = new Date(now.getTime() + this.tokenTtlSeconds * 1000);
    const sessionExpiresAt = new Date(now.getTime() + this.sessionTtlSeconds * 1000);
    const found = await this.#logins.run({
      integrator_id: integratorId,
      email_key: email.toLowerCase(),
      payment_reference: paymentReference ?? null,
      session_id: sessionId,
      token_hash: hashToken(token),
      token_expires_at: tokenExpiresAt.toISOString(),
      expires_at: sessionExpiresAt.toISOString(),
      created_at: now.toISOString(),
      pure_amount_pence: amount.purePence,
      amount_editable: amount.editable,
    });
    if (!found.user_id)
      throw new ServiceError('not_found', 'No user with this email. Onboard the user first.');
    if (!found.tenancy_id) {
      if (paymentReference !== undefined) {
        throw new ServiceError(
          'not_found',
          `This user has no tenancy with payment_reference "${paymentReference}". Send one this user was onboarded ` +
            "with, or leave payment_reference out to use the user's active tenancy.",
        );
      }
      throw new ServiceError(
        'no_active_tenancy',
        'This user has no active tenancy to pay rent for. Onboard a new tenancy with "is_active": true for this ' +
          "user; an existing tenancy's is_active cannot be changed.",
      );
    }
    if (!found.created) {
      throw new ServiceError(
        'no_active_tenancy',
        `The tenancy "${paymentReference}" is not active. Send the payment_reference of an active tenancy, or leave ` +
          "it out to use the user's active tenancy.",
      );
    }
    return { token, sessionId, tokenExpiresAt, sessionExpiresAt };
  }

  readonly #logins = new StatementBatcher<LoginInput, LoginFound>(
    async (inputs) => {
      loginMetrics.batchSize.observe(inputs.length);
      const rows = await LOGIN.rows(this.db, [inputs.map((input, n) => ({ n, ...input }))]);
      const byN = new Map(rows.map((row) => [row.n, row]));
      return inputs.map((_, n) => byN.get(n) ?? { user_id: null, tenancy_id: null, created: false });
    },
    { splits: (error) => !isDatabaseUnavailable(error), onSplit: () => loginMetrics.splits.inc() },
  );

  /** The session with its user, tenancy and documents, if it belongs to this integrator. */
  async detail(integratorId: string, sessionId: string): Promise<SessionDetail | undefined> {
    const row = await DETAIL.first(this.db, [sessionId, integratorId]);
    if (!row) return undefined;
    return {
      session: sessionFromJson(row.session),
      user: row.usr,
      tenancy: row.tenancy,
      documents: row.documents ?? [],
    };
  }

  /**
   * Keeps a tenant signed in: the token lives another token lifetime from now, never past its session's own end. The
   * session's end is fixed at login, so after it only a new login (user-login) pays.
   */
  async extendToken(sessionId: string): Promise<{ token_expires_at: Date; expires_at: Date }> {
    const now = this.clock.now();
    const extended = new Date(now.getTime() + this.tokenTtlSeconds * 1000);
    const row = await firstRow(
      this.db,
      qb
        .updateTable('sessions')
        .set((eb) => ({
          token_expires_at: eb.fn<Date>('greatest', [
            'token_expires_at',
            eb.fn<Date>('least', [eb.cast<Date>(eb.val(extended), 'timestamptz'), 'expires_at']),
          ]),
        }))
        .where('id', '=', sessionId)
        .returning(['token_expires_at', 'expires_at']),
    );
    if (!row) throw invalidSession();
    return { token_expires_at: new Date(row.token_expires_at), expires_at: new Date(row.expires_at) };
  }

  /** The Client API's requests of one turn of the event loop find their sessions in one statement. */
  readonly #clientContexts = new StatementBatcher<string, ClientContextRow | undefined>(
    async (hashes) => {
      const found = await CLIENT_CONTEXT.rows(this.db, [hashes]);
      const byHash = new Map(found.map((row) => [row.token_hash, row]));
      return hashes.map((hash) => byHash.get(hash));
    },
    { splits: (error) => !isDatabaseUnavailable(error), maxInFlight: 2 },
  );

  /** Client API authentication: a live user session token, with what the page needs to render. */
  async authenticateClient(token: string): Promise<ClientContext> {
    // A token no login could have issued is not looked up.
    if (!isUserSessionTokenShaped(token)) throw invalidSession();
    const row = await this.#clientContexts.run(hashToken(token));
    if (!row) throw invalidSession();
    const session = sessionFromJson(row.session);
    const now = this.clock.now().getTime();
    if (session.token_expires_at.getTime() <= now || session.expires_at.getTime() <= now) {
      throw new ServiceError(
        'session_expired',
        'This payment session has expired. Log in again (user-login).',
      );
    }
    return {
      session,
      integrator: integratorFromJson(row.integrator),
      user: row.usr,
      tenancy: row.tenancy,
    };
  }
}

function invalidSession(): ServiceError {
  return new ServiceError('session_expired', 'This payment session is not valid. Log in again (user-login).');
}
