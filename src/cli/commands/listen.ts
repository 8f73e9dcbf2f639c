import { randomBytes } from 'node:crypto';
import { type Command, Option } from 'commander';
import { signedHeaders } from '../../webhooks/signing.ts';
import { CliError } from '../operator-client.ts';
import { printable, safe } from '../output.ts';

/** How often the service is asked for new events, and how long to wait after losing it. */
const POLL_MS = 1_000;
const RECONNECT_MS = 2_000;
/**
 * Events are asked for from this long before the newest one seen: an event's time is when its transaction began,
 * so one that committed late can carry an earlier time than an event already forwarded. The ids seen make sure
 * none is forwarded twice.
 */
const LOOKBACK_MS = 60_000;
const MAX_PAGES = 50;
const FORWARD_TIMEOUT_MS = 15_000;

interface ListedEvent {
  event_id: string;
  type: string;
  created_at: string;
  data: unknown;
}

class Unreachable extends Error {}

/**
 * `rentpay listen`: the local-development loop. Follows the integrator's events over the Integration API and
 * forwards each new one, signed (Standard Webhooks) with a secret made for this run, to a local URL. The service
 * never connects to this machine, so no private-address setting is needed.
 */
export class EventForwarder {
  readonly secret = `whsec_${randomBytes(24).toString('base64')}`;
  /** Event ids seen in this run (forwarded, or there before it began), with their time. */
  readonly #seen = new Map<string, number>();
  #newest: number | undefined;
  #connected = true;

  constructor(
    private readonly options: {
      baseUrl: string;
      token: string;
      forwardTo: string;
      types: string[] | undefined;
      write(line: string): void;
    },
  ) {}

  /** The events there already: not forwarded. Throws a CliError for a refused token. */
  async start(): Promise<void> {
    for (;;) {
      try {
        for (const event of await this.#fetchSince(undefined, 1)) this.#see(event);
        return;
      } catch (error) {
        if (!(error instanceof Unreachable)) throw error;
        this.#lost(error.message);
        await sleep(RECONNECT_MS);
      }
    }
  }

  /** One round: new events forwarded, oldest first. Returns how long to wait before the next. */
  async poll(): Promise<number> {
    let events: ListedEvent[];
    try {
      const since = this.#newest === undefined ? undefined : new Date(this.#newest - LOOKBACK_MS);
      events = await this.#fetchSince(since, MAX_PAGES);
    } catch (error) {
      if (!(error instanceof Unreachable)) throw error;
      this.#lost(error.message);
      return RECONNECT_MS;
    }
    if (!this.#connected) {
      this.#connected = true;
      this.options.write(`Reconnected to ${this.options.baseUrl}.`);
    }
    const fresh = events.filter((event) => !this.#seen.has(event.event_id)).reverse();
    for (const event of fresh) this.#see(event);
    for (const event of fresh) {
      if (this.options.types && !this.options.types.includes(event.type)) continue;
      await this.#forward(event);
    }
    this.#forget();
    return POLL_MS;
  }

  #see(event: ListedEvent): void {
    const at = Date.parse(event.created_at);
    this.#seen.set(event.event_id, at);
    if (this.#newest === undefined || at > this.#newest) this.#newest = at;
  }

  /** Ids older than any later lookback can reach are no longer needed. */
  #forget(): void {
    if (this.#newest === undefined) return;
    const horizon = this.#newest - 2 * LOOKBACK_MS;
    for (const [id, at] of this.#seen) if (at < horizon) this.#seen.delete(id);
  }

  #lost(reason: string): void {
    if (!this.#connected) return;
    this.#connected = false;
    this.options.write(
      `Lost ${this.options.baseUrl} (${reason}); trying again every ${RECONNECT_MS / 1000} s…`,
    );
  }

  /** Events at or after `since` (all of the newest page without it), newest first. */
  async #fetchSince(since: Date | undefined, pages: number): Promise<ListedEvent[]> {
    const events: ListedEvent[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < pages; page++) {
      const query = new URLSearchParams({ limit: '100' });
      if (since) query.set('since', since.toISOString());
      if (cursor) query.set('starting_after', cursor);
      const body = await this.#get(`/api/third-party/events/?${query}`);
      events.push(...body.data);
      if (!body.has_more || body.data.length === 0) break;
      cursor = body.data.at(-1)?.event_id;
    }
    return events;
  }

  async #get(path: string): Promise<{ data: ListedEvent[]; has_more: boolean }> {
    let response: Response;
    try {
      response = await fetch(`${this.options.baseUrl}${path}`, {
        headers: { authorization: `Token ${this.options.token}` },
        signal: AbortSignal.timeout(10_000),
      });
    } catch (error) {
      throw new Unreachable(String((error as Error).cause ?? (error as Error).message));
    }
    if ([502, 503, 504].includes(response.status)) throw new Unreachable(`HTTP ${response.status}`);
    const text = await response.text();
    if (response.status === 401 || response.status === 403) {
      throw new CliError(safe`The server token was refused (${response.status}): ${detailOf(text)}`);
    }
    if (!response.ok) throw new Unreachable(`HTTP ${response.status}: ${detailOf(text)}`);
    return JSON.parse(text);
  }

  async #forward(event: ListedEvent): Promise<void> {
    const body = JSON.stringify({ type: event.type, timestamp: event.created_at, data: event.data });
    const headers = signedHeaders([this.secret], event.event_id, new Date(), body);
    let outcome: string;
    try {
      const response = await fetch(this.options.forwardTo, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'rentpay-listen' },
        body,
        signal: AbortSignal.timeout(FORWARD_TIMEOUT_MS),
      });
      await response.arrayBuffer();
      outcome = `${response.status}`;
    } catch (error) {
      outcome = `failed: ${String((error as Error).cause ?? (error as Error).message)}`;
    }
    this.options.write(`${new Date().toISOString()}  ${event.type}  ${event.event_id}  -> ${outcome}`);
  }
}

