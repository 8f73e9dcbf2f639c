/**
 * The values the fuzz's requests are made of: the hostile ones under test (their kinds, the constants every slot
 * gets, the arbitraries that generate more, how each is written into a URL or a header) and the plausible ones
 * every other part of a request holds (sampled from a schema, with real ids in place of made-up ones).
 */
import fc from 'fast-check';

// ---------------------------------------------------------------------------------------------------------
// Hostile values
// ---------------------------------------------------------------------------------------------------------

/**
 * `string`: a value, percent-encoded in URLs (lone surrogates as their WTF-8 bytes), JSON-encoded in bodies.
 * `url`: put in a URL exactly as written (broken or decoded-to-NUL percent-encoding); not used elsewhere.
 * `json`: JSON text put in a body as written (numbers JSON.stringify cannot write, nesting); not used elsewhere.
 */
export interface Hostile {
  label: string;
  text: string;
  kind: 'string' | 'url' | 'json';
}

const str = (label: string, text: string): Hostile => ({ label, text, kind: 'string' });
const rawUrl = (label: string, text: string): Hostile => ({ label, text, kind: 'url' });
const rawJson = (label: string, text: string): Hostile => ({ label, text, kind: 'json' });

const STRINGS: Hostile[] = [
  str('NUL', '\u0000'),
  str('NUL inside', 'pay_\u0000x'),
  str('C0 SOH', '\u0001'),
  str('tab', '\t'),
  str('CR LF', 'a\r\nb'),
  str('ESC sequence', '\u001b[2J\u001b[H'),
  str('C0 unit separator', '\u001f'),
  str('DEL', '\u007f'),
  str('C1 PAD', '\u0080'),
  str('C1 NEL', '\u0085'),
  str('C1 CSI', '\u009b31m'),
  str('C1 APC', '\u009f'),
  str('lone high surrogate', '\uD800'),
  str('lone low surrogate', '\uDC00'),
  str('surrogates reversed', 'x\uDC00\uD800y'),
  str('noncharacters', '\uFFFF\uFFFE'),
  str('BOM, zero width space', '\uFEFF\u200B'),
  str('RTL override', '\u202Eevil'),
  str('emoji', '💷🏠'),
  str('combining marks', 'e\u0301\u0301\u0301'),
  str('int64 max + 1', '9223372036854775808'),
  str('int64 min - 1', '-9223372036854775809'),
  str('2^53 + 1', '9007199254740993'),
  str('1e309', '1e309'),
  str('-1', '-1'),
  str('0', '0'),
  str('-0', '-0'),
  str('NaN', 'NaN'),
  str('Infinity', 'Infinity'),
  str('fraction', '1.5'),
  str('hex', '0x10'),
  str('padded number', ' 1 '),
  str('date 0000-01-01', '0000-01-01'),
  str('date 0001-01-01', '0001-01-01'),
  str('date 1899-12-31', '1899-12-31'),
  str('date 2199-12-31', '2199-12-31'),
  str('date 2200-01-01', '2200-01-01'),
  str('date 9999-12-31', '9999-12-31'),
  str('date +275760-09-13', '+275760-09-13'),
  str('date -271821-04-20', '-271821-04-20'),
  str('date 10000-01-01', '10000-01-01'),
  str('date 2026-02-30', '2026-02-30'),
  str('date-time 9999', '9999-12-31T23:59:59.999Z'),
  str('date-time 0000', '0000-01-01T00:00:00Z'),
  str('date-time odd offset', '2026-03-01T09:00:00+23:59'),
  str('10,000 chars', 'a'.repeat(10_000)),
  str('3,000 emoji', '💷'.repeat(3_000)),
  str('literal %00', '%00'),
  str('literal %ff', '%ff'),
  str('../', '../'),
  str('path traversal', '../../../etc/passwd'),
  str('backslashes', '..\\..\\'),
  str('slash', '/'),
  str('query characters', '?a=1&b=2#c'),
  str('SQL', "' OR 1=1--"),
  str('SQL stacked', "'; DROP TABLE users;--"),
  str('LIKE wildcards', '%_%'),
  str('JSON object', '{"a":1}'),
  str('JSON array', '[]'),
  str('null', 'null'),
  str('__proto__', '__proto__'),
  str('operator injection', '{"$gt":""}'),
  str('HTML', '<script>alert(1)</script>'),
  str('format string', '%s%n%x'),
  str('empty', ''),
  str('space', ' '),
  str('email with NUL', 'tenant\u0000@example.com'),
];

const URL_ONLY: Hostile[] = [
  rawUrl('raw %00', '%00'),
  rawUrl('raw %ff', '%ff'),
  rawUrl('raw %', '%'),
  rawUrl('raw truncated UTF-8', '%E0%A4%A'),
  rawUrl('raw encoded surrogate', '%ED%A0%80'),
  rawUrl('raw overlong slash', '%C0%AF'),
  rawUrl('raw ..%2F', '..%2F..%2F'),
  rawUrl('raw %u0000', '%u0000'),
  rawUrl('raw %0d%0a', '%0d%0a'),
  rawUrl('raw +', '+'),
];

