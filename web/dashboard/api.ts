/**
 * The dashboard API (/api/dashboard) as the pages use it: JSON both ways, the session in its HttpOnly cookie (the
 * browser sends it), the session's CSRF token on every change. Nothing of the person is kept anywhere but in memory.
 */

import type { Permission, Role } from '../../src/shared/roles.ts';

export type { Permission, Role };

export interface SignedIn {
  person: { id: string; email: string; role: Role; integrator_id: string | null };
  permissions: Permission[];
  csrf_token: string;
  session: { second_factor: 'totp' | 'passkey'; expires_at: string; idle_expires_at: string };
}

export interface Invite {
  email: string;
  role: Role;
  team: { id: string; name: string } | null;
  expires_at: string;
  totp: { secret: string; uri: string; qr_svg: string };
}

export interface PasskeyOptions {
  challenge_id: string;
  options: Record<string, unknown>;
}

export interface WebhookEndpoint {
  url: string | null;
  state: 'enabled' | 'disabled';
  created_at: string;
  updated_at: string;
  previous_secret_expires_at: string | null;
  /** Only in the answer of the set that made the first secret. */
  secret?: string;
}

export type EventStatus = 'pending' | 'delivered' | 'failed' | 'not_sent';

export interface WebhookEvent {
  event_id: string;
  type: string;
  created_at: string;
  status: EventStatus;
  attempt_count: number;
  attempts_in_round: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  failed_at: string | null;
}

export interface WebhookAttempt {
  number: number;
  url: string;
  attempted_at: string;
  latency_ms: number;
  status_code: number | null;
  outcome: 'delivered' | 'retry' | 'failed' | 'disabled';
  error: string | null;
  response_body: string | null;
  next_attempt_at: string | null;
}

export interface WebhookEventDetail extends WebhookEvent {
  payload: string;
  attempts: WebhookAttempt[];
}

export interface TeamMember {
  id: string;
  email: string;
  role: Role;
  status: 'invited' | 'active' | 'removed';
  created_at: string;
}

export interface AuditEntry {
  audit_entry_id: string;
  seq: number;
  created_at: string;
  actor: { type: string; [key: string]: unknown };
  action: string;
  target: { type: string; id: string };
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
  address: string | null;
  request_id: string | null;
}

export interface Page<T> {
  data: T[];
  has_more: boolean;
}

/** A refusal: `code` and `detail` from `{error, detail}`, or `fields` (dotted path → messages) for invalid fields. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly fields: Record<string, string[]> = {},
  ) {
    super(detail);
  }

  /** The message of a field, if the server named it. */
  field(path: string): string | undefined {
    return this.fields[path]?.join(' ');
  }

  /** Messages of fields other than `known`, as one sentence (or the detail when no field was named). */
  rest(known: string[]): string | undefined {
    const others = Object.entries(this.fields).filter(([path]) => !known.includes(path));
    if (others.length === 0) return Object.keys(this.fields).length === 0 ? this.message : undefined;
    return others.map(([, messages]) => messages.join(' ')).join(' ');
  }
}

export const NETWORK_FAILED = 'rentpay could not be reached. Check your connection and try again.';

let csrfToken: string | undefined;

/** The signed-in session's CSRF token, sent with every change from now on. */
export function setCsrfToken(token: string): void {
  csrfToken = token;
}

/** Why the login page is shown: a message it gives (see Login). */
export type LoginReason = 'expired' | 'signed_out' | 'signin';

let leaving = false;

/** Leaves for the login page; the first reason given wins (a later refusal of the same ended session says less). */
export function goToLogin(reason: LoginReason): void {
  if (leaving) return;
  leaving = true;
  location.assign(`/dashboard/login?reason=${reason}`);
}

/**
 * A call to the dashboard API. `signedOut` calls (set-up, sign-in) take a 401 as an answer; any other call's 401
 * means the session is over, so the page goes to the login page (and the call never settles). `headers` adds to the
 * request's own (a refund's Idempotency-Key).
 */
export async function call<T>(
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  body?: unknown,
  options: { signedOut?: boolean; headers?: Record<string, string> } = {},
): Promise<T> {
  const headers: Record<string, string> = { ...options.headers, accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && csrfToken) headers['x-csrf-token'] = csrfToken;
  let response: Response;
  try {
    response = await fetch(`/api/dashboard${path}`, {
      method,
      headers,
      credentials: 'same-origin',
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
  } catch {
    throw new ApiError(0, 'network', NETWORK_FAILED);
  }
  const text = await response.text();
  let answer: unknown;
  try {
    answer = text ? JSON.parse(text) : undefined;
  } catch {
    answer = undefined;
  }
  if (response.ok) return answer as T;
  const problem = (answer ?? {}) as Record<string, unknown>;
  if (typeof problem.error === 'string') {
    const detail = typeof problem.detail === 'string' ? problem.detail : problem.error;
    if (response.status === 401 && !options.signedOut) {
      goToLogin(problem.error === 'session_expired' ? 'expired' : 'signin');
      return new Promise<T>(() => {});
    }
    throw new ApiError(response.status, problem.error, detail);
  }
  if (response.status === 400 && Object.values(problem).every(Array.isArray)) {
    const fields = problem as Record<string, string[]>;
    const first = Object.values(fields)[0]?.[0] ?? 'Check the fields.';
    throw new ApiError(400, 'invalid_fields', first, fields);
  }
  throw new ApiError(
    response.status,
    'unexpected',
    `Something went wrong on rentpay’s side (${response.status}). Try again in a moment.`,
  );
}
