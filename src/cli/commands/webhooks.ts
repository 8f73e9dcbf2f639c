import type { Command } from 'commander';
import { CliError, operatorClient, withOperatorOptions } from '../operator-client.ts';
import { jsonOutput, safe, table } from '../output.ts';

interface EventOut {
  event_id: string;
  integrator_id: string;
  type: string;
  created_at: string;
  status: string;
  attempt_count: number;
  attempts_in_round: number;
  next_attempt_at: string | null;
  last_attempt_at: string | null;
  last_status_code: number | null;
  last_error: string | null;
  delivered_at: string | null;
  failed_at: string | null;
}

interface AttemptOut {
  number: number;
  url: string;
  attempted_at: string;
  latency_ms: number;
  status_code: number | null;
  outcome: string;
  error: string | null;
  response_body: string | null;
  next_attempt_at: string | null;
}

interface EndpointOut {
  integrator_id: string;
  webhook_url: string | null;
  state: string;
  disabled_at: string | null;
  disabled_reason: string | null;
  secret_rotated_at: string | null;
  previous_secret_expires_at: string | null;
  pending: number;
  failed: number;
}

const STATUSES = ['pending', 'delivered', 'failed', 'not_sent'];

function status(value: string): string {
  if (!STATUSES.includes(value))
    throw new CliError(safe`--status "${value}": choose one of ${STATUSES.join(', ')}`);
  return value;
}

/** An ISO 8601 time, passed on as the API's UTC form. */
function isoTime(value: string): string {
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime())) {
    throw new CliError(safe`"${value}" is not an ISO 8601 time, e.g. 2026-03-01T09:00:00Z`);
  }
  return at.toISOString();
}

function limit(value: string): number {
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < 1 || n > 100) throw new CliError(safe`--limit "${value}": 1 to 100`);
  return n;
}

function describeState(event: EventOut): string {
  switch (event.status) {
    case 'pending':
      return safe`pending, next attempt ${event.next_attempt_at ?? 'now'}`;
    case 'delivered':
      return safe`delivered ${event.delivered_at}`;
    case 'failed':
      return safe`failed ${event.failed_at}`;
    default:
      return 'not sent (no webhook URL when it happened)';
  }
}

function print(json: boolean | undefined, value: unknown, text: () => string): void {
  process.stdout.write(`${json ? jsonOutput(value) : text()}\n`);
}

function eventLines(event: EventOut): string[] {
  const lines = [
    safe`event_id               ${event.event_id}`,
    safe`type                   ${event.type}`,
    safe`integrator_id          ${event.integrator_id}`,
    safe`created_at             ${event.created_at}`,
    safe`status                 ${describeState(event)}`,
    safe`attempts               ${event.attempt_count} (${event.attempts_in_round} in this round)`,
  ];
  if (event.last_error) lines.push(safe`last error             ${event.last_error}`);
  return lines;
}

function attemptLines(attempt: AttemptOut): string[] {
  const answer = attempt.status_code === null ? 'no answer' : `HTTP ${attempt.status_code}`;
  const lines = [
    safe`  #${attempt.number}  ${attempt.attempted_at}  ${answer}  ${attempt.latency_ms} ms  ${attempt.outcome}${
      attempt.next_attempt_at ? `, next ${attempt.next_attempt_at}` : ''
    }`,
    safe`      ${attempt.url}`,
  ];
  if (attempt.error) lines.push(safe`      ${attempt.error}`);
  if (attempt.response_body) lines.push(safe`      response: ${JSON.stringify(attempt.response_body)}`);
  return lines;
}

function endpointLines(endpoint: EndpointOut): string[] {
  const lines = [
    safe`integrator_id          ${endpoint.integrator_id}`,
    safe`webhook_url            ${endpoint.webhook_url ?? '(none: events are kept, nothing is sent)'}`,
    safe`state                  ${endpoint.state}`,
  ];
  if (endpoint.disabled_reason) lines.push(safe`disabled               ${endpoint.disabled_reason}`);
  if (endpoint.secret_rotated_at) lines.push(safe`secret rotated         ${endpoint.secret_rotated_at}`);
  if (endpoint.previous_secret_expires_at) {
    lines.push(safe`previous secret signs  until ${endpoint.previous_secret_expires_at}`);
  }
  lines.push(safe`deliveries             ${endpoint.pending} pending, ${endpoint.failed} failed`);
  return lines;
}

