/**
 * The fuzz's requests: the operations to send (read from an OpenAPI document or the router) and their slots, base
 * bodies, sending one hostile value in one slot and checking the answer, and the report of every failure.
 */
import assert from 'node:assert/strict';
import type { TestContext } from 'node:test';
import fc from 'fast-check';
import type { FastifyInstance, HTTPMethods } from 'fastify';
import { tenancyBody, twoInstallmentPlan, userBody } from './fixtures.ts';
import {
  asHeader,
  asSchema,
  type BodyPath,
  examplesFor,
  type Hostile,
  type Ids,
  inUrl,
  type Json,
  percentEncode,
  type Schema,
  type Slot,
  sample,
  show,
  valuesFor,
  withRealValues,
} from './fuzz-values.ts';
import type { LogCapture } from './helpers.ts';

/** Fixed: a failure reproduces with the same inputs on every machine. */
const SEED = 20_260_311;
/** Generated values per route, on top of the constant ones. */
const GENERATED_RUNS = 12;

// ---------------------------------------------------------------------------------------------------------
// Operations: what to send where
// ---------------------------------------------------------------------------------------------------------

export interface Operation {
  method: HTTPMethods;
  /** As documented (`{id}`) or as routed (`:id`, `*`). */
  route: string;
  pathValues: Record<string, string>;
  /** Sent with every request of the route; a query slot replaces or adds one. */
  query: Record<string, string>;
  headers: Record<string, string>;
  body: Json | undefined;
  slots: Slot[];
  auth: () => Record<string, string> | Promise<Record<string, string>>;
  /** Answers are checked for the API error shapes. */
  api: boolean;
  /** Last look at a request before it is sent (e.g. a signature over the final body). */
  finish?: (headers: Record<string, string>, body: string | undefined, slot: Slot) => void;
  /** After each answer (e.g. adopting a rotated token). */
  answered?: (status: number, body: string) => void | Promise<void>;
}

const PARAM = /\{([^}]+)\}|:([A-Za-z0-9_]+)|\*/g;

function pathParamsOf(route: string): string[] {
  return [...route.matchAll(PARAM)].map((m) => m[1] ?? m[2] ?? '*');
}

function fillPath(route: string, values: Record<string, string>): string {
  return route.replace(
    PARAM,
    (_m, a: string | undefined, b: string | undefined) => values[a ?? b ?? '*'] ?? 'x',
  );
}

/** Every leaf of a JSON value, by path; an empty array or object is a leaf. */
function leaves(value: Json, at: BodyPath = []): BodyPath[] {
  if (Array.isArray(value) && value.length > 0) return value.flatMap((v, i) => leaves(v, [...at, i]));
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length > 0) {
    return Object.entries(value).flatMap(([k, v]) => leaves(v, [...at, k]));
  }
  return [at];
}

function setAt(target: Json, at: BodyPath, value: Json): void {
  let node = target as Record<string | number, Json>;
  for (const key of at.slice(0, -1)) node = node[key] as Record<string | number, Json>;
  node[at[at.length - 1]!] = value;
}

const MARK = '\u0000fuzz-slot\u0000';
let requestNumber = 0;

function bodyText(op: Operation, slot: Slot, value: Hostile | undefined): string | undefined {
  if (op.body === undefined && slot.part !== 'body') return undefined;
  const copy = structuredClone(op.body ?? {}) as Json;
  // A new idempotency key each time, unless it is the field under test: a replay would hide the other fields.
  if (copy !== null && typeof copy === 'object' && !Array.isArray(copy) && 'idempotency_key' in copy) {
    copy.idempotency_key = `fuzz-${requestNumber}`;
    // The Idempotency-Key header under test is then the only key.
    if (slot.part === 'header' && slot.name === 'idempotency-key') delete copy.idempotency_key;
  }
  if (slot.part !== 'body' || value === undefined) return JSON.stringify(copy);
  const json = value.kind === 'json' ? value.text : JSON.stringify(value.text);
  if (!slot.at || slot.at.length === 0) return json;
  setAt(copy, slot.at, MARK);
  return JSON.stringify(copy).replace(JSON.stringify(MARK), () => json);
}

