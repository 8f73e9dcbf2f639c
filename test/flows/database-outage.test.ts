/**
 * A database outage, on a PostgreSQL server of this test's own: while it is down every API answers 503
 * unavailable with Retry-After (logged at warn, never as an unhandled error), /readyz says so, and once it is back
 * the same app answers again with no restart.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '../../src/platform/db/db.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp } from '../support/helpers.ts';
import { type PgCluster, startPgCluster } from '../support/pg-cluster.ts';

describe('database outage', () => {
  let cluster: PgCluster;
  let t: TestApp;
  let token: string;

  before(async () => {
    cluster = await startPgCluster();
    const databaseUrl = cluster.url;
    t = await startTestApp({
      database: {
        databaseUrl,
        dataDir: 'memory://',
        open: () => openDatabase({ databaseUrl, dataDir: 'memory://', poolSize: 5 }),
        drop: async () => undefined,
      },
    });
    ({ token } = await t.createIntegrator());
  });

  after(async () => {
    await t?.close();
    cluster?.destroy();
  });

  const requests = () => [
    t.app.inject({
      method: 'GET',
      url: '/api/third-party/session/ses_unknown/',
      headers: { authorization: `Token ${token}` },
    }),
    t.app.inject({
      method: 'GET',
      url: '/api/operator/integrators',
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    }),
    t.app.inject({
      method: 'POST',
      url: '/api/third-party/user-login/',
      headers: { authorization: `Token ${token}` },
      payload: { user_id: 1, email: 'nobody@example.com' },
    }),
  ];

  it('answers 503 unavailable with Retry-After while the database is down, and recovers without a restart', async () => {
    const before = await Promise.all(requests());
    assert.deepEqual(
      before.map((response) => response.statusCode),
      [404, 200, 404],
      before.map((response) => response.body).join('\n'),
    );

    cluster.stop('fast');
    const down = await Promise.all(requests());
    for (const response of down) {
      assert.equal(response.statusCode, 503, response.body);
      assert.equal(response.headers['retry-after'], '5');
      const body = response.json();
      assert.equal(body.error, 'unavailable');
      assert.match(body.detail, /Retry after 5 s/);
    }
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 503);
    const lines = t.logs.lines.map((line) => JSON.parse(line) as { level: string; msg: string });
    assert.ok(lines.some((line) => line.msg === 'database unavailable' && line.level === 'warn'));
    assert.deepEqual(
      lines.filter((line) => line.level === 'error' || line.level === 'fatal').map((line) => line.msg),
      [],
      'an outage is no unhandled error',
    );

    cluster.start();
    const back = await Promise.all(requests());
    assert.deepEqual(
      back.map((response) => response.statusCode),
      [404, 200, 404],
      back.map((response) => response.body).join('\n'),
    );
    assert.equal((await t.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
  });
});