/** `rentpay webhooks ...`: the delivery log, redelivery, endpoints and secret rotation. */
export function registerWebhookCommands(program: Command): void {
  const webhooks = program
    .command('webhooks')
    .description('Webhook deliveries: list, show, redeliver; endpoints and secrets');

  withOperatorOptions(
    webhooks
      .command('list')
      .description('List events and their delivery state, newest first')
      .option('--integrator <integrator_id>', 'only this integrator’s events')
      .option('--status <status>', `only events whose delivery is ${STATUSES.join(', ')}`, status)
      .option('--type <type>', 'only events of this type, e.g. payment_success')
      .option('--since <iso time>', 'only events recorded at or after this time', isoTime)
      .option('--limit <n>', 'at most this many, 1 to 100 (default 20)', limit)
      .option('--starting-after <event_id>', 'the page after this event'),
  ).action(async (options) => {
    const query = new URLSearchParams();
    if (options.integrator) query.set('integrator_id', options.integrator);
    if (options.status) query.set('status', options.status);
    if (options.type) query.set('type', options.type);
    if (options.since) query.set('since', options.since);
    if (options.limit) query.set('limit', String(options.limit));
    if (options.startingAfter) query.set('starting_after', options.startingAfter);
    const page = await operatorClient(options).request<{ data: EventOut[]; has_more: boolean }>(
      'GET',
      query.size > 0 ? `/webhooks/events?${query}` : '/webhooks/events',
    );
    print(options.json, page, () => {
      if (page.data.length === 0) return 'No events.';
      const rows = page.data.map((e) => [
        e.event_id,
        e.type,
        e.status,
        String(e.attempt_count),
        e.last_status_code === null ? '-' : String(e.last_status_code),
        e.created_at,
        e.integrator_id,
      ]);
      const lines = [
        table(['EVENT_ID', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST', 'CREATED_AT', 'INTEGRATOR'], rows),
      ];
      if (page.has_more)
        lines.push('', safe`More: run again with --starting-after ${page.data.at(-1)!.event_id}`);
      return lines.join('\n');
    });
  });

  withOperatorOptions(
    webhooks.command('show <event_id>').description('Show one event, the body sent and every attempt'),
  ).action(async (eventId: string, options) => {
    const event = await operatorClient(options).request<
      EventOut & { payload: string; attempts: AttemptOut[] }
    >('GET', `/webhooks/events/${encodeURIComponent(eventId)}`);
    print(options.json, event, () =>
      [
        ...eventLines(event),
        safe`payload                ${event.payload}`,
        event.attempts.length === 0 ? 'attempts               (none yet)' : 'attempts:',
        ...event.attempts.flatMap(attemptLines),
      ].join('\n'),
    );
  });

  withOperatorOptions(
    webhooks
      .command('redeliver [event_id]')
      .description('Send one event again (same webhook-id), or every delivery failed since a time')
      .option(
        '--failed-since <iso time>',
        'redeliver every delivery that failed at or after this time',
        isoTime,
      )
      .option('--integrator <integrator_id>', 'with --failed-since: only this integrator’s deliveries'),
  ).action(async (eventId: string | undefined, options) => {
    const api = operatorClient(options);
    if ((eventId === undefined) === (options.failedSince === undefined)) {
      throw new CliError('Give an event id or --failed-since <time>, not both.');
    }
    if (eventId !== undefined) {
      const event = await api.request<EventOut>(
        'POST',
        `/webhooks/events/${encodeURIComponent(eventId)}/redeliver`,
        {},
      );
      print(options.json, event, () => safe`Redelivering ${event.event_id}: ${describeState(event)}`);
      return;
    }
    const result = await api.request<{ redelivered: number }>('POST', '/webhooks/redeliver', {
      failed_since: options.failedSince,
      integrator_id: options.integrator,
    });
    print(options.json, result, () => safe`Redelivering ${result.redelivered} failed deliveries.`);
  });

  withOperatorOptions(
    webhooks
      .command('retry-pending')
      .description('Attempt every pending delivery now (after a receiver’s outage), same webhook-id')
      .option('--integrator <integrator_id>', 'only this integrator’s deliveries'),
  ).action(async (options) => {
    const result = await operatorClient(options).request<{ count: number }>(
      'POST',
      '/webhooks/retry-pending',
      {
        integrator_id: options.integrator,
      },
    );
    print(options.json, result, () => safe`Attempting ${result.count} pending deliveries now.`);
  });

  withOperatorOptions(
    webhooks.command('endpoint <integrator_id>').description('Show an integrator’s webhook endpoint'),
  ).action(async (integratorId: string, options) => {
    const endpoint = await operatorClient(options).request<EndpointOut>(
      'GET',
      `/integrators/${encodeURIComponent(integratorId)}/webhook`,
    );
    print(options.json, endpoint, () => endpointLines(endpoint).join('\n'));
  });

  withOperatorOptions(
    webhooks.command('enable <integrator_id>').description('Enable an endpoint disabled by a 410 Gone'),
  ).action(async (integratorId: string, options) => {
    const endpoint = await operatorClient(options).request<EndpointOut>(
      'POST',
      `/integrators/${encodeURIComponent(integratorId)}/webhook/enable`,
      {},
    );
    print(options.json, endpoint, () => endpointLines(endpoint).join('\n'));
  });

  withOperatorOptions(
    webhooks
      .command('rotate-secret <integrator_id>')
      .description('Issue a new webhook secret; the old one keeps signing for 24 hours'),
  ).action(async (integratorId: string, options) => {
    const rotated = await operatorClient(options).request<{
      webhook_secret: string;
      previous_secret_expires_at: string;
    }>('POST', `/integrators/${encodeURIComponent(integratorId)}/webhook-secret/rotate`, {});
    print(options.json, rotated, () =>
      [
        safe`webhook_secret         ${rotated.webhook_secret}   (shown once)`,
        safe`previous secret signs  until ${rotated.previous_secret_expires_at}`,
      ].join('\n'),
    );
  });
}
