import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  startDashboardApp,
} from '../../support/dashboard-client.ts';

describe('POST /api/dashboard/webhook-endpoint/rotate-secret/ (rotateWebhookSecret)', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  it('201: a new secret shown once, the previous one signing through the overlap; the audit entry names the person', async () => {
    const answer = await d.developer.post('/webhook-endpoint/rotate-secret/', { overlap_seconds: 3600 });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.match(answer.body.secret, /^whsec_/);
    assert.notEqual(answer.body.secret, d.integrator.webhookSecret);
    assert.equal(
      answer.body.previous_secret_expires_at,
      new Date(d.t.clock.now().getTime() + 3_600_000).toISOString(),
    );
    const log = await d.admin.get('/audit-log/?limit=1');
    assert.equal(log.body.data[0].action, 'webhook_secret.rotate');
    assert.equal(log.body.data[0].actor.email, 'developer@platform.example');
    assert.equal(JSON.stringify(log.body).includes(answer.body.secret), false);
  });

  it('403 for a support agent’s crafted request with a valid session and CSRF token; the secret stays', async () => {
    const [before] = await d.t.db.query<{ webhook_secret: string }>(
      'SELECT webhook_secret FROM integrators WHERE id = $1',
      [d.integrator.id],
    );
    const refused = await d.support.post('/webhook-endpoint/rotate-secret/');
    assertError(
      refused,
      403,
      'forbidden',
      /^Your role \(support\) does not allow this \(webhooks\.manage\); ask an admin/,
    );
    const [after] = await d.t.db.query<{ webhook_secret: string }>(
      'SELECT webhook_secret FROM integrators WHERE id = $1',
      [d.integrator.id],
    );
    assert.equal(after?.webhook_secret, before?.webhook_secret);
  });

  itRefusesWithoutASession(() => d, 'POST', '/webhook-endpoint/rotate-secret/');
});
