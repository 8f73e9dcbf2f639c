import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { BODY_LIMIT_BYTES } from '../../../src/app.ts';
import { createLogger } from '../../../src/platform/log/logger.ts';
import { LogCapture, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';

const ROTATE = '/api/third-party/rotate-token/';

describe('HTTP plumbing', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await startTestApp();
    ({ token } = await t.createIntegrator());
  });
  after(() => t.close());

  describe('health and metrics', () => {
    it('/healthz and /readyz', async () => {
      assert.deepEqual((await t.app.inject('/healthz')).json(), { status: 'ok' });
      const ready = await t.app.inject('/readyz');
      assert.equal(ready.statusCode, 200);
      assert.deepEqual(ready.json(), { status: 'ready' });
    });

    it('/metrics counts requests by route and status and reports the job queue', async () => {
      await t.app.inject({ method: 'GET', url: '/api/third-party/integrator/', headers: tokenHeader(token) });
      await t.app.inject({ method: 'GET', url: '/api/third-party/integrator/' });
      const response = await t.app.inject('/metrics');
      assert.equal(response.statusCode, 200);
      assert.match(String(response.headers['content-type']), /^text\/plain/);
      const text = response.body;
      assert.match(
        text,
        /rentpay_http_requests_total\{method="GET",route="\/api\/third-party\/integrator\/",status_code="200"\} [1-9]/,
      );
      assert.match(text, /status_code="401"/);
      assert.match(text, /rentpay_http_request_duration_seconds_bucket\{le="0.005"/);
      assert.match(text, /rentpay_jobs\{status="pending"\} \d+/);
      assert.match(text, /rentpay_jobs_oldest_due_age_seconds \d+/);
    });

    it('unknown paths share one metrics label', async () => {
      await t.app.inject('/no/such/path/12345');
      const text = (await t.app.inject('/metrics')).body;
      assert.ok(!text.includes('12345'));
      assert.match(text, /route="unmatched",status_code="404"/);
    });
  });

  describe('OpenAPI and reference', () => {
    it('serves OpenAPI 3.1, version 1.0.0, with the Integration API only', async () => {
      const response = await t.app.inject('/api/third-party/openapi.json');
      assert.equal(response.statusCode, 200);
      const doc = response.json();
      assert.equal(doc.openapi, '3.1.0');
      assert.equal(doc.info.version, '1.0.0');
      assert.ok(doc.paths['/api/third-party/rotate-token/'].post);
      assert.ok(doc.paths['/api/third-party/integrator/'].get);
      for (const path of Object.keys(doc.paths)) assert.match(path, /^\/api\/third-party\//);
      const rotate = doc.paths['/api/third-party/rotate-token/'].post;
      assert.ok(rotate.requestBody.content['application/json'].schema.properties.grace_period_seconds);
      assert.ok(rotate.responses['201']);
      assert.ok(rotate.responses['401']);
      assert.equal(doc.components.securitySchemes.ServerToken.name, 'Authorization');
    });

    it('serves a readable reference at /docs from local files', async () => {
      const page = await t.app.inject('/docs/');
      assert.equal(page.statusCode, 200);
      assert.match(page.body, /<html/i);
      assert.doesNotMatch(page.body, /https?:\/\/(cdn|unpkg|cdnjs)/);
    });
  });

  describe('errors', () => {
    it('unknown route: 404 JSON', async () => {
      const response = await t.app.inject('/api/third-party/nope/');
      assert.equal(response.statusCode, 404);
      assert.equal(response.json().error, 'not_found');
    });

    it('a URL the router cannot read: 400 or 414 in the error shape', async () => {
      const badEncoding = await t.app.inject({
        url: '/api/third-party/session/%FF/',
        headers: tokenHeader(token),
      });
      assert.equal(badEncoding.statusCode, 400);
      assert.equal(badEncoding.json().error, 'invalid_request');
      const longSegment = await t.app.inject({
        url: `/api/third-party/session/${'x'.repeat(150)}/`,
        headers: tokenHeader(token),
      });
      assert.equal(longSegment.statusCode, 414);
      assert.deepEqual(Object.keys(longSegment.json()).sort(), ['detail', 'error']);
    });

    it('malformed JSON: 400 {error, detail}', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: ROTATE,
        headers: { ...tokenHeader(token), 'content-type': 'application/json' },
        payload: '{"grace_period_seconds": ',
      });
      assert.equal(response.statusCode, 400);
      assert.equal(response.json().error, 'invalid_json');
      assert.equal(typeof response.json().detail, 'string');
    });

    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
      it(`${contentType} body: 400 unsupported_content_type`, async () => {
        const response = await t.app.inject({
          method: 'POST',
          url: ROTATE,
          headers: { ...tokenHeader(token), 'content-type': contentType },
          payload: 'grace_period_seconds=5',
        });
        assert.equal(response.statusCode, 400);
        assert.deepEqual(response.json(), {
          error: 'unsupported_content_type',
          detail: 'Send the request body as application/json.',
        });
      });
    }

    it('a body over 5 MiB: 413 {error, detail}', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: ROTATE,
        headers: { ...tokenHeader(token), 'content-type': 'application/json' },
        payload: `{"pad": "${'x'.repeat(BODY_LIMIT_BYTES)}"}`,
      });
      assert.equal(response.statusCode, 413);
      assert.deepEqual(response.json(), {
        error: 'payload_too_large',
        detail:
          'The request body is larger than 5 MiB. Send less in each request, e.g. split a large onboarding array into several requests.',
      });
    });

    it('prototype pollution keys are dropped, not merged', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: ROTATE,
        headers: { ...tokenHeader(token), 'content-type': 'application/json' },
        payload: '{"__proto__": {"grace_period_seconds": -5}, "grace_period_seconds": 60}',
      });
      assert.equal(response.statusCode, 201);
      token = response.json().token;
    });
  });

  describe('request ids', () => {
    it('echoes a well-formed x-request-id and generates one otherwise', async () => {
      const echoed = await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } });
      assert.equal(echoed.headers['x-request-id'], 'abc-123');
      const generated = await t.app.inject({
        url: '/healthz',
        headers: { 'x-request-id': 'bad id with spaces' },
      });
      assert.match(String(generated.headers['x-request-id']), /^req_[A-Za-z0-9]{20}$/);
    });
  });
});

