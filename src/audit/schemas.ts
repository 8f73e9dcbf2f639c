import { Type } from 'typebox';
import { Timestamp } from '../platform/http/schemas.ts';

const Summary = Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()]);

export const AuditEntrySchema = Type.Object(
  {
    audit_entry_id: Type.String({ description: 'aud_…' }),
    seq: Type.Integer({
      description: 'Its place in the chain: 1 for the first entry, one more for each after.',
    }),
    created_at: Timestamp,
    actor: Type.Object(
      {
        type: Type.String({
          description:
            'server_token (token_id names which), operator_token (via api or cli), dashboard_user (user_id, email, ' +
            'role), cli (os_user: the CLI on the database itself) or system.',
        }),
      },
      { additionalProperties: true, description: 'Who made the change.' },
    ),
    action: Type.String({ description: 'What was done, as <thing>.<verb>, e.g. payment.refund.' }),
    target: Type.Object({ type: Type.String(), id: Type.String() }, { description: 'What it was done to.' }),
    before: { ...Summary, description: 'The fields the change touched, as they were (never a secret).' },
    after: { ...Summary, description: 'The same fields after the change.' },
    address: Type.Union([Type.String(), Type.Null()], {
      description: 'The IP address the request came from.',
    }),
    request_id: Type.Union([Type.String(), Type.Null()], {
      description: 'The X-Request-Id of the request that made the change.',
    }),
    prev_hash: Type.String({ description: 'The hash of the entry before it (64 zeros for the first).' }),
    hash: Type.String({
      description:
        'SHA-256 (hex) of this entry’s content and prev_hash: editing any entry breaks the chain after it.',
    }),
  },
  { additionalProperties: false },
);
