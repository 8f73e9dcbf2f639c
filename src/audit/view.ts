import type { Static } from 'typebox';
import type { AuditEntry } from './log.ts';
import type { AuditEntrySchema } from './schemas.ts';

/** An audit entry as the APIs and `rentpay audit list --json` show it. */
export type AuditEntryView = Static<typeof AuditEntrySchema>;

/** An actor as stored (`kind`, then who) as the views show it: `type`, then who. */
export function actorView(record: Record<string, unknown>): AuditEntryView['actor'] {
  const { kind, ...who } = record as { kind: string } & Record<string, unknown>;
  return { type: kind, ...who };
}

export function auditEntryView(entry: AuditEntry): AuditEntryView {
  const summary = entry.summary as {
    before: Record<string, unknown> | null;
    after: Record<string, unknown> | null;
  };
  return {
    audit_entry_id: entry.id,
    seq: entry.seq,
    created_at: entry.created_at.toISOString(),
    actor: actorView(entry.actor as Record<string, unknown>),
    action: entry.action,
    target: { type: entry.target_type, id: entry.target_id },
    before: summary.before,
    after: summary.after,
    address: entry.address,
    request_id: entry.request_id,
    prev_hash: entry.prev_hash,
    hash: entry.hash,
  };
}

/** Who, in a few words: a person's email and role, or which token. */
export function actorLabel(actor: AuditEntryView['actor'] & Record<string, unknown>): string {
  switch (actor.type) {
    case 'dashboard_user':
      return `${actor.email} (${actor.role})`;
    case 'server_token':
      return `server token ${actor.token_id}`;
    case 'operator_token':
      return actor.via === 'cli' ? 'operator token (CLI)' : 'operator token';
    case 'cli':
      return `CLI as ${actor.os_user}`;
    default:
      return String(actor.type);
  }
}
