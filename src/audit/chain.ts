import { createHash } from 'node:crypto';

/** The hash a chain's first entry names as the one before it. */
export const GENESIS_HASH = '0'.repeat(64);

/** What an entry's hash covers: everything it records, and the hash of the entry before it. */
export interface ChainedEntry {
  id: string;
  scope: string;
  seq: number;
  created_at: Date;
  actor: unknown;
  action: string;
  target_type: string;
  target_id: string;
  summary: unknown;
  address: string | null;
  request_id: string | null;
  prev_hash: string;
}

/**
 * JSON with object keys sorted at every depth: jsonb stores keys in its own order, so the hash must not depend on
 * the order a value was written or read in.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (typeof (value as { toJSON?: unknown }).toJSON === 'function') {
    return canonicalJson((value as { toJSON(): unknown }).toJSON());
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** SHA-256 (hex) of the entry's canonical JSON, its time to the millisecond as the database keeps it. */
export function entryHash(entry: ChainedEntry): string {
  const content = {
    id: entry.id,
    scope: entry.scope,
    seq: entry.seq,
    created_at: entry.created_at.toISOString(),
    actor: entry.actor,
    action: entry.action,
    target_type: entry.target_type,
    target_id: entry.target_id,
    summary: entry.summary,
    address: entry.address,
    request_id: entry.request_id,
    prev_hash: entry.prev_hash,
  };
  return createHash('sha256').update(canonicalJson(content)).digest('hex');
}

export type ChainBreak =
  | { reason: 'hash'; id: string; seq: number }
  | { reason: 'link'; id: string; seq: number }
  | { reason: 'gap'; id: string; seq: number; expectedSeq: number }
  | { reason: 'head'; seq: number };

/**
 * Walks a chain entry by entry (in seq order) and finds the first place it does not hold: an entry whose hash is not
 * its content's (edited), one that does not name the hash before it (removed or inserted before it), a seq that
 * skips, or a head that is not the last entry (the newest entries removed).
 */
export class ChainWalk {
  #previous = GENESIS_HASH;
  #expectedSeq = 1;
  #broken: ChainBreak | undefined;

  get entries(): number {
    return this.#expectedSeq - 1;
  }

  /** Takes the next entry; false once the chain is broken (the break is the first found). */
  add(entry: ChainedEntry & { hash: string }): boolean {
    if (this.#broken) return false;
    if (entry.seq !== this.#expectedSeq) {
      this.#broken = { reason: 'gap', id: entry.id, seq: entry.seq, expectedSeq: this.#expectedSeq };
    } else if (entry.prev_hash !== this.#previous) {
      this.#broken = { reason: 'link', id: entry.id, seq: entry.seq };
    } else if (entryHash(entry) !== entry.hash) {
      this.#broken = { reason: 'hash', id: entry.id, seq: entry.seq };
    } else {
      this.#previous = entry.hash;
      this.#expectedSeq += 1;
    }
    return this.#broken === undefined;
  }

  /** After the last entry: the first break, checking the recorded head too; undefined when the chain holds. */
  end(head: { seq: number; hash: string } | undefined): ChainBreak | undefined {
    if (this.#broken) return this.#broken;
    if ((head?.seq ?? 0) !== this.entries || (head?.hash ?? GENESIS_HASH) !== this.#previous) {
      return { reason: 'head', seq: this.entries };
    }
    return undefined;
  }
}

/** The first break of a whole chain held in memory (see ChainWalk). */
export function firstBreak(
  entries: Iterable<ChainedEntry & { hash: string }>,
  head: { seq: number; hash: string } | undefined,
): ChainBreak | undefined {
  const walk = new ChainWalk();
  for (const entry of entries) if (!walk.add(entry)) break;
  return walk.end(head);
}
