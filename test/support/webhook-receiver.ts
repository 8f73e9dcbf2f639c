/** An integrator's webhook endpoint for the webhook suites: records every request and answers as told. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  /** The raw body, exactly as sent (what a signature covers). */
  body: string;
  /** Date.now() at arrival. */
  at: number;
}

export interface Reply {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** Send the status line, headers and `body`, then never end the body. */
  stallBody?: boolean;
}

/** What to do with a request: answer it, or 'hang' (never answer; the caller's timeout or a kill ends it). */
export type Responder = (request: Received, index: number) => Reply | 'hang' | Promise<Reply | 'hang'>;

export class Receiver {
  readonly received: Received[] = [];
  respond: Responder = () => ({ status: 200, body: 'ok' });
  /** webhook-ids with a request in progress right now, and how often one arrived while already in progress. */
  readonly inFlight = new Map<string, number>();
  concurrentDuplicates = 0;
  #arrivals: (() => void)[] = [];
  #server: http.Server;
  #sockets = new Set<import('node:net').Socket>();
  port = 0;

  private constructor() {
    this.#server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', async () => {
        const received: Received = {
          path: req.url ?? '/',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        };
        const id = String(req.headers['webhook-id']);
        if ((this.inFlight.get(id) ?? 0) > 0) this.concurrentDuplicates += 1;
        this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1);
        const done = () => this.inFlight.set(id, (this.inFlight.get(id) ?? 1) - 1);
        res.on('close', done);
        const index = this.received.push(received) - 1;
        for (const wake of this.#arrivals.splice(0)) wake();
        const answer = await this.respond(received, index);
        if (answer === 'hang') return;
        if (answer.delayMs) await new Promise((resolve) => setTimeout(resolve, answer.delayMs));
        res.writeHead(answer.status, answer.headers ?? {});
        if (answer.stallBody) res.write(answer.body ?? '');
        else res.end(answer.body ?? '');
      });
    });
    this.#server.on('connection', (socket) => {
      this.#sockets.add(socket);
      socket.on('close', () => this.#sockets.delete(socket));
    });
  }

  static async start(port = 0): Promise<Receiver> {
    const receiver = new Receiver();
    await receiver.listen(port);
    return receiver;
  }

  async listen(port = this.port): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      this.#server.once('error', reject);
      this.#server.listen(port, '127.0.0.1', () => resolve());
    });
    this.port = (this.#server.address() as AddressInfo).port;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  /** Stops listening (the port then refuses connections) and drops open connections. */
  async close(): Promise<void> {
    for (const socket of this.#sockets) socket.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }

  /** Resolves once `count` requests have arrived in all. */
  async waitFor(count: number, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.received.length} of ${count} webhooks arrived`);
      await new Promise<void>((resolve) => {
        this.#arrivals.push(resolve);
        setTimeout(resolve, 100);
      });
    }
  }

  ids(): string[] {
    return this.received.map((r) => String(r.headers['webhook-id']));
  }
}

/**
 * Verifies a delivery with the standardwebhooks library, as a receiver whose clock reads `now` (our fake
 * clock's time when it was sent): the library checks the timestamp against Date.now(). Throws if it fails.
 */
export function verify(secret: string, received: Pick<Received, 'headers' | 'body'>, now: Date): unknown {
  const realNow = Date.now;
  Date.now = () => now.getTime();
  try {
    return new Webhook(secret).verify(received.body, received.headers as Record<string, string>);
  } finally {
    Date.now = realNow;
  }
}
