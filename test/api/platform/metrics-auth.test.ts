/** GET /metrics behind METRICS_TOKEN: Prometheus scrapes with a bearer token, everyone else gets 401. */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from '../../support/helpers.ts';

const METRICS_TOKEN = 'rpm_metrics_token_0123456789abcdef';

describe('/metrics with METRICS_TOKEN set', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp({ config: { metricsToken: METRICS_TOKEN } });
  });
  after(() => t.close());

  it('answers the Prometheus text to the right bearer token', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/metrics',
      headers: { authorization: `Bearer ${METRICS_TOKEN}` },
    });
    assert.equal(response.statusCode, 200);
    assert.match(response.headers['content-type'] as string, /^text\/plain/);
    assert.match(response.body, /^# HELP rentpay_http_requests_total/m);
    assert.match(response.body, /rentpay_jobs\{status="pending"\}/);
  });

  for (const [name, authorization] of [
    ['no header', undefined],
    ['a wrong token', 'Bearer rpm_metrics_token_0123456789abcdeX'],
    ['a prefix of the token', `Bearer ${METRICS_TOKEN.slice(0, -1)}`],
    ['another scheme', `Token ${METRICS_TOKEN}`],
    ['the operator token', 'Bearer rpo_test_operator_token_0123456789abcdef'],
  ] as const) {
    it(`refuses ${name} with 401 and no metrics`, async () => {
      const response = await t.app.inject({
        method: 'GET',
        url: '/metrics',
        headers: authorization === undefined ? {} : { authorization },
      });
      assert.equal(response.statusCode, 401);
      assert.equal(response.headers['www-authenticate'], 'Bearer');
      assert.deepEqual(response.json(), {
        error: 'unauthorized',
        detail: 'Send "Authorization: Bearer <METRICS_TOKEN>".',
      });
      assert.doesNotMatch(response.body, /rentpay_/);
    });
  }

  it('leaves the health checks open', async () => {
    assert.equal((await t.app.inject('/healthz')).statusCode, 200);
    assert.equal((await t.app.inject('/readyz')).statusCode, 200);
  });
});

describe('/metrics without METRICS_TOKEN', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp();
  });
  after(() => t.close());

  it('is open, as on a private network', async () => {
    const response = await t.app.inject('/metrics');
    assert.equal(response.statusCode, 200);
    assert.match(response.body, /rentpay_http_requests_total/);
  });
});
