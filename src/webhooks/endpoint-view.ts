import { Type } from 'typebox';
import { Timestamp } from '../platform/http/schemas.ts';
import type { IntegratorEndpoint } from './service.ts';

/** A schema, or null. */
export const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(schema: T) =>
  Type.Union([schema, Type.Null()]);

/** Your webhook endpoint: where events go and the state of its secret. */
export const WebhookEndpoint = Type.Object(
  {
    url: Nullable(
      Type.String({ description: 'Where events are sent; null: none (events are kept and listed).' }),
    ),
    state: Type.Enum(['enabled', 'disabled'], {
      description:
        '`disabled`: the URL answered 410 Gone, so nothing is sent to it until you PUT a URL again.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
    previous_secret_expires_at: Type.Union([Timestamp, Type.Null()], {
      description: 'While a replaced secret still signs beside the current one: when it stops.',
    }),
  },
  { title: 'WebhookEndpoint' },
);

/** The endpoint as its integrator sees it. */
export function endpointView(row: IntegratorEndpoint) {
  return {
    url: row.url,
    state: row.state,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
    previous_secret_expires_at:
      row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at).toISOString(),
  };
}
