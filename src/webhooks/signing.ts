import { createHmac } from 'node:crypto';

const SECRET_PREFIX = 'whsec_';

/**
 * A Standard Webhooks signature, `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, keyed with the base64 part of a
 * `whsec_...` secret; identical to the `standardwebhooks` library's `sign` (test/flows/webhooks-signing.test.ts).
 */
export function sign(secret: string, messageId: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
  if (key.length === 0) throw new Error('A webhook secret cannot be empty');
  const mac = createHmac('sha256', key).update(`${messageId}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

export interface SignedHeaders {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
}

/** The three Standard Webhooks headers; with several secrets (during a rotation) one signature each, space-separated. */
export function signedHeaders(secrets: string[], messageId: string, at: Date, body: string): SignedHeaders {
  const timestamp = Math.floor(at.getTime() / 1000);
  return {
    'webhook-id': messageId,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': secrets.map((secret) => sign(secret, messageId, timestamp, body)).join(' '),
  };
}