/**
 * Where a request can carry a hostile value. Optional query values and headers are sent only in their own slot:
 * a base value could narrow or contradict every other request (an Idempotency-Key header beside a body key).
 */
export function slotsOf(
  op: Omit<Operation, 'slots'>,
  optional: { query?: string[]; headers?: string[]; unreadQuery?: boolean } = {},
): Slot[] {
  const slots: Slot[] = [];
  for (const name of pathParamsOf(op.route)) slots.push({ part: 'path', name });
  for (const name of new Set([...Object.keys(op.query), ...(optional.query ?? [])])) {
    slots.push({ part: 'query', name });
  }
  if (optional.unreadQuery) slots.push({ part: 'query', name: 'fuzz', unread: true });
  for (const name of new Set([...Object.keys(op.headers), ...(optional.headers ?? [])])) {
    slots.push({ part: 'header', name });
  }
  if (op.body !== undefined) {
    slots.push({ part: 'body', name: '(whole body)', at: [] });
    for (const at of leaves(op.body)) if (at.length > 0) slots.push({ part: 'body', name: at.join('.'), at });
  }
  return slots;
}

/** Bodies for the documented operations whose schema alone does not make a valid one. */
function baseBodies(): Record<string, Json> {
  return {
    'POST /api/third-party/onboarding/': userBody({
      user_id: 2,
      email: 'fuzz-2@example.com',
      tenant: [tenancyBody({ payment_reference: 'FUZZ-2', installment_payment: twoInstallmentPlan() })],
    }) as Json,
    'POST /api/third-party/user-login/': {
      email: 'tenant@example.com',
      payment_reference: 'REF-0001',
      pure_amount: '1200.00',
      amount_editable: false,
    },
    'POST /api/third-party/payments/{payment_id}/refunds/': { amount: '1.00' },
    // A saved card (the documented example's first body has a made-up card token), every optional field set.
    'POST /api/client/payments': {
      pure_amount: '1200.00',
      method: 'card',
      saved_card_id: 'card_id',
      expected_amount: '1217.40',
      reference: 'REF-0001',
      idempotency_key: 'fresh',
    },
    'POST /api/operator/payments/{payment_id}/refunds': { amount: '1.00' },
    'POST /api/operator/payouts/runs': { as_of: '2026-03-31' },
    'POST /api/operator/webhooks/retry-pending': { integrator_id: 'x' },
  };
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, Schema>>;
}

export function documentedOperations(doc: OpenApiDocument, auth: Operation['auth'], ids: Ids): Operation[] {
  const bodies = baseBodies();
  const ops: Operation[] = [];
  for (const [route, methods] of Object.entries(doc.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const key = `${method.toUpperCase()} ${route}`;
      const parameters = (Array.isArray(operation.parameters) ? operation.parameters : []).map(asSchema);
      const query: Record<string, string> = {};
      const headers: Record<string, string> = {};
      for (const p of parameters) {
        if (p.in === 'query' && p.required === true) query[String(p.name)] = String(sample(p.schema));
        if (p.in === 'header' && p.required === true) headers[String(p.name)] = 'fuzz-key';
      }
      const optional = (where: string) =>
        parameters.filter((p) => p.in === where && p.required !== true).map((p) => String(p.name));
      const content = asSchema(asSchema(asSchema(operation.requestBody).content)['application/json']);
      let body: Json | undefined;
      if (operation.requestBody !== undefined) {
        const example =
          content.example ?? Object.values(asSchema(content.examples)).map((e) => asSchema(e).value)[0];
        body = withRealValues(
          (bodies[key] ?? (example as Json | undefined) ?? sample(content.schema)) as Json,
          ids,
        );
      }
      const pathValues = Object.fromEntries(pathParamsOf(route).map((name) => [name, ids[name] ?? 'x_fuzz']));
      const base: Omit<Operation, 'slots'> = {
        method: method.toUpperCase() as HTTPMethods,
        route,
        pathValues,
        query,
        headers,
        body,
        auth,
        api: true,
      };
      ops.push({ ...base, slots: slotsOf(base, { query: optional('query'), headers: optional('header') }) });
    }
  }
  return ops;
}