const JSON_ONLY: Hostile[] = [
  rawJson('number int64 max + 1', '9223372036854775808'),
  rawJson('number 1e309', '1e309'),
  rawJson('number -1', '-1'),
  rawJson('number 0', '0'),
  rawJson('number -0', '-0'),
  rawJson('number 0.5', '0.5'),
  rawJson('number 2^53 + 2', '9007199254740994'),
  rawJson('number 1e-400', '1e-400'),
  rawJson('null', 'null'),
  rawJson('true', 'true'),
  rawJson('empty array', '[]'),
  rawJson('empty object', '{}'),
  rawJson('array of NUL', '["\\u0000"]'),
  rawJson('object with NUL key', '{"\\u0000":1}'),
  rawJson('nested 500 deep', `${'['.repeat(500)}${']'.repeat(500)}`),
];

/**
 * Which constants every slot gets (the rest reach it only as the generated runs pick them): in URLs and headers
 * most of them; in body fields, where a wrong type stops at the schema, the ones most likely to get past it and
 * break something; in a query value the route does not read, a few.
 */
const URL_CORE = new Set([
  'NUL',
  'NUL inside',
  'CR LF',
  'ESC sequence',
  'DEL',
  'C1 NEL',
  'C1 CSI',
  'lone high surrogate',
  'lone low surrogate',
  'noncharacters',
  'RTL override',
  'emoji',
  'int64 max + 1',
  'int64 min - 1',
  '2^53 + 1',
  '1e309',
  '-1',
  '0',
  'NaN',
  'fraction',
  'date 0000-01-01',
  'date 0001-01-01',
  'date 1899-12-31',
  'date 2199-12-31',
  'date 9999-12-31',
  'date +275760-09-13',
  'date 10000-01-01',
  'date 2026-02-30',
  'date-time 9999',
  '10,000 chars',
  '3,000 emoji',
  'literal %00',
  '../',
  'path traversal',
  'SQL',
  'JSON object',
  '__proto__',
  'empty',
  'space',
  ...URL_ONLY.map((v) => v.label),
]);
const BODY_CORE = new Set([
  'NUL',
  'NUL inside',
  'C1 NEL',
  'lone high surrogate',
  'lone low surrogate',
  'int64 max + 1',
  '1e309',
  'date 0000-01-01',
  'date 2199-12-31',
  'date 9999-12-31',
  'date +275760-09-13',
  '10,000 chars',
  'empty',
  'number int64 max + 1',
  'number 1e309',
  'number -1',
  'null',
]);
const UNREAD_QUERY_CORE = new Set([
  'NUL',
  'CR LF',
  'lone high surrogate',
  '10,000 chars',
  'raw %00',
  'raw %ff',
  'raw truncated UTF-8',
]);

type Part = 'path' | 'query' | 'header' | 'body';

export type BodyPath = (string | number)[];

export interface Slot {
  part: Part;
  name: string;
  /** Body fields: where in the body (empty: the whole body). */
  at?: BodyPath;
  /** A query value the route does not read: a few constants only. */
  unread?: boolean;
}

function appliesTo(part: Part, value: Hostile): boolean {
  if (value.kind === 'url') return part === 'path' || part === 'query';
  if (value.kind === 'json') return part === 'body';
  return true;
}

const pad2 = (n: number) => String(n).padStart(2, '0');
const codeUnit = fc.oneof(
  { weight: 4, arbitrary: fc.nat(0xffff).map((c) => String.fromCharCode(c)) },
  { weight: 2, arbitrary: fc.nat(0x9f).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\uD800', '\uDC00', '\u202E', '%', "'", '/', '\\') },
);
const generatedText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: codeUnit, minLength: 1, maxLength: 40 }),
  fc.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
  fc.double().map(String),
  fc
    .tuple(fc.integer({ min: -300_000, max: 300_000 }), fc.nat(13), fc.nat(32))
    .map(
      ([y, m, d]) =>
        `${y < 0 ? '-' : y > 9999 ? '+' : ''}${String(Math.abs(y)).padStart(4, '0')}-${pad2(m)}-${pad2(d)}`,
    ),
  fc
    .tuple(fc.constantFrom(...STRINGS.map((s) => s.text)), fc.string({ unit: codeUnit, maxLength: 8 }))
    .map(([a, b]) => `${b}${a}${b}`),
);

/** Generated values and every constant, weighted towards the generated; only those that fit `part`. */
export function valuesFor(part: Part): fc.Arbitrary<Hostile> {
  const constants = [...STRINGS, ...URL_ONLY, ...JSON_ONLY].filter((v) => appliesTo(part, v));
  return fc.oneof(
    { weight: 2, arbitrary: generatedText.map((text) => str('generated', text)) },
    { weight: 1, arbitrary: fc.constantFrom(...constants) },
  );
}

