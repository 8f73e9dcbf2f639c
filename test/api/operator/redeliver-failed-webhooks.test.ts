import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { type Api, operatorRequest } from '../../support/api-client.ts';
import { runJobs } from '../../support/helpers.ts';
import {
  assertFieldErrors,
  assertOperatorTokenRequired,
  startWebhookApp,
} from '../../support/operation-tests.ts';

const HOUR = 3_600_000;

describe('POST /api/operator/webhooks/redeliver (redeliverFailedWebhooks)', async () => {
  const w = await startWebhookApp();
  after(() => w.close());

  const redeliver = (body: object) => operatorRequest(w.t, 'POST', '/webhooks/redeliver', body);
  const status = async (id: string) => (await w.event(id)).status as string;

  /** A payment's event whose endpoint answered 503 to every attempt of its round (about 28 hours): failed. */
  function failedEvents(...apis: Api[]): Promise<string[]> {
    return w.answering({ status: 503 }, async () => {
      const ids = await w.paidEvents(...apis);
      await runJobs(w.t);
      for (let attempt = 2; attempt <= 8; attempt++) {
        w.t.clock.advance(11 * HOUR);
        await runJobs(w.t);
      }
      for (const id of ids) assert.equal(await status(id), 'failed');
      return ids;
    });
  }

  it('202: every delivery that failed since the time is pending again, then delivered with the same webhook-id', async () => {
    const since = w.t.clock.now().toISOString();
    const [id] = await failedEvents(w.api);
    const received = w.receiver.received.length;
    const answer = await redeliver({ failed_since: since });
    assert.equal(answer.status, 202, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, { redelivered: 1 });
    assert.equal(await status(id!), 'pending');
    await runJobs(w.t);
    assert.equal(await status(id!), 'delivered');
    assert.deepEqual(w.receiver.ids().slice(received), [id]);
    assert.deepEqual(
      (await redeliver({ failed_since: since })).body,
      { redelivered: 0 },
      'nothing failed now',
    );
  });

  it('only deliveries failed at or after failed_since, and only the integrator’s when integrator_id is given', async () => {
    const other = await w.otherIntegrator(w.receiver.url);
    const [mine, theirs] = await failedEvents(w.api, other);
    const later = new Date(w.t.clock.now().getTime() + 1000).toISOString();
    assert.deepEqual((await redeliver({ failed_since: later })).body, { redelivered: 0 });
    const answer = await redeliver({
      failed_since: '2026-01-01T00:00:00Z',
      integrator_id: other.integratorId,
    });
    assert.deepEqual(answer.body, { redelivered: 1 });
    assert.deepEqual([await status(mine!), await status(theirs!)], ['failed', 'pending']);
    await runJobs(w.t);
    assert.equal(await status(theirs!), 'delivered');
  });

  it('400 for a missing or malformed failed_since or integrator_id; nothing is redelivered', async () => {
    const since = w.t.clock.now().toISOString();
    const [id] = await failedEvents(w.api);
    await assertFieldErrors(redeliver, [
      [{}, { failed_since: ['This field is required.'] }],
      [{ failed_since: 'yesterday' }, { failed_since: ['Datetime has wrong format. Use ISO 8601.'] }],
      [
        { failed_since: since, integrator_id: 'nope' },
        { integrator_id: ['Enter an integrator id: "int_" followed by letters and digits.'] },
      ],
    ]);
    assert.equal(await status(id!), 'failed');
  });

  it('404 for an integrator_id that names no integrator; nothing is redelivered', async () => {
    const since = w.t.clock.now().toISOString();
    const [id] = await failedEvents(w.api);
    const answer = await redeliver({ failed_since: since, integrator_id: 'int_NoSuchIntegrator0000000' });
    assert.equal(answer.status, 404, JSON.stringify(answer.body));
    assert.match(JSON.stringify(answer.body), /No integrator int_NoSuchIntegrator0000000/);
    assert.equal(await status(id!), 'failed');
  });

  it('401 without the operator token, or with a wrong one; nothing is redelivered', async () => {
    const since = w.t.clock.now().toISOString();
    const [id] = await failedEvents(w.api);
    await assertOperatorTokenRequired(w.t, {
      method: 'POST',
      url: '/api/operator/webhooks/redeliver',
      payload: { failed_since: since },
    });
    assert.equal(await status(id!), 'failed');
  });
});
