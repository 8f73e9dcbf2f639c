import assert from 'node:assert/strict';
import type { InjectOptions } from 'fastify';
import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
import { totpCode, totpStep } from '../../src/people/totp.ts';
import type { Role } from '../../src/shared/roles.ts';
import { type Answer, send } from './api-client.ts';
import type { TestApp } from './helpers.ts';

export const DASHBOARD = '/api/dashboard';
export const PASSWORD = 'correct horse battery staple';

/** A request from the dashboard's own page: its Origin, and JSON. */
export function fromDashboard(t: TestApp, headers: Record<string, string> = {}): Record<string, string> {
  return { origin: new URL(t.config.publicUrl).origin, ...headers };
}

/** The session cookie a sign-in answer set, as a Cookie header's value. */
export function sessionCookie(answer: Answer): string {
  const header = answer.headers['set-cookie'];
  const value = Array.isArray(header) ? header[0] : header;
  assert.ok(typeof value === 'string', `no session cookie was set: ${JSON.stringify(answer.body)}`);
  return value.split(';')[0]!;
}

/** Invites a person (as rentpay itself) and returns their set-up link's token. */
export async function invitePerson(
  t: TestApp,
  input: { team: string | null; email: string; role: Role },
): Promise<{ token: string; userId: string }> {
  const invited = await t.app.ctx.people.invite(SYSTEM_ACTOR, input);
  return { token: invited.link.split('#invite=')[1]!, userId: invited.user.id };
}

/** The code an authenticator app shows now (the fake clock's now), for a secret. */
export function currentCode(t: TestApp, secret: string): string {
  return totpCode(secret, totpStep(t.clock.now()));
}

/** A person signed in to the dashboard: requests carry their cookie, the dashboard's Origin and the CSRF token. */
export class DashboardPerson {
  constructor(
    readonly t: TestApp,
    readonly email: string,
    readonly totpSecret: string,
    public cookie: string,
    public csrfToken: string,
  ) {}

  request(method: InjectOptions['method'], path: string, payload?: unknown): Promise<Answer> {
    return send(this.t, {
      method,
      url: `${DASHBOARD}${path}`,
      headers: fromDashboard(this.t, {
        cookie: this.cookie,
        'x-csrf-token': this.csrfToken,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      }),
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
  }

  get(path: string): Promise<Answer> {
    return this.request('GET', path);
  }

  post(path: string, payload?: unknown): Promise<Answer> {
    return this.request('POST', path, payload);
  }
}

/** Invites a person, sets up their sign-in with an authenticator app through the API, and returns them signed in. */
export async function signedInPerson(
  t: TestApp,
  input: { team: string | null; email: string; role: Role },
): Promise<DashboardPerson> {
  const { token } = await invitePerson(t, input);
  const looked = await send(t, {
    method: 'POST',
    url: `${DASHBOARD}/setup/invite/`,
    headers: fromDashboard(t),
    payload: { invite: token },
  });
  assert.equal(looked.status, 200, JSON.stringify(looked.body));
  const secret: string = looked.body.totp.secret;
  const setUp = await send(t, {
    method: 'POST',
    url: `${DASHBOARD}/setup/`,
    headers: fromDashboard(t),
    payload: { invite: token, password: PASSWORD, totp: { secret, code: currentCode(t, secret) } },
  });
  assert.equal(setUp.status, 201, JSON.stringify(setUp.body));
  return new DashboardPerson(t, input.email, secret, sessionCookie(setUp), setUp.body.csrf_token);
}

/** Signs in with email, password and the app's code (the clock moves on a step first: a code works once). */
export async function signIn(
  t: TestApp,
  person: { email: string; totpSecret: string },
  overrides: Record<string, string> = {},
): Promise<Answer> {
  t.clock.advance(30_000);
  return send(t, {
    method: 'POST',
    url: `${DASHBOARD}/sign-in/`,
    headers: fromDashboard(t),
    payload: {
      email: person.email,
      password: PASSWORD,
      code: currentCode(t, person.totpSecret),
      ...overrides,
    },
  });
}