describe('logs', () => {
  it('carry the request id and never a token, secret or card number', async () => {
    const t = await startTestApp();
    try {
      const { token, webhookSecret } = await t.createIntegrator();
      await t.app.inject({
        method: 'GET',
        url: `/api/third-party/integrator/?token=${token}`,
        headers: { ...tokenHeader(token), 'x-request-id': 'trace-me' },
      });
      const rotated = await t.app.inject({
        method: 'POST',
        url: ROTATE,
        headers: tokenHeader(token),
        payload: {},
      });
      assert.equal(rotated.statusCode, 201);
      const lines = t.logs.lines.map((line) => JSON.parse(line));
      assert.ok(lines.some((l) => l.reqId === 'trace-me'));
      for (const secret of [token, rotated.json().token, webhookSecret, t.config.operatorToken!]) {
        assert.ok(!t.logs.text.includes(secret), 'secret found in logs');
      }
    } finally {
      await t.close();
    }
  });

  it('the logger scrubs card numbers, tokens and secret fields wherever they appear', () => {
    const capture = new LogCapture();
    const log = createLogger('info', capture);
    log.info(
      {
        body: { card_number: '4242424242424242', cvc: '123', note: 'paid with 4000 0027 6000 3184 today' },
        headers: { authorization: 'Token rp_sandbox_abc', cookie: 'sid=1' },
        nested: [{ secret: 'whsec_AAAA' }],
      },
      'charged 5555-5555-5555-4444 with rp_live_SECRETSECRET and whsec_c2VjcmV0',
    );
    const text = capture.text;
    for (const needle of [
      '4242424242424242',
      '123"',
      '4000 0027 6000 3184',
      'rp_sandbox_abc',
      'sid=1',
      'whsec_',
      '5555-5555',
      'rp_live_SECRET',
    ]) {
      assert.ok(!text.includes(needle), `${needle} leaked: ${text}`);
    }
    assert.match(text, /\[REDACTED\]/);
    assert.match(text, /paid with \[REDACTED\] today/);
  });
});
