import { type Static, Type } from 'typebox';
import { Timestamp } from '../platform/http/schemas.ts';

const Tenant = { user_id: Type.Integer({ description: 'Your user_id of the tenant.' }) };

export const DocumentEventData = Type.Object(
  {
    user_id: Tenant.user_id,
    payment_reference: Type.Union([Type.String(), Type.Null()], {
      description:
        'The tenancy’s payment_reference for its agreement; null for the tenant’s own ID documents.',
    }),
    document: Type.Object({
      document_id: Type.String(),
      kind: Type.Union([
        Type.Literal('agreement'),
        Type.Literal('pii_front'),
        Type.Literal('pii_back'),
        Type.Literal('photo'),
      ]),
      url: Type.String({ description: 'The URL it was to be fetched from.' }),
      state: Type.Literal('failed'),
      updated_at: Timestamp,
    }),
    failure_reason: Type.String(),
  },
  { title: 'DocumentEventData' },
);
export type DocumentEventData = Static<typeof DocumentEventData>;
