import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { Webhook } from 'standardwebhooks';
import { generateWebhookSecret } from '../../src/integrators/service.ts';
import { sign, signedHeaders } from '../../src/webhooks/signing.ts';
import { verify } from '../support/webhook-receiver.ts';

describe('webhook signing (Standard Webhooks)', () => {
  it('is identical to the standardwebhooks library for any secret, id, time and body', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.string({ minLength: 1, maxLength: 40 }),
        fc.integer({ min: 0, max: 4_102_444_800 }),
        fc.string({ maxLength: 2000, unit: 'grapheme' }),
        (key, id, seconds, body) => {
          const secret = `whsec_${Buffer.from(key).toString('base64')}`;
          const at = new Date(seconds * 1000);
          assert.equal(sign(secret, id, seconds, body), new Webhook(secret).sign(id, at, body));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('signs with the secrets the service generates, and the library verifies the headers', () => {
    for (let i = 0; i < 50; i++) {
      const secret = generateWebhookSecret();
      assert.match(secret, /^whsec_[A-Za-z0-9+/]{32}$/);
      const body = JSON.stringify({ type: 'payment_success', n: i, text: 'rent £1,200 ✓' });
      const at = new Date(Date.UTC(2026, 2, 1, 9, 0, i));
      const headers = signedHeaders([secret], 'evt_abc', at, body);
      assert.equal(headers['webhook-timestamp'], String(Math.floor(at.getTime() / 1000)));
      assert.deepEqual(verify(secret, { headers: { ...headers }, body }, at), JSON.parse(body));
    }
  });

  it('during a rotation both secrets sign, space-separated, and either verifies alone', () => {
    const [oldSecret, newSecret] = [generateWebhookSecret(), generateWebhookSecret()];
    const at = new Date('2026-03-01T09:00:00Z');
    const body = '{"type":"payment_failed"}';
    const headers = signedHeaders([newSecret, oldSecret], 'evt_rot', at, body);
    const parts = headers['webhook-signature'].split(' ');
    assert.equal(parts.length, 2);
    for (const part of parts) assert.match(part, /^v1,[A-Za-z0-9+/]{43}=$/);
    verify(oldSecret, { headers: { ...headers }, body }, at);
    verify(newSecret, { headers: { ...headers }, body }, at);
    assert.throws(
      () => verify(generateWebhookSecret(), { headers: { ...headers }, body }, at),
      /No matching signature/,
    );
  });

  it('a tampered body, id or timestamp, or an old timestamp, fails verification', () => {
    const secret = `whsec_${randomBytes(24).toString('base64')}`;
    const at = new Date('2026-03-01T09:00:00Z');
    const body = '{"type":"payment_success","data":{"amount":"1217.40"}}';
    const headers = { ...signedHeaders([secret], 'evt_x', at, body) };
    verify(secret, { headers, body }, at);
    const bad = /No matching signature/;
    assert.throws(() => verify(secret, { headers, body: body.replace('1217.40', '1.00') }, at), bad);
    assert.throws(() => verify(secret, { headers, body: `${body} ` }, at), bad);
    assert.throws(() => verify(secret, { headers: { ...headers, 'webhook-id': 'evt_y' }, body }, at), bad);
    const shifted = String(Number(headers['webhook-timestamp']) + 1);
    assert.throws(
      () => verify(secret, { headers: { ...headers, 'webhook-timestamp': shifted }, body }, at),
      bad,
    );
    // The library accepts 5 minutes of skew, no more.
    verify(secret, { headers, body }, new Date(at.getTime() + 5 * 60_000));
    assert.throws(
      () => verify(secret, { headers, body }, new Date(at.getTime() + 5 * 60_000 + 1_000)),
      /too old/,
    );
    assert.throws(() => verify(secret, { headers, body }, new Date(at.getTime() - 6 * 60_000)), /too new/);
  });
});
