import { createHmac } from 'node:crypto';
import http from 'node:http';
import { runReferenceServer } from './reference-child.ts';

/**
 * The webhooks-backlog yardstick: a bare delivery loop on the same database and backlog as webhooks-backlog-20k.
 * Lanes as many as the worker's per-integrator concurrency each claim a batch of pending deliveries with
 * `FOR UPDATE SKIP LOCKED` (a lease on next_attempt_at, so no transaction stays open over HTTP), POST each signed
 * body (Standard Webhooks: HMAC-SHA256 of "id.timestamp.body") with keep-alive to the receiver, and mark the batch
 * delivered and its jobs succeeded in one statement.
 */
const CLAIM = `
  WITH c AS (
    SELECT d.event_id FROM webhook_deliveries d
     WHERE d.integrator_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= now()
     ORDER BY d.next_attempt_at LIMIT $2
       FOR UPDATE SKIP LOCKED
  ), leased AS (
    UPDATE webhook_deliveries d SET next_attempt_at = now() + interval '1 minute'
      FROM c WHERE d.event_id = c.event_id
    RETURNING d.event_id
  )
  SELECT e.id, e.type, e.created_at, e.data FROM leased JOIN events e ON e.id = leased.event_id`;

const DONE = `
  WITH d AS (
    UPDATE webhook_deliveries SET status = 'delivered', delivered_at = now(), attempts = attempts + 1,
           last_attempt_at = now(), last_status_code = 204, next_attempt_at = NULL, pending_since = NULL,
           updated_at = now()
     WHERE event_id IN (SELECT jsonb_array_elements_text($1::jsonb))
    RETURNING job_id
  )
  UPDATE jobs SET status = 'succeeded', finished_at = now(), updated_at = now(), attempts = attempts + 1
    FROM d WHERE jobs.id = d.job_id`;

const BATCH = 25;
const LANES = Number(process.env.WORKER_CONCURRENCY_PER_INTEGRATOR ?? 16);

interface EventRow {
  id: string;
  type: string;
  created_at: Date | string;
  data: unknown;
}

runReferenceServer((app, query) => {
  const latencies: number[] = [];
  const agent = new http.Agent({ keepAlive: true, maxSockets: LANES });

  const post = (url: URL, headers: Record<string, string>, body: string) =>
    new Promise<void>((resolve, reject) => {
      const request = http.request(
        url,
        { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json' } },
        (response) => {
          response.resume();
          response.on('end', () =>
            (response.statusCode ?? 0) < 300 ? resolve() : reject(new Error(`${response.statusCode}`)),
          );
        },
      );
      request.on('error', reject);
      request.end(body);
    });

  const lane = async (integratorId: string, key: Buffer, url: URL) => {
    for (;;) {
      const events = await query<EventRow>('reference-claim', CLAIM, [integratorId, BATCH]);
      if (events.length === 0) return;
      for (const event of events) {
        const body = JSON.stringify({
          type: event.type,
          timestamp: new Date(event.created_at).toISOString(),
          data: event.data,
        });
        const timestamp = Math.floor(Date.now() / 1000);
        const signature = createHmac('sha256', key)
          .update(`${event.id}.${timestamp}.${body}`)
          .digest('base64');
        const sent = performance.now();
        await post(
          url,
          {
            'webhook-id': event.id,
            'webhook-timestamp': String(timestamp),
            'webhook-signature': `v1,${signature}`,
          },
          body,
        );
        latencies.push(performance.now() - sent);
      }
      await query('reference-done', DONE, [JSON.stringify(events.map((event) => event.id))]);
    }
  };

  app.post<{ Body: { url: string } }>('/bench/webhooks/start', async (request) => {
    const [integrator] = await query<{ id: string; webhook_secret: string }>(
      'reference-integrator',
      'SELECT id, webhook_secret FROM integrators ORDER BY created_at LIMIT 1',
      [],
    );
    if (!integrator) throw new Error('no integrator');
    const key = Buffer.from(integrator.webhook_secret.replace(/^whsec_/, ''), 'base64');
    const url = new URL(request.body.url);
    for (let i = 0; i < LANES; i++) {
      lane(integrator.id, key, url).catch((error: unknown) =>
        process.stderr.write(`lane failed: ${String(error)}\n`),
      );
    }
    return { started: `${LANES} lanes` };
  });
  app.get('/bench/webhooks/attempts', async () => ({ latencies_ms: latencies }));
  app.addHook('onClose', async () => agent.destroy());
});