function detailOf(text: string): string {
  try {
    const parsed = JSON.parse(text) as { detail?: string };
    return parsed.detail ?? text.slice(0, 200);
  } catch {
    return text.slice(0, 200);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function registerListenCommand(program: Command): void {
  program
    .command('listen')
    .description(
      'Forward your integration’s events to a local URL, signed with a secret printed at start ' +
        '(the local-development loop: no public URL and no private-address setting needed)',
    )
    .requiredOption('--forward-to <url>', 'where to POST each event, e.g. http://localhost:3000/webhooks')
    .addOption(
      new Option('--url <url>', 'base URL of the deployment')
        .env('RENTPAY_URL')
        .default('http://127.0.0.1:8080'),
    )
    .addOption(new Option('--token <token>', 'your server token').env('RENTPAY_SERVER_TOKEN'))
    .option(
      '--events <types>',
      'only these event types, comma-separated (e.g. payment_success,payment_failed)',
    )
    .action(async (options: { forwardTo: string; url: string; token?: string; events?: string }) => {
      if (!options.token) throw new CliError('No server token: pass --token or set RENTPAY_SERVER_TOKEN.');
      let target: URL;
      try {
        target = new URL(options.forwardTo);
      } catch {
        throw new CliError(
          safe`--forward-to "${options.forwardTo}": enter a URL such as http://localhost:3000/webhooks.`,
        );
      }
      if (target.protocol !== 'http:' && target.protocol !== 'https:') {
        throw new CliError(safe`--forward-to "${options.forwardTo}": use an http or https URL.`);
      }
      const forwarder = new EventForwarder({
        baseUrl: options.url.replace(/\/+$/, ''),
        token: options.token,
        forwardTo: target.toString(),
        types: options.events
          ?.split(',')
          .map((type) => type.trim())
          .filter(Boolean),
        // Each line carries what the service and the local receiver answered: escaped.
        write: (line) => process.stdout.write(`${printable(line)}\n`),
      });
      const stop = () => process.exit(0);
      process.on('SIGINT', stop);
      process.on('SIGTERM', stop);
      await forwarder.start();
      process.stdout.write(
        `Ready. Signing secret: ${forwarder.secret}\n` +
          safe`Forwarding new events from ${options.url} to ${target} (Ctrl-C to stop).\n`,
      );
      for (;;) await sleep(await forwarder.poll());
    });
}
