import { ServiceError } from '../platform/errors.ts';
import { can, type Permission, type Role } from '../shared/roles.ts';

/**
 * Who did something, as the audit log records it: a person signed in to the dashboard, an integrator's server token,
 * a tenant on the payment page (their own schedules), the operator token (through the Operator API or the CLI), the CLI on the database itself, or rentpay's own jobs.
 * `address` and `requestId` say where the request came from.
 */
export type Actor = (
  | { kind: 'server_token'; integratorId: string; tokenId: string }
  | { kind: 'operator_token'; via: 'api' | 'cli' }
  | { kind: 'dashboard_user'; userId: string; email: string; role: Role; integratorId: string | null }
  | { kind: 'cli'; osUser: string }
  | { kind: 'tenant'; userId: string; sessionId: string }
  | { kind: 'system' }
) & { address?: string | undefined; requestId?: string | undefined };

/** The actor as an audit entry stores it: the fields that say who, without where. */
export function actorRecord(actor: Actor): Record<string, string | null> {
  switch (actor.kind) {
    case 'server_token':
      return { kind: actor.kind, integrator_id: actor.integratorId, token_id: actor.tokenId };
    case 'operator_token':
      return { kind: actor.kind, via: actor.via };
    case 'dashboard_user':
      return {
        kind: actor.kind,
        user_id: actor.userId,
        email: actor.email,
        role: actor.role,
        integrator_id: actor.integratorId,
      };
    case 'cli':
      return { kind: actor.kind, os_user: actor.osUser };
    case 'tenant':
      return { kind: actor.kind, user_id: actor.userId, session_id: actor.sessionId };
    case 'system':
      return { kind: actor.kind };
  }
}

/** Whether the actor acts for the operator (its token, the CLI, operator staff, rentpay's jobs), not for one integrator. */
export function actsForOperator(actor: Actor): boolean {
  switch (actor.kind) {
    case 'server_token':
    case 'tenant':
      return false;
    case 'dashboard_user':
      return actor.integratorId === null;
    default:
      return true;
  }
}

/** rentpay itself: the sandbox demo's set-up, a first start's bootstrap, and tests and benches acting as no one. */
export const SYSTEM_ACTOR: Actor = { kind: 'system' };

/**
 * Refuses (403 forbidden) an actor whose role does not grant `permission`. A server token may do what an
 * integrator's admin may; a tenant only changes their own schedules; the operator's token, the CLI and rentpay
 * itself may do everything. Every service that changes money, credentials or settings asks this first.
 */
export function requirePermission(actor: Actor, permission: Permission): void {
  const role: Role | undefined =
    actor.kind === 'dashboard_user'
      ? actor.role
      : actor.kind === 'server_token'
        ? 'admin'
        : actor.kind === 'tenant'
          ? undefined
          : 'operator_admin';
  const allowed = role === undefined ? permission === 'schedules.manage' : can(role, permission);
  if (allowed) return;
  throw new ServiceError(
    'forbidden',
    actor.kind === 'dashboard_user'
      ? `Your role (${actor.role}) does not allow this (${permission}); ask an admin of your team.`
      : `This credential does not allow this (${permission}).`,
  );
}
