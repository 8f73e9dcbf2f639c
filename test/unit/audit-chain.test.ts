/** The audit log's hash chain as pure functions: every way of tampering with a chain is found, at the right entry. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  type ChainedEntry,
  canonicalJson,
  entryHash,
  firstBreak,
  GENESIS_HASH,
} from '../../src/audit/chain.ts';

type Entry = ChainedEntry & { hash: string };

/** A chain of `n` entries, each hashed over its content and the one before. */
function chain(n: number): Entry[] {
  const entries: Entry[] = [];
  let previous = GENESIS_HASH;
  for (let seq = 1; seq <= n; seq++) {
    const content: ChainedEntry = {
      id: `aud_${seq}`,
      scope: 'int_a',
      seq,
      created_at: new Date(Date.UTC(2026, 2, 1, 9, 0, seq)),
      actor: { kind: 'server_token', token_id: 'tok_1', integrator_id: 'int_a' },
      action: 'payment.refund',
      target_type: 'payment',
      target_id: `pay_${seq}`,
      summary: { before: { refunded: '0.00' }, after: { refunded: `${seq}.00` } },
      address: '203.0.113.9',
      request_id: `req_${seq}`,
      prev_hash: previous,
    };
    const entry = { ...content, hash: entryHash(content) };
    entries.push(entry);
    previous = entry.hash;
  }
  return entries;
}

const headOf = (entries: Entry[]) => ({ seq: entries.length, hash: entries.at(-1)?.hash ?? GENESIS_HASH });

describe('canonicalJson', () => {
  it('sorts keys at every depth and leaves arrays in order, so jsonb key order never changes a hash', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { y: 1, x: 2 }], c: null }, e: undefined }),
      '{"a":{"c":null,"d":[3,{"x":2,"y":1}]},"b":1}',
    );
    assert.equal(canonicalJson('é"\n'), JSON.stringify('é"\n'));
    assert.equal(canonicalJson({ at: new Date(0) }), '{"at":"1970-01-01T00:00:00.000Z"}');
  });
});

describe('firstBreak', () => {
  it('an intact chain, and an empty one with no head, hold', () => {
    const entries = chain(5);
    assert.equal(firstBreak(entries, headOf(entries)), undefined);
    assert.equal(firstBreak([], undefined), undefined);
  });

  it('an entry whose content changed is named by its hash; nothing before it is blamed', () => {
    for (const edit of [
      (e: Entry) => ({ ...e, summary: { before: { refunded: '0.00' }, after: { refunded: '999.00' } } }),
      (e: Entry) => ({ ...e, actor: { kind: 'operator_token', via: 'api' } }),
      (e: Entry) => ({ ...e, created_at: new Date(e.created_at.getTime() + 1) }),
      (e: Entry) => ({ ...e, address: null }),
    ]) {
      const entries = chain(5);
      entries[2] = edit(entries[2]!);
      assert.deepEqual(firstBreak(entries, headOf(chain(5))), { reason: 'hash', id: 'aud_3', seq: 3 });
    }
  });

  it('an entry rehashed after an edit breaks the link of the entry after it', () => {
    const entries = chain(5);
    const { hash: _old, ...content } = { ...entries[1]!, target_id: 'pay_other' };
    entries[1] = { ...content, hash: entryHash(content) };
    assert.deepEqual(firstBreak(entries, headOf(chain(5))), { reason: 'link', id: 'aud_3', seq: 3 });
  });

  it('a removed entry in the middle is a gap; removed newest entries are found by the head', () => {
    const entries = chain(5);
    assert.deepEqual(firstBreak([...entries.slice(0, 2), ...entries.slice(3)], headOf(entries)), {
      reason: 'gap',
      id: 'aud_4',
      seq: 4,
      expectedSeq: 3,
    });
    assert.deepEqual(firstBreak(entries.slice(0, 3), headOf(entries)), { reason: 'head', seq: 3 });
    assert.deepEqual(firstBreak([], headOf(entries)), { reason: 'head', seq: 0 });
  });

  it('entries with no head recorded, or a head whose hash was changed, break at the head', () => {
    const entries = chain(2);
    assert.deepEqual(firstBreak(entries, undefined), { reason: 'head', seq: 2 });
    assert.deepEqual(firstBreak(entries, { seq: 2, hash: GENESIS_HASH }), { reason: 'head', seq: 2 });
  });
});
