import type { Clock } from '../platform/clock/clock.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { newestFirstPage } from '../platform/db/pages.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import { ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { type Actor, actorRecord, actsForOperator, requirePermission } from './actor.ts';
import { type ChainBreak, type ChainedEntry, ChainWalk, entryHash, GENESIS_HASH } from './chain.ts';

/** The chain of the operator's own actions (payout runs, …); every integrator has its own, named by its id. */
export const OPERATOR_SCOPE = 'operator';

/** A change to money, credentials or settings, as one audit entry records it. */
export interface AuditChange {
  /** The integrator whose chain records it, or OPERATOR_SCOPE. */
  scope: string;
  /** What was done, as `<thing>.<verb>`: `payment.refund`, `server_token.rotate`, … */
  action: string;
  target: { type: string; id: string };
  /** A summary of what changed (never a secret): the fields it changed, before and after. */
  before?: Record<string, unknown> | undefined;
  after?: Record<string, unknown> | undefined;
}

export interface AuditEntry extends ChainedEntry {
  hash: string;
}

/** Locks the chain's head (made on its first entry) until the change's transaction ends: entries of a chain queue. */
const LOCK_HEAD = sqlStatement(
  Col.row({ seq: Col.int, hash: Col.text }),
  `INSERT INTO audit_heads AS h (scope, seq, hash) VALUES ($1, 0, $2)
   ON CONFLICT (scope) DO UPDATE SET scope = h.scope
   RETURNING h.seq::int AS seq, h.hash`,
  { prepare: 'audit-lock-head' },
);

/**
 * Appends the change to its scope's chain. Call it inside the transaction that makes the change: the entry is
 * committed with the change or not at all, and the chain's head stays locked until then.
 */
export async function recordAudit(
  tx: Queryable,
  clock: Clock,
  actor: Actor,
  change: AuditChange,
): Promise<AuditEntry> {
  const head = (await LOCK_HEAD.first(tx, [change.scope, GENESIS_HASH]))!;
  const content: ChainedEntry = {
    id: newId('aud'),
    scope: change.scope,
    seq: head.seq + 1,
    created_at: clock.now(),
    actor: actorRecord(actor),
    action: change.action,
    target_type: change.target.type,
    target_id: change.target.id,
    // As the database will give it back (dates as ISO strings, no undefined), so the hash verifies later.
    summary: JSON.parse(JSON.stringify({ before: change.before ?? null, after: change.after ?? null })),
    address: actor.address ?? null,
    request_id: actor.requestId ?? null,
    prev_hash: head.hash,
  };
  const entry = { ...content, hash: entryHash(content) };
  await tx.query(
    `WITH entry AS (
       INSERT INTO audit_log (id, scope, seq, created_at, actor, action, target_type, target_id, summary, address,
                              request_id, prev_hash, hash)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13))
     UPDATE audit_heads SET seq = $3, hash = $13 WHERE scope = $2`,
    [
      entry.id,
      entry.scope,
      entry.seq,
      entry.created_at,
      JSON.stringify(entry.actor),
      entry.action,
      entry.target_type,
      entry.target_id,
      JSON.stringify(entry.summary),
      entry.address,
      entry.request_id,
      entry.prev_hash,
      entry.hash,
    ],
  );
  return entry;
}

function entries() {
  return qb
    .selectFrom('audit_log')
    .select([
      'id',
      'scope',
      'seq',
      'created_at',
      'actor',
      'action',
      'target_type',
      'target_id',
      'summary',
      'address',
      'request_id',
      'prev_hash',
      'hash',
    ]);
}

/** A chain's entries, newest first, starting right after the entry `startingAfter` when given. */
export async function listAudit(
  db: Queryable,
  scope: string,
  page: { limit: number; startingAfter?: string | undefined },
): Promise<{ data: AuditEntry[]; has_more: boolean }> {
  let query = entries().where('scope', '=', scope);
  if (page.startingAfter !== undefined) {
    const cursor = await firstRow(
      db,
      qb
        .selectFrom('audit_log')
        .select('seq')
        .where('id', '=', page.startingAfter)
        .where('scope', '=', scope),
    );
    if (!cursor) {
      throw new ServiceError(
        'invalid_request',
        `Invalid querystring: starting_after: No audit entry ${page.startingAfter}. Pass the audit_entry_id of the last entry of the page you have.`,
      );
    }
    query = query.where('seq', '<', cursor.seq);
  }
  const found = await rows(db, query.orderBy('seq', 'desc').limit(page.limit + 1));
  return { data: found.slice(0, page.limit), has_more: found.length > page.limit };
}

/** What the whole log may be narrowed to: one chain (an integrator's id, or OPERATOR_SCOPE) and one action. */
export interface AuditFilter {
  limit: number;
  startingAfter?: string | undefined;
  scope?: string | undefined;
  action?: string | undefined;
}

/**
 * Every chain's entries at once, newest first by time (then id), starting right after the entry `startingAfter`
 * (which must be one the filter lists).
 */
export async function listWholeAudit(
  db: Queryable,
  filter: AuditFilter,
): Promise<{ data: AuditEntry[]; has_more: boolean }> {
  let query = entries();
  if (filter.scope !== undefined) query = query.where('scope', '=', filter.scope);
  if (filter.action !== undefined) query = query.where('action', '=', filter.action);
  if (filter.startingAfter !== undefined) {
    const cursor = await firstRow(
      db,
      query.clearSelect().select('id').where('id', '=', filter.startingAfter),
    );
    if (!cursor) {
      throw new ServiceError(
        'invalid_request',
        `Invalid querystring: starting_after: No audit entry ${filter.startingAfter} in this list. Pass the audit_entry_id of the last entry of the page you have, with the same filters.`,
      );
    }
  }
  const page = await newestFirstPage(db, query, {
    table: 'audit_log',
    alias: 'audit_log',
    limit: filter.limit,
    startingAfter: filter.startingAfter,
  });
  return { data: page.rows, has_more: page.has_more };
}

export interface ChainReport {
  scope: string;
  entries: number;
  head: string;
}

const VERIFY_BATCH = 1_000;

/**
 * Checks every chain from its first entry to its head: `broken` names the first place one does not hold (by scope,
 * in scope order). Reads in batches, so a long log is never held in memory at once.
 */
export async function verifyAudit(
  db: Db,
): Promise<{ chains: ChainReport[]; broken?: ChainBreak & { scope: string } }> {
  const scopes = await rows(
    db,
    qb
      .selectFrom('audit_log')
      .select('scope')
      .union(qb.selectFrom('audit_heads').select('scope'))
      .orderBy('scope'),
  );
  const heads = new Map(
    (await rows(db, qb.selectFrom('audit_heads').select(['scope', 'seq', 'hash']))).map((h) => [h.scope, h]),
  );
  const chains: ChainReport[] = [];
  for (const { scope } of scopes) {
    const head = heads.get(scope);
    const walk = new ChainWalk();
    let after = 0;
    for (;;) {
      const batch = await rows(
        db,
        entries().where('scope', '=', scope).where('seq', '>', after).orderBy('seq').limit(VERIFY_BATCH),
      );
      if (!batch.every((entry) => walk.add(entry)) || batch.length < VERIFY_BATCH) break;
      after = batch[batch.length - 1]!.seq;
    }
    const broken = walk.end(head);
    if (broken) return { chains, broken: { ...broken, scope } };
    chains.push({ scope, entries: walk.entries, head: head?.hash ?? GENESIS_HASH });
  }
  return { chains };
}

/** The audit log as routes and the CLI read it; changes record their entries with recordAudit in their own transaction. */
export class AuditService {
  constructor(private readonly db: Db) {}

  /** A chain's entries, newest first, for an actor who may read the audit log. */
  list(actor: Actor, scope: string, page: { limit: number; startingAfter?: string | undefined }) {
    requirePermission(actor, 'audit.read');
    return listAudit(this.db, scope, page);
  }

  /** The whole log, every integrator's chain and the operator's, for the operator's staff who may read it. */
  listAll(actor: Actor, filter: AuditFilter) {
    requirePermission(actor, 'audit.read');
    if (!actsForOperator(actor)) {
      throw new ServiceError(
        'forbidden',
        'The whole audit log is for the operator’s staff; a platform’s admins read their own (GET /audit-log/).',
      );
    }
    return listWholeAudit(this.db, filter);
  }

  verify() {
    return verifyAudit(this.db);
  }
}
