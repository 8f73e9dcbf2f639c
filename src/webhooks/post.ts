import http from 'node:http';
import https from 'node:https';
import {
  type AddressPolicy,
  checkUrl,
  classifyError,
  FetchFailure,
  type PolicyAgents,
  policyAgents,
} from '../platform/net/safe-fetch.ts';
import { ATTEMPT_TIMEOUT_MS } from './schedule.ts';

/** How much of an endpoint's answer the delivery log keeps. */
export const RESPONSE_LOG_BYTES = 1024;

export interface PostOptions {
  /** ALLOW_PRIVATE_WEBHOOK_HOSTS: lifts the address rule (local testing only). */
  allowPrivate: boolean;
  /** Replaces the public-only rule (tests); ignored when allowPrivate is set. */
  isAllowedAddress?: AddressPolicy;
  timeoutMs?: number;
}

export interface PostResult {
  /** The HTTP status, when an answer came. */
  status?: number;
  /** The answer's Retry-After header, if any. */
  retryAfter?: string;
  /** The first RESPONSE_LOG_BYTES of the answer's body, as text. */
  body?: string;
  /** Why no usable answer came (timeout, refused address, connection...): a sentence for the delivery log. */
  error?: string;
  latencyMs: number;
}

class AttemptTimeout extends Error {}

/**
 * Connections are kept open and reused between deliveries (each was checked against the address rule when it was
 * opened), one pool per process for each setting of the rule; a caller's own policy (tests) gets agents of its own.
 */
const sharedAgents = new Map<boolean, PolicyAgents>();

function agentsFor(options: PostOptions): { agents: PolicyAgents; shared: boolean } {
  if (options.isAllowedAddress !== undefined && !options.allowPrivate) {
    return { agents: policyAgents(options), shared: false };
  }
  let agents = sharedAgents.get(options.allowPrivate);
  if (!agents) {
    agents = policyAgents({ allowPrivate: options.allowPrivate, keepAlive: true });
    sharedAgents.set(options.allowPrivate, agents);
  }
  return { agents, shared: true };
}

/** Endpoint URLs parsed and checked once (a worker posts to the same few again and again), the oldest dropped. */
const parsedUrls = new Map<string, URL>();
const PARSED_URLS_KEPT = 1_000;

function parsedUrl(rawUrl: string): URL {
  let url = parsedUrls.get(rawUrl);
  if (url) return url;
  url = new URL(rawUrl);
  checkUrl(url);
  if (parsedUrls.size >= PARSED_URLS_KEPT) parsedUrls.delete(parsedUrls.keys().next().value!);
  parsedUrls.set(rawUrl, url);
  return url;
}

/**
 * POSTs one webhook: http(s) only, no credentials in the URL, connections only to addresses the rule allows
 * (checked after DNS, as for documents), no redirects followed (a 3xx is the answer), and a time limit on the whole
 * exchange, reading at most the first 1 KB of the answer. Never throws.
 */
export async function postWebhook(
  rawUrl: string,
  headers: Record<string, string>,
  body: string,
  options: PostOptions,
): Promise<PostResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  let url: URL;
  try {
    url = parsedUrl(rawUrl);
  } catch (error) {
    return {
      error: error instanceof FetchFailure ? error.reason : 'The webhook URL is not a valid URL.',
      latencyMs: 0,
    };
  }
  const timeoutMs = options.timeoutMs ?? ATTEMPT_TIMEOUT_MS;
  const { agents, shared } = agentsFor(options);
  let request: http.ClientRequest | undefined;
  let finished = false;
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    request?.destroy(new AttemptTimeout());
  }, timeoutMs);
  const send = () =>
    new Promise<http.IncomingMessage>((resolve, reject) => {
      const client = url.protocol === 'https:' ? https : http;
      request = client.request({
        protocol: url.protocol,
        hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port === '' ? undefined : Number(url.port),
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          'user-agent': 'rentpay-webhooks',
          'content-type': 'application/json',
          'content-length': String(Buffer.byteLength(body)),
          'accept-encoding': 'identity',
          ...headers,
        },
        agent: agents[url.protocol as 'http:' | 'https:'],
      });
      request.on('error', reject);
      request.on('response', resolve);
      request.end(body);
    });
  try {
    let response: http.IncomingMessage;
    try {
      response = await send();
    } catch (error) {
      // A kept-open connection the endpoint closed just as it was reused: the request never arrived; send it anew.
      // Which error that gives depends on when the close meets the write: a reset, or a write to a closed pipe.
      const code = (error as NodeJS.ErrnoException).code;
      if (timedOut || !request?.reusedSocket || (code !== 'ECONNRESET' && code !== 'EPIPE')) throw error;
      response = await send();
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        chunks.push(chunk);
        size += chunk.length;
        if (size >= RESPONSE_LOG_BYTES) break;
      }
    } catch {
      // The status line came in time and decides the outcome; a body cut off by the time limit or the connection
      // only shortens what the delivery log keeps.
    }
    // Read to the end, the connection can serve the next delivery; cut short, it is closed.
    finished = response.complete;
    const retryAfter = response.headers['retry-after'];
    return {
      status: response.statusCode ?? 0,
      ...(retryAfter === undefined ? {} : { retryAfter }),
      // PostgreSQL text cannot hold NUL; a cut multi-byte character becomes U+FFFD.
      body: Buffer.concat(chunks).subarray(0, RESPONSE_LOG_BYTES).toString('utf8').replaceAll('\u0000', ''),
      latencyMs: elapsed(),
    };
  } catch (error) {
    const reason = timedOut
      ? `No answer within ${timeoutMs / 1000} s.`
      : classifyError(error, url, 'webhook').reason;
    return { error: reason, latencyMs: elapsed() };
  } finally {
    clearTimeout(timer);
    if (!finished) request?.destroy();
    if (!shared) {
      agents['http:'].destroy();
      agents['https:'].destroy();
    }
  }
}
