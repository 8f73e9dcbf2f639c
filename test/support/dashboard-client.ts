import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import type { InjectOptions } from 'fastify';
import { SYSTEM_ACTOR } from '../../src/audit/actor.ts';
import { totpCode, totpStep } from '../../src/people/totp.ts';
import type { Role } from '../../src/shared/roles.ts';
import { type Answer, assertError, send } from './api-client.ts';
import { startTestApp, type TestApp } from './helpers.ts';
import { Receiver } from './webhook-receiver.ts';

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

  /** Another session of the same person (signing in again, as from another browser). */
  async signInAgain(): Promise<DashboardPerson> {
    const answer = await signIn(this.t, this);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return new DashboardPerson(
      this.t,
      this.email,
      this.totpSecret,
      sessionCookie(answer),
      answer.body.csrf_token,
    );
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

/** An app with a platform and one signed-in person of each of its roles. */
export interface DashboardApp {
  t: TestApp;
  integrator: { id: string; token: string; webhookSecret: string };
  admin: DashboardPerson;
  developer: DashboardPerson;
  finance: DashboardPerson;
  support: DashboardPerson;
}

export async function startDashboardApp(
  options: Parameters<typeof startTestApp>[0] = {},
): Promise<DashboardApp> {
  const t = await startTestApp(options);
  const integrator = await t.createIntegrator();
  // A second apart, so the team lists them in this order.
  const person = (role: Role) => {
    t.clock.advance(1000);
    return signedInPerson(t, { team: integrator.id, email: `${role}@platform.example`, role });
  };
  return {
    t,
    integrator,
    admin: await person('admin'),
    developer: await person('developer'),
    finance: await person('finance'),
    support: await person('support'),
  };
}

/**
 * The refusals every signed-in route shares: 401 without a session cookie; for a change, 403 without the CSRF token
 * and 403 from another origin.
 */
export function itRefusesWithoutASession(
  d: () => DashboardApp,
  method: NonNullable<InjectOptions['method']>,
  path: string,
  payload?: unknown,
): void {
  const unsafe = method !== 'GET';
  it(`401 without a session${unsafe ? '; 403 without the CSRF token or from another origin' : ''}`, async () => {
    const { t, admin } = d();
    const body = payload === undefined ? {} : { payload: payload as Record<string, unknown> };
    const anonymous = await send(t, {
      method,
      url: `${DASHBOARD}${path}`,
      headers: fromDashboard(t),
      ...body,
    });
    assertError(anonymous, 401, 'unauthorized', /Sign in to the dashboard first/);
    const unknown = await send(t, {
      method,
      url: `${DASHBOARD}${path}`,
      headers: fromDashboard(t, { cookie: 'rentpay_session=rds_made_up', 'x-csrf-token': admin.csrfToken }),
      ...body,
    });
    assertError(unknown, 401, 'unauthorized');
    if (!unsafe) return;
    const noCsrf = await send(t, {
      method,
      url: `${DASHBOARD}${path}`,
      headers: fromDashboard(t, { cookie: admin.cookie }),
      ...body,
    });
    assertError(noCsrf, 403, 'forbidden', /CSRF token/);
    const crossSite = await send(t, {
      method,
      url: `${DASHBOARD}${path}`,
      headers: { origin: 'https://evil.example', cookie: admin.cookie, 'x-csrf-token': admin.csrfToken },
      ...body,
    });
    assertError(crossSite, 403, 'forbidden', /cannot change anything here/);
  });
}

/**
 * A dashboard app whose platform may set a webhook URL on this machine, and a receiver for it; started before the
 * suite's tests and closed after them.
 */
export function dashboardWithReceiver(): () => { d: DashboardApp; receiver: Receiver; url: string } {
  let d: DashboardApp;
  let receiver: Receiver;
  before(async () => {
    receiver = await Receiver.start();
    d = await startDashboardApp({ config: { allowPrivateWebhookHosts: true } });
  });
  after(async () => {
    await d.t.close();
    await receiver.close();
  });
  return () => ({ d, receiver, url: `http://127.0.0.1:${receiver.port}/hooks` });
}

/** The ids of the team's people, by role (one person per role, as startDashboardApp makes them). */
export async function teamIdsByRole(d: DashboardApp): Promise<Record<string, string>> {
  const ids: Record<string, string> = {};
  for (const person of (await d.admin.get('/team/')).body.data) ids[person.role] = person.id;
  return ids;
}