/** Every route of an app as its router lists it, e.g. `GET /sandbox/3ds/:charge_id`. */
export function routesOf(app: FastifyInstance): { method: string; route: string }[] {
  const routes: { method: string; route: string }[] = [];
  const stack: string[] = [];
  for (const line of app.printRoutes({ commonPrefix: false }).split('\n')) {
    const at = line.search(/[├└]── /);
    if (at < 0) continue;
    const match = /^(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line.slice(at + 4));
    if (!match) continue;
    stack.length = at / 4;
    stack.push(match[1]!);
    for (const method of (match[2] ?? '').split(', ').filter(Boolean)) {
      // The tree prints a wildcard child of `/demo` as `*`: the route itself is `/demo/*`.
      const joined = stack.join('');
      const route =
        [joined, joined.replace(/\*$/, '/*')].find((url) =>
          app.hasRoute({ method: method as HTTPMethods, url }),
        ) ?? joined;
      routes.push({ method, route });
    }
  }
  return routes;
}

export const routeKey = (method: string, route: string) =>
  `${method.toUpperCase()} ${route.replace(/\{([^}]+)\}/g, ':$1')}`;

// ---------------------------------------------------------------------------------------------------------
// Sending and checking
// ---------------------------------------------------------------------------------------------------------

interface Failure {
  op: Operation;
  slot: Slot;
  value: Hostile;
  status: number;
  body: string;
  logged: string;
  kind: '5xx' | 'error shape';
}

function isErrorShape(body: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return false;
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return false;
  const record = parsed as Record<string, unknown>;
  if (typeof record.error === 'string' && typeof record.detail === 'string') return true;
  const entries = Object.entries(record);
  return (
    entries.length > 0 &&
    entries.every(([, v]) => Array.isArray(v) && v.length > 0 && v.every((m) => typeof m === 'string'))
  );
}

