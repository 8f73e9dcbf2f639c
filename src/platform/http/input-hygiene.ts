import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type FieldErrors, FieldValidationError, ServiceError } from '../errors.ts';

/**
 * One step before any route's validation refuses text no field of any API wants: NUL (PostgreSQL cannot store it),
 * unpaired surrogates (not Unicode), and C0/C1 control characters (they break CSV lines and terminals and hide
 * text from whoever reads it). It covers every path parameter, query value and string in a JSON body, on every
 * surface. A route whose field does take some of them names the field in `config.controlCharactersAllowed`
 * (body paths, e.g. "notes"), which then may hold TAB, LF and CR; no route needs that today.
 */

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Dotted body paths (array indexes as numbers) whose strings may hold TAB, LF and CR. */
    controlCharactersAllowed?: readonly string[];
  }
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_GLOBAL = /[\u0000-\u001f\u007f-\u009f]/g;
const LONE_SURROGATE_GLOBAL = new RegExp(LONE_SURROGATE.source, 'g');
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const CONTROL_EXCEPT_WHITESPACE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** Why `value` is refused, or undefined. */
export function hostileTextProblem(value: string, allowLineBreaks = false): string | undefined {
  if (value.includes('\u0000')) return 'Null characters are not allowed.';
  if (LONE_SURROGATE.test(value)) return 'Enter valid Unicode text.';
  if ((allowLineBreaks ? CONTROL_EXCEPT_WHITESPACE : CONTROL).test(value)) {
    return 'Control characters (such as line breaks, tabs or escape codes) are not allowed.';
  }
  return undefined;
}

/** A parsed JSON object, query string or path parameters (a Buffer body, of a route that reads it raw, is not). */
function isPlainObject(value: unknown): value is Record<string, unknown> {
  return (
    value !== null && typeof value === 'object' && !ArrayBuffer.isView(value) && !(value instanceof Date)
  );
}

/** Arrays and objects nested deeper than this are refused: no API takes more than a few levels. */
export const MAX_NESTING = 64;

/** Where a string sits: its key and its parent's place, so a path is spelt out only for a string refused. */
interface Place {
  key: string;
  parent: Place | undefined;
  depth: number;
}

function pathOf(place: Place | undefined): string[] {
  const path: string[] = [];
  for (let at = place; at; at = at.parent) path.push(at.key);
  return path.reverse();
}

/**
 * Every string in `value` (keys of objects included) with its place, walked with a stack of its own: a body nested
 * thousands deep costs neither the call stack nor a copy of its path per level, and past MAX_NESTING is refused.
 */
function* strings(value: unknown): Generator<[Place | undefined, string]> {
  const stack: [unknown, Place | undefined][] = [[value, undefined]];
  while (stack.length > 0) {
    const [item, place] = stack.pop()!;
    if (typeof item === 'string') {
      yield [place, item];
      continue;
    }
    const isArray = Array.isArray(item);
    if (!isArray && !isPlainObject(item)) continue;
    const depth = (place?.depth ?? 0) + 1;
    if (depth > MAX_NESTING) {
      throw new ServiceError(
        'invalid_request',
        `The request nests arrays and objects more than ${MAX_NESTING} levels deep; no field takes that.`,
      );
    }
    const members: [string, unknown][] = isArray
      ? (item as unknown[]).map((member, i) => [String(i), member])
      : Object.entries(item as Record<string, unknown>);
    for (let i = members.length - 1; i >= 0; i--) {
      const [key, member] = members[i]!;
      const at = { key, parent: place, depth };
      if (typeof member === 'string' || (member !== null && typeof member === 'object'))
        stack.push([member, at]);
      if (!isArray) stack.push([key, at]);
    }
  }
}

/**
 * The dotted path of the first string in `value` (a key or a value) that PostgreSQL cannot store, not even in jsonb
 * (a NUL, an unpaired surrogate), or undefined: for bodies kept as they came, where control characters are fine.
 */
export function unstorableTextPath(value: unknown): string | undefined {
  for (const [place, text] of strings(value)) {
    if (text.includes('\u0000') || LONE_SURROGATE.test(text)) return pathText(pathOf(place)) || 'value';
  }
  return undefined;
}

function textPartProblems(value: unknown): string[] {
  const problems: string[] = [];
  for (const [place, text] of strings(value)) {
    const problem = hostileTextProblem(text);
    if (problem) problems.push(`${pathText(pathOf(place)) || 'value'}: ${problem}`);
  }
  return problems;
}

/** A path as text that shows what is odd in it: a key may be the hostile text itself. */
function pathText(path: string[]): string {
  return path
    .join('.')
    .replace(CONTROL_GLOBAL, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(LONE_SURROGATE_GLOBAL, (c) => `\\u${c.charCodeAt(0).toString(16)}`);
}

function bodyProblems(body: unknown, allowed: readonly string[] | undefined): FieldErrors {
  const fields: FieldErrors = {};
  for (const [place, text] of strings(body)) {
    if (!hostileTextProblem(text)) continue;
    const key = pathText(pathOf(place)) || 'non_field_errors';
    const problem = hostileTextProblem(text, allowed?.includes(key) ?? false);
    if (!problem) continue;
    const list = fields[key] ?? [];
    if (!list.includes(problem)) list.push(problem);
    fields[key] = list;
  }
  return fields;
}

function check(request: FastifyRequest): void {
  for (const [part, value] of [
    ['params', request.params],
    ['querystring', request.query],
  ] as const) {
    const problems = textPartProblems(value);
    if (problems.length > 0) {
      throw new ServiceError('invalid_request', `Invalid ${part}: ${problems.join('; ')}`);
    }
  }
  const fields = bodyProblems(request.body, request.routeOptions.config.controlCharactersAllowed);
  if (Object.keys(fields).length > 0) throw new FieldValidationError(fields);
}

/** Installs the step on every route of `app` (call before registering routes). */
export function installInputHygiene(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    try {
      check(request);
      done();
    } catch (error) {
      done(error as Error);
    }
  });
}
