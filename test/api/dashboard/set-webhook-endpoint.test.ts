import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  type DashboardApp,
  itRefusesWithoutASession,
  startDashboardApp,
} from '../../support/dashboard-client.ts';

describe('PUT /api/dashboard/webhook-endpoint/ (setWebhookEndpoint)', () => {
  let d: DashboardApp;
  before(async () => {
    d = await startDashboardApp();
  });
  after(() => d.t.close());

  it('200: a developer sets the URL, then removes it; audited with their email', async () => {
    const set = await d.developer.request('PUT', '/webhook-endpoint/', {
      url: 'https://platform.example/hooks',
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.equal(set.body.url, 'https://platform.example/hooks');
    const removed = await d.developer.request('PUT', '/webhook-endpoint/', { url: null });
    assert.equal(removed.body.url, null);
    const entries = await d.t.db.query<{ action: string; actor: { email: string } }>(
      `SELECT action, actor FROM audit_log WHERE scope = $1 AND action = 'integrator.update' ORDER BY seq`,
      [d.integrator.id],
    );
    assert.deepEqual(
      entries.map((e) => e.actor.email),
      ['developer@platform.example', 'developer@platform.example'],
    );
  });

  it('400 for a URL that is not http(s); 403 for finance and support', async () => {
    const bad = await d.admin.request('PUT', '/webhook-endpoint/', { url: 'ftp://platform.example/' });
    assert.deepEqual(bad.body, { url: ['Enter an http or https URL, e.g. https://example.com/webhooks.'] });
    for (const person of [d.finance, d.support]) {
      const refused = await person.request('PUT', '/webhook-endpoint/', {
        url: 'https://platform.example/x',
      });
      assertError(refused, 403, 'forbidden', /webhooks\.manage/);
    }
    assert.equal((await d.admin.get('/webhook-endpoint/')).body.url, null);
  });

  itRefusesWithoutASession(() => d, 'PUT', '/webhook-endpoint/', { url: null });
});
