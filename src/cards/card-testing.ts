import type { Selectable } from 'kysely';
import type { Queryable } from '../platform/db/db.ts';
import { qb, rows } from '../platform/db/query-builder.ts';
import type { CardDeclinesTable } from '../platform/db/tables.ts';
import { ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { PaymentMethod } from '../shared/vocabulary.ts';

/**
 * Card-testing limits: a stolen-card list tried through one session, or one tenant, stops after a few issuer
 * declines. Counted in the database, so every node sees the same count.
 */
export const SESSION_DECLINE_LIMIT = 5;
export const USER_DECLINE_LIMIT = 10;
export const USER_DECLINE_WINDOW_MS = 24 * 60 * 60 * 1000;

/** Refusals that are not the issuer's answer about the card: 3DS not passed, or a card that needs it off-session. */
const NOT_ISSUER_DECLINES: ReadonlySet<string> = new Set([
  'authentication_failed',
  'authentication_required',
]);

/**
 * Whether a refusal counts as an issuer decline: a card (new or saved) refused for anything but authentication.
 * Wallet and APM refusals are the customer's "Fail" at the provider and do not count.
 */
export function isIssuerDecline(method: PaymentMethod, code: string): boolean {
  return method === 'card' && !NOT_ISSUER_DECLINES.has(code);
}

/**
 * Whether an attempt counts against the card-testing limits: a card (new or saved), or with Stripe a UnionPay
 * card (`unionpay` there is a card brand; in the sandbox it is a provider's page and has no card).
 */
export function isCardAttempt(method: PaymentMethod, card: { brand: string | null } | null): boolean {
  return method === 'card' || (method === 'unionpay' && card !== null);
}

export type DeclineRecord = Pick<Selectable<CardDeclinesTable>, 'session_id' | 'created_at'>;

export interface DeclineBlock {
  scope: 'session' | 'user';
  /** Whole seconds until an attempt may be made again (at least 1). */
  retryAfterSeconds: number;
}

/**
 * Whether another attempt is refused, given the user's declines of the last 24 h (any order): the session's
 * limit holds until the session expires, the user's until enough of the oldest declines are 24 h old. When
 * both are reached, the later of the two is what the caller must wait for.
 */
export function declineBlock(
  declines: readonly DeclineRecord[],
  session: { id: string; expires_at: Date },
  now: Date,
): DeclineBlock | undefined {
  const nowMs = now.getTime();
  const times = declines
    .map((d) => ({ session: d.session_id, at: new Date(d.created_at).getTime() }))
    .filter((d) => d.at > nowMs - USER_DECLINE_WINDOW_MS)
    .sort((a, b) => a.at - b.at);
  const blocks: DeclineBlock[] = [];
  if (times.filter((d) => d.session === session.id).length >= SESSION_DECLINE_LIMIT) {
    blocks.push({
      scope: 'session',
      retryAfterSeconds: secondsUntil(new Date(session.expires_at).getTime(), nowMs),
    });
  }
  if (times.length >= USER_DECLINE_LIMIT) {
    // Attempts open again once the count in the window falls below the limit: when this one leaves it.
    const freeing = times[times.length - USER_DECLINE_LIMIT]!;
    blocks.push({
      scope: 'user',
      retryAfterSeconds: secondsUntil(freeing.at + USER_DECLINE_WINDOW_MS, nowMs),
    });
  }
  return blocks.sort((a, b) => b.retryAfterSeconds - a.retryAfterSeconds)[0];
}

function secondsUntil(atMs: number, nowMs: number): number {
  return Math.max(1, Math.ceil((atMs - nowMs) / 1000));
}

export interface DeclineOwner {
  integratorId: string;
  userId: string;
  sessionId: string;
}

export function declineOwner(client: {
  session: { id: string; integrator_id: string; user_id: string };
}): DeclineOwner {
  const { session } = client;
  return { integratorId: session.integrator_id, userId: session.user_id, sessionId: session.id };
}

/** 429 too_many_attempts, before anything is sent to the processor, once a decline limit is reached. */
export async function assertCardAttemptsLeft(
  db: Queryable,
  owner: DeclineOwner,
  session: { id: string; expires_at: Date },
  now: Date,
): Promise<void> {
  // Pending rows are attempts still with the processor: counted, so concurrent attempts cannot all get through.
  const declines = await rows(
    db,
    qb
      .selectFrom('card_declines')
      .select(['session_id', 'created_at'])
      .where('user_id', '=', owner.userId)
      .where('created_at', '>', new Date(now.getTime() - USER_DECLINE_WINDOW_MS)),
    { prepare: 'card-declines' },
  );
  const block = declineBlock(declines, session, now);
  if (block) throw tooManyAttempts(block);
}

/** 429 too_many_attempts for a decline limit reached, with how long to wait. */
export function tooManyAttempts(block: DeclineBlock): ServiceError {
  return new ServiceError(
    'too_many_attempts',
    block.scope === 'session'
      ? `Too many declined cards in this payment session (${SESSION_DECLINE_LIMIT}); it takes no more payment ` +
          'attempts. Start a new payment session to try again.'
      : `Too many declined cards for this tenant in 24 hours (${USER_DECLINE_LIMIT}); try again after ` +
          `${block.retryAfterSeconds} s.`,
    { 'retry-after': String(block.retryAfterSeconds) },
  );
}

/**
 * Checks the limits and counts this card attempt (`source`: a payment id, or a card save) as pending, in `tx`
 * with the user's row locked: attempts of one user, in any session and on any node, take turns here, and each
 * sees the ones before it. Call before the processor is asked; `settleCardAttempt` once it has answered.
 */
export async function reserveCardAttempt(
  tx: Queryable,
  owner: DeclineOwner,
  session: { id: string; expires_at: Date },
  source: string,
  now: Date,
): Promise<void> {
  await tx.query('SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE', [owner.userId]);
  await assertCardAttemptsLeft(tx, owner, session, now);
  await tx.query(
    `INSERT INTO card_declines (id, integrator_id, user_id, session_id, source, created_at, pending)
     VALUES ($1, $2, $3, $4, $5, $6, true)`,
    [newId('dcl'), owner.integratorId, owner.userId, owner.sessionId, source, now],
  );
}

/**
 * reserveCardAttempt for a caller whose own statement writes the attempts with its rows (the new payments): the text
 * of a data-modifying CTE body that counts each row of `from` as a pending decline. Each argument is an SQL expression
 * over that row (or a parameter); the caller has locked the users' rows and checked the limits first.
 */
export function reserveCardAttemptsSql(columns: {
  from: string;
  id: string;
  integratorId: string;
  userId: string;
  sessionId: string;
  source: string;
  now: string;
  /** Still pending (the processor has not answered); false: an issuer's decline, kept as of now. */
  pending?: string;
}): string {
  const { from, id, integratorId, userId, sessionId, source, now, pending = 'true' } = columns;
  return `INSERT INTO card_declines (id, integrator_id, user_id, session_id, source, created_at, pending)
     SELECT ${id}, ${integratorId}, ${userId}, ${sessionId}, ${source}, ${now}, ${pending} FROM ${from}
     RETURNING id`;
}

/** The processor answered: an issuer decline keeps the attempt's row (as of now), anything else removes it. */
export async function settleCardAttempt(
  db: Queryable,
  source: string,
  declined: boolean,
  now: Date,
): Promise<void> {
  await settleCardAttempts(db, [{ source, declined }], now);
}

/** settleCardAttempt for several answered attempts, in one statement. */
export async function settleCardAttempts(
  db: Queryable,
  attempts: readonly { source: string; declined: boolean }[],
  now: Date,
): Promise<void> {
  if (attempts.length === 0) return;
  await db.query(
    `WITH x AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(source text, declined boolean)),
     kept AS (
       UPDATE card_declines c SET pending = false, created_at = $2
         FROM x WHERE c.source = x.source AND x.declined AND c.pending
       RETURNING c.id)
     DELETE FROM card_declines c USING x WHERE c.source = x.source AND NOT x.declined AND c.pending`,
    [attempts as { source: string; declined: boolean }[], now],
    { prepare: 'settle-card-attempts' },
  );
}
