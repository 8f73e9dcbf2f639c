/**
 * Who did something, as the audit log records it: a person signed in to the dashboard, an integrator's server token,
 * a tenant on the payment page (their own schedules), the operator token (through the Operator API or the CLI), the CLI on the database itself, or rentpay's own jobs.
 * `address` and `requestId` say where the request came from.
 */
export type Actor = (
  | { kind: 'server_token'; integratorId: string; tokenId: string }
  | { kind: 'operator_token'; via: 'api' | 'cli' }
  | { kind: 'dashboard_user'; userId: string; email: string; role: string; integratorId: string | null }
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
