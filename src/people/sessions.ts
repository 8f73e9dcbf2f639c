import type { Selectable } from 'kysely';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import type { DashboardSessionsTable } from '../platform/db/tables.ts';
import { newId, randomBase62, sha256Hex } from '../platform/ids.ts';
import type { Role } from '../shared/roles.ts';

/** A session ends after this long without a request… */
export const SESSION_IDLE_MS = 30 * 60_000;
/** …and this long after signing in, however busy. */
export const SESSION_ABSOLUTE_MS = 12 * 3_600_000;
/** last_seen_at is written at most this often: a page's every request need not be a write. */
const TOUCH_EVERY_MS = 60_000;
export const SESSION_TOKEN_PREFIX = 'rds_';

export type SecondFactor = DashboardSessionsTable['second_factor'];
type SessionRow = Selectable<DashboardSessionsTable>;

/** An open session and who it signs in. */
export interface SignedIn {
  session: {
    id: string;
    csrfToken: string;
    secondFactor: SecondFactor;
    createdAt: Date;
    /** When it ends at the latest (12 hours after signing in)… */
    expiresAt: Date;
    /** …and when it ends unless used again. */
    idleExpiresAt: Date;
  };
  person: { id: string; email: string; role: Role; integratorId: string | null };
}

/** The cookie's value (shown once, stored as SHA-256) and the session's CSRF token. */
export interface NewSession {
  token: string;
  csrfToken: string;
  session: SessionRow;
}

/** Server-side sessions of people signed in to the dashboard: made at sign-in, read per request, ended at sign-out. */
export class DashboardSessions {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Opens a session for the person (in the sign-in's transaction). */
  async open(
    tx: Queryable,
    userId: string,
    factor: SecondFactor,
    address: string | undefined,
  ): Promise<NewSession> {
    const now = this.clock.now();
    const token = `${SESSION_TOKEN_PREFIX}${randomBase62(40)}`;
    const csrfToken = randomBase62(32);
    const session = await firstRow(
      tx,
      qb
        .insertInto('dashboard_sessions')
        .values({
          id: newId('dss'),
          user_id: userId,
          token_hash: sha256Hex(token),
          csrf_token: csrfToken,
          second_factor: factor,
          address: address ?? null,
          created_at: now,
          last_seen_at: now,
          expires_at: new Date(now.getTime() + SESSION_ABSOLUTE_MS),
        })
        .returningAll(),
    );
    return { token, csrfToken, session: session! };
  }

  /**
   * The session a cookie names and its person, if it is still open: not ended, used within 30 minutes, under 12
   * hours old, its person not removed. `expired` says a real session ran out (rather than an unknown token).
   */
  async resolve(token: string): Promise<SignedIn | { expired: boolean }> {
    if (!token.startsWith(SESSION_TOKEN_PREFIX)) return { expired: false };
    const found = await firstRow(
      this.db,
      qb
        .selectFrom('dashboard_sessions as s')
        .innerJoin('dashboard_users as u', 'u.id', 's.user_id')
        .select([
          's.id',
          's.csrf_token',
          's.second_factor',
          's.created_at',
          's.last_seen_at',
          's.expires_at',
          's.ended_at',
          'u.id as user_id',
          'u.email',
          'u.role',
          'u.integrator_id',
          'u.removed_at',
        ])
        .where('s.token_hash', '=', sha256Hex(token)),
    );
    if (!found) return { expired: false };
    const now = this.clock.now().getTime();
    if (found.ended_at !== null || found.removed_at !== null) return { expired: true };
    if (now >= found.last_seen_at.getTime() + SESSION_IDLE_MS || now >= found.expires_at.getTime()) {
      await this.end(found.id);
      return { expired: true };
    }
    let lastSeenAt = found.last_seen_at;
    if (now - lastSeenAt.getTime() >= TOUCH_EVERY_MS) {
      lastSeenAt = new Date(now);
      await this.db.query(
        'UPDATE dashboard_sessions SET last_seen_at = $2 WHERE id = $1 AND ended_at IS NULL',
        [found.id, lastSeenAt],
      );
    }
    return {
      session: {
        id: found.id,
        csrfToken: found.csrf_token,
        secondFactor: found.second_factor,
        createdAt: found.created_at,
        expiresAt: found.expires_at,
        idleExpiresAt: new Date(lastSeenAt.getTime() + SESSION_IDLE_MS),
      },
      person: { id: found.user_id, email: found.email, role: found.role, integratorId: found.integrator_id },
    };
  }

  async end(sessionId: string): Promise<void> {
    await this.db.query('UPDATE dashboard_sessions SET ended_at = $2 WHERE id = $1 AND ended_at IS NULL', [
      sessionId,
      this.clock.now(),
    ]);
  }

  /** Ends every open session of the person (sign-out everywhere; removal from the team). */
  async endAll(userId: string, tx: Queryable = this.db): Promise<number> {
    const ended = await tx.query(
      'UPDATE dashboard_sessions SET ended_at = $2 WHERE user_id = $1 AND ended_at IS NULL RETURNING id',
      [userId, this.clock.now()],
    );
    return ended.length;
  }
}
