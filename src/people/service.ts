import type { Selectable } from 'kysely';
import { type Actor, requirePermission } from '../audit/actor.ts';
import { OPERATOR_SCOPE, recordAudit } from '../audit/log.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import type { DashboardUsersTable } from '../platform/db/tables.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { newId, randomBase62, sha256Hex } from '../platform/ids.ts';
import { INTEGRATOR_ROLES, OPERATOR_ROLES, type Role } from '../shared/roles.ts';
import type { DashboardSessions } from './sessions.ts';

/** How long an invite's set-up link works. */
export const INVITE_TTL_MS = 72 * 3_600_000;
export const INVITE_TOKEN_PREFIX = 'rpi_';

export type DashboardUserStatus = 'invited' | 'active' | 'removed';

/** A person of a team as the CLI and the dashboard show them (never a secret). */
export interface DashboardUser {
  id: string;
  integrator_id: string | null;
  email: string;
  role: Role;
  status: DashboardUserStatus;
  created_at: Date;
}

/** A team: an integrator's (its id), or the operator's staff (null). */
export type Team = string | null;

type UserRow = Selectable<DashboardUsersTable>;

function personOf(row: UserRow): DashboardUser {
  return {
    id: row.id,
    integrator_id: row.integrator_id,
    email: row.email,
    role: row.role,
    status: row.removed_at !== null ? 'removed' : row.password_hash === null ? 'invited' : 'active',
    created_at: row.created_at,
  };
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]{1,190}\.[^\s@]{2,63}$/;

/**
 * The people of each team: invites (a one-time set-up link), roles and removal. Each change needs `team.manage`,
 * stays within the actor's own team (a person of one integrator never sees another's), and is audited.
 */
