import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../audit/actor.ts';
import type { DashboardSessions, SignedIn } from '../people/sessions.ts';
import { SESSION_ABSOLUTE_MS } from '../people/sessions.ts';
import type { Config } from '../platform/config/config.ts';
import { ServiceError } from '../platform/errors.ts';
import { digestsEqual } from '../platform/ids.ts';

declare module 'fastify' {
  interface FastifyRequest {
    /** The dashboard session of the request (routes of the dashboard API that need one). */
    dashboard: SignedIn;
  }
  interface FastifyContextConfig {
    /** A dashboard route anyone may call: setting up a sign-in, signing in. */
    signedOut?: boolean;
  }
}

export const CSRF_HEADER = 'x-csrf-token';
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** The session cookie: `__Host-` and Secure, except where the dashboard is served over plain http on this machine. */
export interface SessionCookie {
  name: string;
  secure: boolean;
}

export function sessionCookieFor(config: Pick<Config, 'publicUrl' | 'serviceEnv'>): SessionCookie {
  const url = new URL(config.publicUrl);
  const plainLoopback =
    config.serviceEnv === 'sandbox' && url.protocol === 'http:' && LOOPBACK.has(url.hostname);
  // A browser refuses a __Host- cookie without Secure, so the plain-http sandbox's cookie has no prefix.
  return plainLoopback
    ? { name: 'rentpay_session', secure: false }
    : { name: '__Host-rentpay_session', secure: true };
}

export function setSessionCookie(reply: FastifyReply, cookie: SessionCookie, token: string): void {
  reply.header('set-cookie', cookieHeader(cookie, token, SESSION_ABSOLUTE_MS / 1000));
}

export function clearSessionCookie(reply: FastifyReply, cookie: SessionCookie): void {
  reply.header('set-cookie', cookieHeader(cookie, '', 0));
}

function cookieHeader(cookie: SessionCookie, value: string, maxAgeSeconds: number): string {
  return `${cookie.name}=${value}; Path=/; Max-Age=${maxAgeSeconds}; HttpOnly; SameSite=Strict${cookie.secure ? '; Secure' : ''}`;
}

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const [key, ...value] = part.trim().split('=');
    if (key === name) return value.join('=');
  }
  return undefined;
}

/**
 * The dashboard API's guard, on every request: no caching of answers; a state-changing request must come from the
 * dashboard's own origin (Origin header); a signed-in route needs an open session (cookie) and, to change anything,
 * the session's CSRF token in `X-CSRF-Token`.
 */
export function dashboardGuard(sessions: DashboardSessions, cookie: SessionCookie, publicUrl: string) {
  const origin = new URL(publicUrl).origin;
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    reply.header('cache-control', 'no-store');
    const unsafe = UNSAFE_METHODS.has(request.method);
    if (unsafe && request.headers.origin !== origin) {
      throw new ServiceError(
        'forbidden',
        request.headers.origin === undefined
          ? 'This request has no Origin header: the dashboard API takes changes from the dashboard’s own pages only.'
          : `Requests from ${request.headers.origin} cannot change anything here: the dashboard API takes changes from ${origin} only.`,
      );
    }
    if (request.routeOptions.config.signedOut) return;
    const token = readCookie(request.headers.cookie, cookie.name);
    const found = token === undefined ? { expired: false } : await sessions.resolve(token);
    if (!('session' in found)) {
      if (token !== undefined) clearSessionCookie(reply, cookie);
      throw found.expired
        ? new ServiceError(
            'session_expired',
            'Your dashboard session has ended (30 minutes without use, 12 hours in all, or signed out). Sign in again.',
          )
        : new ServiceError('unauthorized', 'Sign in to the dashboard first (POST /api/dashboard/sign-in/).');
    }
    if (unsafe) {
      const sent = request.headers[CSRF_HEADER];
      if (typeof sent !== 'string' || !digestsEqual(sent, found.session.csrfToken)) {
        throw new ServiceError(
          'forbidden',
          `Send your session's CSRF token in the ${CSRF_HEADER} header (GET /api/dashboard/me/ gives it).`,
        );
      }
    }
    request.dashboard = found;
  };
}

/** The person of the request, as the services and the audit log see them. */
export function dashboardActor(request: FastifyRequest): Actor {
  const { person } = request.dashboard;
  return {
    kind: 'dashboard_user',
    userId: person.id,
    email: person.email,
    role: person.role,
    integratorId: person.integratorId,
    address: request.ip,
    requestId: request.id,
  };
}

/** The integrator whose pages these are: a person of the operator's staff has none (403). */
export function dashboardIntegrator(request: FastifyRequest): string {
  const { integratorId } = request.dashboard.person;
  if (integratorId === null) {
    throw new ServiceError(
      'forbidden',
      'This page belongs to a platform’s team; the operator’s staff work on platforms through the operator console.',
    );
  }
  return integratorId;
}

/**
 * The person of an operator console request, as the services see them: one of the operator's staff. A platform's
 * people get 403: the console works on every platform, theirs is only their own.
 */
export function dashboardOperator(request: FastifyRequest): Actor {
  if (request.dashboard.person.integratorId !== null) {
    throw new ServiceError(
      'forbidden',
      'The operator console is for the operator’s staff (operator_admin, operator_support); a platform’s people ' +
        'work on their own platform from its pages.',
    );
  }
  return dashboardActor(request);
}