/** The constant values every slot of `part` gets (body fields: the core subset). */
export function examplesFor(slot: Slot): Hostile[] {
  const core = slot.unread ? UNREAD_QUERY_CORE : slot.part === 'body' ? BODY_CORE : URL_CORE;
  return [...STRINGS, ...URL_ONLY, ...JSON_ONLY].filter((v) => appliesTo(slot.part, v) && core.has(v.label));
}

/** Percent-encodes any UTF-16 text, an unpaired surrogate as its three WTF-8 bytes (encodeURIComponent throws). */
export function percentEncode(text: string): string {
  try {
    return encodeURIComponent(text);
  } catch {
    let out = '';
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      const next = text.charCodeAt(i + 1);
      if (c >= 0xd800 && c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        out += encodeURIComponent(text.slice(i, i + 2));
        i++;
      } else if (c >= 0xd800 && c <= 0xdfff) {
        out += [0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f)]
          .map((b) => `%${b.toString(16).toUpperCase()}`)
          .join('');
      } else {
        out += encodeURIComponent(text[i]!);
      }
    }
    return out;
  }
}

export const inUrl = (value: Hostile) => (value.kind === 'url' ? value.text : percentEncode(value.text));

/**
 * A header value as a UTF-8 client puts it on the wire and Node reads it back (latin1), or undefined when HTTP
 * cannot carry it at all (NUL, CR, LF and the other controls but tab are refused by the parser).
 */
export function asHeader(text: string): string | undefined {
  const wire = Buffer.from(text, 'utf8').toString('latin1');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the characters an HTTP header value cannot hold
  return /[\u0000-\u0008\u000a-\u001f\u007f]/.test(wire) ? undefined : wire;
}

export function show(value: Hostile): string {
  const json = value.kind === 'string' ? JSON.stringify(value.text) : value.text;
  return json.length > 80 ? `${json.slice(0, 60)}…(${value.text.length} chars)` : json;
}

// ---------------------------------------------------------------------------------------------------------
// Plausible values: what every other part of a request holds
// ---------------------------------------------------------------------------------------------------------

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type Schema = Record<string, unknown>;
export type Ids = Record<string, string>;

/** A public address, so that no webhook URL in a base body needs a DNS lookup. */
const PUBLIC_WEBHOOK_URL = 'https://93.184.215.14/rentpay-webhooks';

export const asSchema = (value: unknown): Schema =>
  value !== null && typeof value === 'object' ? (value as Schema) : {};

/** A plausible value for a schema: its example, default or first choice, else one of its type. */
export function sample(schemaIn: unknown, depth = 0): Json {
  const schema = asSchema(schemaIn);
  if (schema.example !== undefined) return schema.example as Json;
  if (Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0] as Json;
  if (schema.default !== undefined) return schema.default as Json;
  if (schema.const !== undefined) return schema.const as Json;
  if (Array.isArray(schema.enum)) return schema.enum[0] as Json;
  for (const key of ['anyOf', 'oneOf'] as const) {
    const variants = schema[key];
    if (Array.isArray(variants)) {
      const first = variants.find((v) => asSchema(v).type !== 'null') ?? variants[0];
      return sample(first, depth);
    }
  }
  const type = Array.isArray(schema.type) ? schema.type.find((t) => t !== 'null') : schema.type;
  switch (type) {
    case 'object': {
      const out: Record<string, Json> = {};
      if (depth > 6) return out;
      for (const [name, property] of Object.entries(asSchema(schema.properties))) {
        out[name] = sample(property, depth + 1);
      }
      return out;
    }
    case 'array':
      return depth > 6 ? [] : [sample(schema.items, depth + 1)];
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? Math.max(schema.minimum, 1) : 1;
    case 'boolean':
      return true;
    case 'string':
      switch (schema.format) {
        case 'date':
          return '2026-03-15';
        case 'date-time':
          return '2026-03-01T09:00:00.000Z';
        case 'email':
          return 'fuzz@example.com';
        case 'uri':
          return 'https://docs.example/fuzz.pdf';
        default:
          return 'x'.repeat(typeof schema.minLength === 'number' ? Math.max(1, schema.minLength) : 1);
      }
    default:
      return 'x';
  }
}

/** Body fields whose example value is replaced by a real one (of `ids`), so that the other fields get looked at. */
const REAL_VALUES: Record<string, string> = {
  authorization_text: 'authorization_text',
  saved_card_id: 'card_id',
  integrator_id: 'integrator_id',
  payment_id: 'payment_id',
  session_id: 'session_id',
};

export function withRealValues(value: Json, ids: Ids): Json {
  if (Array.isArray(value)) return value.map((v) => withRealValues(v, ids));
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, Json> = {};
  for (const [key, inner] of Object.entries(value)) {
    const real = REAL_VALUES[key];
    if (typeof inner === 'string' && real !== undefined) out[key] = ids[real] ?? inner;
    // An address that needs no DNS lookup when it is checked.
    else if (key === 'webhook_url' || key === 'url') out[key] = PUBLIC_WEBHOOK_URL;
    else out[key] = withRealValues(inner, ids);
  }
  return out;
}