export class PeopleService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly publicUrl: string,
    private readonly sessions: DashboardSessions,
  ) {}

  /**
   * Invites `email` to `team` with `role`: the person, and a link to set up their sign-in (72 hours, once). Inviting
   * again someone who has not set up yet gives a new link (and role) and ends the old link.
   */
  async invite(
    actor: Actor,
    input: { team: Team; email: string; role: string },
  ): Promise<{ user: DashboardUser; link: string; expiresAt: Date }> {
    requirePermission(actor, 'team.manage');
    this.#checkTeam(actor, input.team);
    const email = input.email.trim();
    if (!EMAIL.test(email)) throw new FieldValidationError({ email: ['Enter a valid email address.'] });
    const role = roleFor(input.team, input.role);
    const now = this.clock.now();
    const token = `${INVITE_TOKEN_PREFIX}${randomBase62(40)}`;
    const expiresAt = new Date(now.getTime() + INVITE_TTL_MS);
    const user = await this.db.transaction(async (tx) => {
      if (input.team !== null) {
        const integrator = await firstRow(
          tx,
          qb.selectFrom('integrators').select('id').where('id', '=', input.team),
        );
        if (!integrator) throw new ServiceError('not_found', `No integrator ${input.team}.`);
      }
      const existing = await firstRow(
        tx,
        qb
          .selectFrom('dashboard_users')
          .selectAll()
          .where('email_key', '=', email.toLowerCase())
          .where('removed_at', 'is', null)
          .forUpdate(),
      );
      if (existing && (existing.integrator_id !== input.team || existing.password_hash !== null)) {
        throw new ServiceError(
          'conflict',
          existing.integrator_id === input.team
            ? `${email} is in this team already (${existing.id}); change their role instead.`
            : `${email} belongs to another team; a person is in one team at a time.`,
        );
      }
      const row =
        existing === undefined
          ? await firstRow(
              tx,
              qb
                .insertInto('dashboard_users')
                .values({
                  id: newId('dus'),
                  integrator_id: input.team,
                  email,
                  email_key: email.toLowerCase(),
                  role,
                  created_at: now,
                  updated_at: now,
                })
                .returningAll(),
            )
          : await firstRow(
              tx,
              qb
                .updateTable('dashboard_users')
                .set({ role, updated_at: now })
                .where('id', '=', existing.id)
                .returningAll(),
            );
      await endInvites(tx, row!.id, now);
      await tx.query(
        `INSERT INTO dashboard_invites (id, user_id, token_hash, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)`,
        [newId('inv'), row!.id, sha256Hex(token), expiresAt, now],
      );
      await recordAudit(tx, this.clock, actor, {
        scope: input.team ?? OPERATOR_SCOPE,
        action: 'team.invite',
        target: { type: 'dashboard_user', id: row!.id },
        after: { email, role },
      });
      return personOf(row!);
    });
    return { user, link: `${this.publicUrl}/dashboard/setup#invite=${token}`, expiresAt };
  }

  /** A team's people (removed ones too, for the record), oldest first. */
  async list(actor: Actor, team: Team): Promise<DashboardUser[]> {
    requirePermission(actor, 'team.manage');
    this.#checkTeam(actor, team);
    const found = await rows(
      this.db,
      qb
        .selectFrom('dashboard_users')
        .selectAll()
        .where((eb) => (team === null ? eb('integrator_id', 'is', null) : eb('integrator_id', '=', team)))
        .orderBy('created_at')
        .orderBy('id'),
    );
    return found.map(personOf);
  }

  /** Gives a person another role of their team. A team always keeps an admin. */
  async setRole(actor: Actor, userId: string, role: string): Promise<DashboardUser> {
    requirePermission(actor, 'team.manage');
    return this.db.transaction(async (tx) => {
      const current = await this.#lockPerson(tx, actor, userId);
      const next = roleFor(current.integrator_id, role);
      if (next === current.role) return personOf(current);
      await checkAdminKept(tx, current);
      const row = await firstRow(
        tx,
        qb
          .updateTable('dashboard_users')
          .set({ role: next, updated_at: this.clock.now() })
          .where('id', '=', userId)
          .returningAll(),
      );
      await recordAudit(tx, this.clock, actor, {
        scope: current.integrator_id ?? OPERATOR_SCOPE,
        action: 'team.set_role',
        target: { type: 'dashboard_user', id: userId },
        before: { email: current.email, role: current.role },
        after: { email: current.email, role: next },
      });
      return personOf(row!);
    });
  }

  /** Removes a person from their team: their invites end. A team always keeps an admin. */
  async remove(actor: Actor, userId: string): Promise<DashboardUser> {
    requirePermission(actor, 'team.manage');
    return this.db.transaction(async (tx) => {
      const current = await this.#lockPerson(tx, actor, userId);
      await checkAdminKept(tx, current);
      const now = this.clock.now();
      const row = await firstRow(
        tx,
        qb
          .updateTable('dashboard_users')
          .set({ removed_at: now, updated_at: now })
          .where('id', '=', userId)
          .returningAll(),
      );
      await endInvites(tx, userId, now);
      await this.sessions.endAll(userId, tx);
      await recordAudit(tx, this.clock, actor, {
        scope: current.integrator_id ?? OPERATOR_SCOPE,
        action: 'team.remove',
        target: { type: 'dashboard_user', id: userId },
        before: { email: current.email, role: current.role },
      });
      return personOf(row!);
    });
  }

  /** A person of the actor's team (a person of another team is unknown to them), locked; not a removed one. */
  async #lockPerson(tx: Queryable, actor: Actor, userId: string): Promise<UserRow> {
    const row = await firstRow(
      tx,
      qb
        .selectFrom('dashboard_users')
        .selectAll()
        .where('id', '=', userId)
        .where('removed_at', 'is', null)
        .forUpdate(),
    );
    const visible =
      row !== undefined && (actor.kind !== 'dashboard_user' || actor.integratorId === row.integrator_id);
    if (!visible) throw new ServiceError('not_found', `No person ${userId} in this team.`);
    return row;
  }

  /** A person of the dashboard acts on their own team only. */
  #checkTeam(actor: Actor, team: Team): void {
    if (actor.kind === 'dashboard_user' && actor.integratorId !== team) {
      throw new ServiceError('forbidden', 'You can manage the people of your own team only.');
    }
  }
}

/** The role, if it is one of the team's kind (an integrator's roles, or the operator's staff roles). */
function roleFor(team: Team, role: string): Role {
  const allowed: readonly string[] = team === null ? OPERATOR_ROLES : INTEGRATOR_ROLES;
  if (!allowed.includes(role)) {
    throw new FieldValidationError({ role: [`Choose one of: ${allowed.join(', ')}.`] });
  }
  return role as Role;
}

/** Refuses to take away the last admin of a team (of the operator's staff: the last operator_admin). */
async function checkAdminKept(tx: Queryable, person: UserRow): Promise<void> {
  const adminRole = person.integrator_id === null ? 'operator_admin' : 'admin';
  if (person.role !== adminRole) return;
  const others = await firstRow(
    tx,
    qb
      .selectFrom('dashboard_users')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where((eb) =>
        person.integrator_id === null
          ? eb('integrator_id', 'is', null)
          : eb('integrator_id', '=', person.integrator_id),
      )
      .where('role', '=', adminRole)
      .where('removed_at', 'is', null)
      .where('id', '<>', person.id),
  );
  if (Number(others?.n ?? 0) === 0) {
    throw new ServiceError(
      'conflict',
      `${person.email} is the team's only ${adminRole}; make someone else ${adminRole} first.`,
    );
  }
}

async function endInvites(tx: Queryable, userId: string, now: Date): Promise<void> {
  await tx.query(
    'UPDATE dashboard_invites SET expires_at = $2 WHERE user_id = $1 AND used_at IS NULL AND expires_at > $2',
    [userId, now],
  );
}
