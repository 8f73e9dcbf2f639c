/**
 * The findings of the outside security review, each as it was reproduced, over HTTP on the app: dates without
 * bounds, NUL bytes and control characters in paths, queries and bodies, an integer past any maximum, webhook URLs
 * that reach loopback through IPv4-in-IPv6 forms, an allowed-origin wildcard silently dropped, and guessed tokens
 * that were never limited. Refunds after payout, the webhook channel and the bank file have theirs beside their
 * features (payouts, integrator self-service); the CLI's escaping is in cli-escape.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Api, assertError, integrationApi, send, UNLIMITED } from '../support/api-client.ts';
import { installment, tenancyBody, userBody } from '../support/fixtures.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp, tokenHeader } from '../support/helpers.ts';

const RANGE = 'Enter a date from 1900-01-01 to 2199-12-31.';

let t: TestApp;
let api: Api;
let session: { token: string; session_id: string };

before(async () => {
  t = await startTestApp({ config: { authFailureLimit: { max: 20, windowMs: 60_000 } } });
  api = integrationApi(t, await t.createIntegrator({ ...UNLIMITED }));
  await api.onboardOk([userBody()]);
  session = await api.loginOk('tenant@example.com');
});
after(() => t.close());

const integration = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: unknown) =>
  send(t, {
    method,
    url: `/api/third-party${url}`,
    headers: {
      ...tokenHeader(api.serverToken),
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
  });

/** No request so far was answered 500 or logged as an unhandled error. */
function assertNoUnhandledErrors() {
  const unhandled = t.logs.lines.filter((line) => line.includes('"unhandled error"'));
  assert.deepEqual(unhandled, []);
}

describe('dates are bounded: 1900-01-01 … 2199-12-31, a tenancy at most 100 years', () => {
  it('onboarding refuses tenancy, installment and birth dates outside the range, on that field, writing nothing', async () => {
    const users = await t.db.query('SELECT id FROM users');
    for (const [field, value, overrides] of [
      [
        'tenant.0.start_rent_date',
        '0001-01-01',
        { tenant: [tenancyBody({ start_rent_date: '0001-01-01' })] },
      ],
      ['tenant.0.end_rent_date', '9999-12-31', { tenant: [tenancyBody({ end_rent_date: '9999-12-31' })] }],
      [
        'tenant.0.start_rent_date',
        '1899-12-31',
        { tenant: [tenancyBody({ start_rent_date: '1899-12-31' })] },
      ],
      ['tenant.0.end_rent_date', '2200-01-01', { tenant: [tenancyBody({ end_rent_date: '2200-01-01' })] }],
      ['date_of_birth', '1066-10-14', { date_of_birth: '1066-10-14' }],
      [
        'tenant.0.installment_payment.installments.1.due_date',
        '2999-01-01',
        {
          tenant: [
            tenancyBody({
              installment_payment: {
                total_amount: 2400,
                installments: [installment(1, '2026-01-01', 1200), installment(2, '2999-01-01', 1200)],
              },
            }),
          ],
        },
      ],
    ] as const) {
      const answer = await api.onboard(userBody({ user_id: 7, email: 'dates@example.com', ...overrides }));
      assert.equal(answer.status, 400, `${value}: ${JSON.stringify(answer.body)}`);
      assert.deepEqual(answer.body[field], [RANGE], `${field} ${value}: ${JSON.stringify(answer.body)}`);
    }
    assert.deepEqual(await t.db.query('SELECT id FROM users'), users);
  });

  it('a tenancy spans at most 100 years; exactly 100 is taken, and its ledger stays small', async () => {
    const century = (end: string) =>
      userBody({
        user_id: 8,
        email: 'century@example.com',
        tenant: [
          tenancyBody({ payment_reference: 'CENTURY', start_rent_date: '1926-01-01', end_rent_date: end }),
        ],
      });
    const tooLong = await api.onboard(century('2026-01-02'));
    assert.equal(tooLong.status, 400, JSON.stringify(tooLong.body));
    assert.deepEqual(tooLong.body['tenant.0.end_rent_date'], [
      'A tenancy spans at most 100 years: ensure this date is on or before 2026-01-01.',
    ]);
    await api.onboardOk(century('2026-01-01'));
    const ledger = await integration('GET', '/ledger/?payment_reference=CENTURY&as_of=2199-12-31');
    assert.equal(ledger.status, 200, JSON.stringify(ledger.body));
    assert.equal(ledger.body.entries.length, 1201, 'one due date a month for 100 years, and no further');
  });

  it('as_of, since and run-reminders: out of range is a 400 naming the range, not a 500', async () => {
    for (const asOf of ['9999-12-31', '0001-01-01', '1899-12-31', '2200-01-01']) {
      const ledger = await integration('GET', `/ledger/?payment_reference=REF-0001&as_of=${asOf}`);
      assertError(ledger, 400, 'invalid_request', /as_of: Enter a date from 1900-01-01 to 2199-12-31\./);
      const reminders = await integration('POST', '/sandbox/run-reminders/', { as_of: asOf });
      assert.equal(reminders.status, 400, JSON.stringify(reminders.body));
      assert.deepEqual(reminders.body, { as_of: [RANGE] });
      const schedules = await integration('POST', '/sandbox/run-schedules/', { as_of: asOf });
      assert.deepEqual([schedules.status, schedules.body], [400, { as_of: [RANGE] }]);
    }
    const since = await integration('GET', `/events/?since=${encodeURIComponent('9999-12-31T00:00:00Z')}`);
    assertError(
      since,
      400,
      'invalid_request',
      /since: Enter a time from 1900-01-01T00:00:00Z to 2199-12-31T23:59:59Z\./,
    );
    const runs = await send(t, {
      method: 'POST',
      url: '/api/operator/payouts/runs',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ as_of: '9999-12-31' }),
    });
    assert.equal(runs.status, 400, JSON.stringify(runs.body));
    assertNoUnhandledErrors();
  });
});