/** What the app logged for a request as an unhandled error: the message and where it was thrown in src/. */
function loggedError(logs: LogCapture, requestId: string): string {
  for (const line of logs.lines) {
    if (!line.includes(`"reqId":"${requestId}"`) || !line.includes('"level":"error"')) continue;
    try {
      const entry = JSON.parse(line) as { msg?: string; err?: { message?: string; stack?: string } };
      // The first frame of our own code, past the database wrapper when there is one.
      const frames = (entry.err?.stack ?? '')
        .split('\n')
        .filter((l) => l.includes('/src/') && !l.includes('node_modules'));
      const frame = (frames.find((l) => !l.includes('/src/platform/db/')) ?? frames[0])
        ?.trim()
        .replace(/^at /, '')
        .replace(/\(?\/.*?\/src\//, 'src/')
        .replace(/\)$/, '');
      return `${entry.msg}: ${entry.err?.message ?? '?'}${frame ? ` (at ${frame})` : ''}`;
    } catch {
      return line.slice(0, 300);
    }
  }
  return '';
}

export interface Target {
  app: FastifyInstance;
  logs: LogCapture;
}

let requestsSent = 0;

async function probe(
  target: Target,
  op: Operation,
  slot: Slot,
  value: Hostile,
): Promise<Failure | undefined> {
  requestNumber++;
  const pathValues = { ...op.pathValues };
  const query: Record<string, string> = Object.fromEntries(
    Object.entries(op.query).map(([k, v]) => [k, percentEncode(v)]),
  );
  const headers: Record<string, string> = { ...(await op.auth()) };
  for (const [name, base] of Object.entries(op.headers)) headers[name] = `${base}-${requestNumber}`;
  if (slot.part === 'path') pathValues[slot.name] = inUrl(value);
  if (slot.part === 'query') query[slot.name] = inUrl(value);
  if (slot.part === 'header') {
    const header = asHeader(value.text);
    if (header === undefined) return undefined;
    headers[slot.name] = header;
  }
  const payload = bodyText(op, slot, value);
  if (payload !== undefined) headers['content-type'] = 'application/json';
  op.finish?.(headers, payload, slot);
  const search = Object.entries(query)
    .map(([k, v]) => `${encodeURIComponent(k)}=${v}`)
    .join('&');
  const requestId = `fz-${requestNumber}`;
  headers['x-request-id'] = requestId;
  const url = `${fillPath(op.route, pathValues)}${search ? `?${search}` : ''}`;
  requestsSent++;
  const response = await target.app.inject({
    method: op.method,
    url,
    headers,
    ...(payload !== undefined ? { payload } : {}),
  });
  await op.answered?.(response.statusCode, response.body);
  const status = response.statusCode;
  const failure = { op, slot, value, status, body: response.body.slice(0, 300) };
  if (status >= 500) return { ...failure, kind: '5xx', logged: loggedError(target.logs, requestId) };
  if (op.api && status >= 400 && !isErrorShape(response.body)) {
    return { ...failure, kind: 'error shape', logged: String(response.headers['content-type'] ?? '') };
  }
  return undefined;
}

/** Every slot with its constant values, then generated ones; every failure is kept. */
async function fuzzOperation(target: Target, op: Operation): Promise<Failure[]> {
  const failures: Failure[] = [];
  if (op.slots.length === 0) return failures;
  const examples: [{ slot: Slot; value: Hostile }][] = op.slots.flatMap((slot) =>
    examplesFor(slot).map((value): [{ slot: Slot; value: Hostile }] => [{ slot, value }]),
  );
  const input = fc
    .constantFrom(...op.slots)
    .chain((slot) => fc.record({ slot: fc.constant(slot), value: valuesFor(slot.part) }));
  await fc.assert(
    fc.asyncProperty(input, async ({ slot, value }) => {
      const failure = await probe(target, op, slot, value);
      if (failure) failures.push(failure);
    }),
    // fast-check counts the examples in numRuns.
    { seed: SEED, numRuns: examples.length + GENERATED_RUNS, examples },
  );
  return failures;
}

/** One line per (slot, status, logged error), with the values that gave it. */
function report(failures: Failure[]): string {
  const groups = new Map<string, Failure[]>();
  for (const f of failures) {
    const key = `${f.op.method} ${f.op.route} | ${f.slot.part} ${f.slot.name} → ${f.kind} ${f.status} ${f.logged}`;
    groups.set(key, [...(groups.get(key) ?? []), f]);
  }
  return [...groups.entries()]
    .map(([key, group]) => {
      const values = [...new Map(group.map((f) => [`${f.value.label} ${show(f.value)}`, f])).keys()];
      return `${key}\n    values: ${values.slice(0, 12).join(', ')}${values.length > 12 ? `, … (${values.length} in all)` : ''}\n    body: ${group[0]!.body}`;
    })
    .join('\n');
}

export async function fuzzAll(t: TestContext, target: Target, ops: Operation[]): Promise<void> {
  const failures: Failure[] = [];
  const sentBefore = requestsSent;
  for (const op of ops) failures.push(...(await fuzzOperation(target, op)));
  // For whoever tunes the run time.
  t.diagnostic(`${requestsSent - sentBefore} requests to ${ops.length} routes`);
  assert.equal(failures.length, 0, `${failures.length} hostile requests failed:\n${report(failures)}`);
}
