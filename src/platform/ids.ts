import { createHash, randomFillSync, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

// Random bytes are drawn from the CSPRNG in blocks: every id, token and request id of a hot request needs some, and
// one draw per block costs far less than one per call. Each byte is used once.
const randomPool = Buffer.alloc(8192);
let randomPoolOffset = randomPool.length;

function nextRandomByte(): number {
  if (randomPoolOffset === randomPool.length) {
    randomFillSync(randomPool);
    randomPoolOffset = 0;
  }
  return randomPool[randomPoolOffset++]!;
}

/** Uniform base62 string; bytes >= 248 are rejected so every character is equally likely. */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    const byte = nextRandomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export type IdPrefix =
  | 'int'
  | 'tok'
  | 'job'
  | 'usr'
  | 'ten'
  | 'ses'
  | 'pay'
  | 'evt'
  | 'sch'
  | 'doc'
  | 'ref'
  | 'card'
  | 'dcl'
  | 'prun'
  | 'po'
  | 'aud'
  | 'dus'
  | 'inv'
  | 'pky'
  | 'dss'
  | 'wch';

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${randomBase62(22)}`;
}

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of two hex digests (or any equal-length strings). */
export function digestsEqual(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