describe('input hygiene: NUL, lone surrogates and control characters are refused everywhere, never a 500', () => {
  // A URL cannot carry a lone surrogate: its UTF-8 bytes (%ED%A0%80) are not valid UTF-8, so a path with them is
  // refused as badly encoded and a query value keeps them as text; those are checked to be no 5xx, the rest a 400.
  const hostile = ['\u0000', 'a\u0000b', '\u001b[2J', 'x\r\ny', '\u0085', '\ud800'];

  it('in path ids, query values and the hosted page: 400 on the Integration, Client and Operator APIs', async () => {
    for (const value of hostile) {
      const raw = value === '\ud800' ? '%ED%A0%80' : encodeURIComponent(value);
      for (const [url, headers] of [
        [`/api/third-party/payments/pay_${raw}/refunds/`, tokenHeader(api.serverToken)],
        [`/api/third-party/session/${raw}/`, tokenHeader(api.serverToken)],
        [`/api/third-party/payments/?status=${raw}`, tokenHeader(api.serverToken)],
        [`/api/third-party/ledger/?payment_reference=${raw}`, tokenHeader(api.serverToken)],
        [`/api/third-party/payouts/?payment_reference=${raw}`, tokenHeader(api.serverToken)],
        [`/api/third-party/events/?type=${raw}`, tokenHeader(api.serverToken)],
        [`/api/client/payments/${raw}`, { authorization: `Bearer ${session.token}` }],
        [`/api/client/cards/${raw}`, { authorization: `Bearer ${session.token}` }],
        [`/api/operator/payments/${raw}`, { authorization: `Bearer ${OPERATOR_TOKEN}` }],
        [`/api/operator/integrators/${raw}`, { authorization: `Bearer ${OPERATOR_TOKEN}` }],
        [`/api/operator/webhooks/events?integrator_id=${raw}`, { authorization: `Bearer ${OPERATOR_TOKEN}` }],
        [`/third-party?session_id=${raw}`, {}],
        [`/third-party?token=${raw}&sdk=1&origin=${raw}`, {}],
      ] as const) {
        const answer = await send(t, { method: url.includes('/refunds/') ? 'POST' : 'GET', url, headers });
        if (value === '\ud800' && url.includes('?')) {
          assert.ok(answer.status < 500, `${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
          continue;
        }
        assert.equal(answer.status, 400, `${url}: ${answer.status} ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.error, 'invalid_request', `${url}: ${JSON.stringify(answer.body)}`);
      }
    }
    assertNoUnhandledErrors();
  });

  it('in body strings: 400 on the field, and the landlord name with CR/LF is refused at onboarding', async () => {
    const name = 'L\r\n400000,99999999,Mallory,9999.00,X';
    const onboard = await api.onboard(
      userBody({
        user_id: 9,
        email: 'crlf@example.com',
        tenant: [tenancyBody({ payment_reference: 'CRLF', recipient_bank_account_name: name })],
      }),
    );
    assert.equal(onboard.status, 400, JSON.stringify(onboard.body));
    assert.deepEqual(onboard.body, {
      'tenant.0.recipient_bank_account_name': [
        'Control characters (such as line breaks, tabs or escape codes) are not allowed.',
      ],
    });
    const nul = await api.login({ email: 'tenant@example.com', payment_reference: 'REF\u0000' });
    assert.deepEqual(
      [nul.status, nul.body],
      [400, { payment_reference: ['Null characters are not allowed.'] }],
    );
    const surrogate = await api.login({ email: 'tenant\ud800@example.com' });
    assert.deepEqual([surrogate.status, surrogate.body], [400, { email: ['Enter valid Unicode text.'] }]);
    const card = await send(t, {
      method: 'POST',
      url: '/api/client/payments',
      headers: { authorization: `Bearer ${session.token}`, 'content-type': 'application/json' },
      payload: JSON.stringify({ pure_amount: '1200.00', saved_card_id: 'card_\u0000' }),
    });
    assert.deepEqual([card.status, Object.keys(card.body)], [400, ['saved_card_id']]);
    const key = await integration('PUT', '/webhook-endpoint/', { ['url\u0007']: 'https://example.com' });
    assert.equal(key.status, 400, 'a key with a control character too');
    assertNoUnhandledErrors();
  });

  it('a body nested thousands deep is a 400 at once, not a stalled event loop or a 500', async () => {
    const deep = `${'['.repeat(5_000)}"x"${']'.repeat(5_000)}`;
    for (const url of ['/api/third-party/onboarding/', '/api/third-party/user-login/']) {
      const answer = await send(t, {
        method: 'POST',
        url,
        headers: { ...tokenHeader(api.serverToken), 'content-type': 'application/json' },
        payload: deep,
      });
      assertError(answer, 400, 'invalid_request', /more than 64 levels deep/);
    }
    const wide = JSON.stringify({ note: Array.from({ length: 50_000 }, (_, i) => ({ [`k${i}`]: 'v' })) });
    const answer = await api.onboard(JSON.parse(wide));
    assert.equal(answer.status, 400, 'refused by the schema, after the hygiene walk');
    assertNoUnhandledErrors();
  });

  it('ids have a pattern and integers in a query a maximum', async () => {
    const wrongId = await integration('GET', '/session/pay_3fQx8LmN2pRs7TvW9yZb1C/');
    assertError(
      wrongId,
      400,
      'invalid_request',
      /session_id: Enter a session id: "ses_" followed by letters and digits\./,
    );
    const unknown = await integration('GET', '/session/ses_3fQx8LmN2pRs7TvW9yZb1C/');
    assert.equal(unknown.status, 404, 'a well-formed unknown id is still a 404');
    const huge = await integration('GET', '/payments/?user_id=9223372036854775808');
    assertError(
      huge,
      400,
      'invalid_request',
      /user_id: Ensure this value is less than or equal to 9007199254740991\./,
    );
    assertNoUnhandledErrors();
  });
});

describe('webhook URLs and allowed origins', () => {
  it('IPv4-compatible and IPv4-translated IPv6 forms of loopback are not public addresses', async () => {
    for (const host of ['[::7f00:1]', '[::ffff:0:0:7f00:1]', '[::ffff:0:7f00:1]', '[::1]']) {
      const answer = await integration('PUT', '/webhook-endpoint/', { url: `https://${host}/hooks` });
      assert.equal(answer.status, 400, `${host}: ${JSON.stringify(answer.body)}`);
      assert.ok(answer.body.url, JSON.stringify(answer.body));
    }
    assert.equal((await integration('GET', '/webhook-endpoint/')).body.url, null, 'nothing was set');
  });

  it('an allowed_origins wildcard is refused with a message, not dropped', async () => {
    const answer = await send(t, {
      method: 'POST',
      url: '/api/operator/integrators',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
      payload: JSON.stringify({
        name: 'Wild',
        allowed_origins: ['https://ok.example', 'https://*.example.com', '*'],
      }),
    });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.match(answer.body['allowed_origins.1'][0], /^Wildcards are not allowed/);
    assert.ok(answer.body['allowed_origins.2'], JSON.stringify(answer.body));
    assert.equal(answer.body['allowed_origins.0'], undefined);
  });
});

describe('failed authentication is limited per client address', () => {
  it('20 failures a minute, then every token that needs a lookup is 429 with Retry-After until the minute ends', async () => {
    const lookups: string[] = [];
    const query = t.db.query.bind(t.db);
    t.db.query = (async (sql: string, params?: unknown[], options?: unknown) => {
      if (/token_hash/.test(sql)) lookups.push(sql);
      return (query as (...args: unknown[]) => unknown)(sql, params, options);
    }) as typeof t.db.query;
    const from = (ip: string, url: string, authorization: string) =>
      send(t, { method: 'GET', url, headers: { authorization }, remoteAddress: ip });
    const unknownServerToken = `Token rp_sandbox_${'A'.repeat(40)}`;
    try {
      for (let i = 0; i < 20; i++) {
        const surface = i % 3;
        const answer =
          surface === 0
            ? await from('203.0.113.7', '/api/third-party/webhook-endpoint/', 'Token rp_sandbox_short')
            : surface === 1
              ? await from('203.0.113.7', '/api/client/session', 'Bearer rp_ust_nope')
              : await from('203.0.113.7', '/api/operator/integrators', 'Bearer wrong-operator-token');
        assert.equal(answer.status, 401, JSON.stringify(answer.body));
      }
      assert.deepEqual(lookups, [], 'tokens of the wrong shape were never looked up');
      // Past the limit: a token that would be looked up is refused before the lookup, a good one too.
      for (const [url, authorization] of [
        ['/api/third-party/webhook-endpoint/', unknownServerToken],
        ['/api/client/session', `Bearer ${session.token}`],
        ['/api/client/session', `Bearer rp_ust_${'a'.repeat(43)}`],
      ] as const) {
        const limited = await from('203.0.113.7', url, authorization);
        assertError(limited, 429, 'rate_limited', /Too many failed authentications/);
        assert.equal(limited.headers['retry-after'], '60');
      }
      assert.deepEqual(lookups, [], 'and nothing was looked up past the limit');
      // What needs no lookup still works: the operator's token, and a server token this node has just checked.
      assert.equal(
        (await from('203.0.113.7', '/api/operator/integrators', `Bearer ${OPERATOR_TOKEN}`)).status,
        200,
      );
      const cached = await from(
        '203.0.113.7',
        '/api/third-party/webhook-endpoint/',
        `Token ${api.serverToken}`,
      );
      assert.equal(cached.status, 200, JSON.stringify(cached.body));
      const other = await from('203.0.113.8', '/api/client/session', `Bearer ${session.token}`);
      assert.equal(other.status, 200, 'another address is not limited');
      t.clock.advance(30_000);
      const later = await from(
        '203.0.113.7',
        '/api/third-party/webhook-endpoint/',
        `Token ${api.serverToken}`,
      );
      assert.equal(later.status, 429, 'no longer in this node’s memory: it needs a lookup');
      assert.equal(later.headers['retry-after'], '30');
      t.clock.advance(30_000);
      const again = await from(
        '203.0.113.7',
        '/api/third-party/webhook-endpoint/',
        `Token ${api.serverToken}`,
      );
      assert.equal(again.status, 200, 'the window is over');
    } finally {
      t.db.query = query;
    }
  });

  it('behind a proxy named by TRUST_PROXY, the client in X-Forwarded-For is counted, not the proxy', async () => {
    const proxied = await startTestApp({ config: { trustProxy: ['10.0.0.1'] } });
    try {
      const from = (client: string, peer = '10.0.0.1') =>
        send(proxied, {
          method: 'GET',
          url: '/api/client/session',
          headers: { authorization: `Bearer rp_ust_${'c'.repeat(43)}`, 'x-forwarded-for': client },
          remoteAddress: peer,
        });
      for (let i = 0; i < 20; i++) assert.equal((await from('198.51.100.1')).status, 401);
      assert.equal((await from('198.51.100.1')).status, 429, 'that client is limited');
      assert.equal((await from('198.51.100.2')).status, 401, 'another client behind the same proxy is not');
      // A peer that is not the proxy cannot choose its address by the header: it is counted as itself.
      for (let i = 0; i < 20; i++) assert.equal((await from('198.51.100.3', '192.0.2.9')).status, 401);
      assert.equal((await from('198.51.100.4', '192.0.2.9')).status, 429);
    } finally {
      await proxied.close();
    }
  });

  it('IPv6 clients are counted per /64', async () => {
    const from = (ip: string) =>
      send(t, {
        method: 'GET',
        url: '/api/third-party/webhook-endpoint/',
        headers: { authorization: `Token rp_sandbox_${'B'.repeat(40)}` },
        remoteAddress: ip,
      });
    for (let i = 0; i < 20; i++) assert.equal((await from(`2001:db8:1:2::${i + 1}`)).status, 401);
    assert.equal((await from('2001:db8:1:2:ffff::1')).status, 429, 'the same /64');
    assert.equal((await from('2001:db8:1:3::1')).status, 401, 'another /64');
  });
});
