/**
 * Fetching a URL someone else chose (a KYC document, a webhook endpoint) without letting it reach our own network.
 * Longer than most files on purpose: every check between a URL and its bytes (address policy, DNS pinning, agents,
 * redirects, size and time limits) sits in one place to be reviewed together.
 */
import { createHash } from 'node:crypto';
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Duplex } from 'node:stream';
import ipaddr from 'ipaddr.js';
import { RequestFilteringHttpAgent, RequestFilteringHttpsAgent } from 'request-filtering-agent';

export const DEFAULT_FETCH_TIMEOUT_MS = 10_000;
export const DEFAULT_FETCH_MAX_BYTES = 20 * 1024 * 1024;
export const DEFAULT_FETCH_MAX_REDIRECTS = 3;

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Request headers that must not follow a redirect to another origin. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** Decides whether a connection to this IP address may be made. */
export type AddressPolicy = (ip: string) => boolean;

/**
 * The strict rule: global unicast addresses only. Loopback, private, link-local (and so cloud metadata),
 * CGNAT, unspecified, multicast, broadcast, reserved, ULA, NAT64, 6to4 and Teredo all fall outside ipaddr.js's
 * "unicast" range; an IPv4-mapped IPv6 address is judged by the IPv4 address it carries; any other IPv6 address
 * outside the global unicast space 2000::/3 is refused.
 */
export function isPublicAddress(ip: string): boolean {
  if (net.isIP(ip) === 0) return false;
  try {
    const address = ipaddr.process(ip);
    if (address.kind() === 'ipv6' && !address.match(GLOBAL_UNICAST_IPV6)) return false;
    return address.range() === 'unicast';
  } catch {
    return false;
  }
}

/**
 * Every public IPv6 host is in 2000::/3, the global unicast space. ipaddr.js calls "unicast" whatever it has no name
 * for, which includes the IPv4-compatible (::/96) and IPv4-translated (::ffff:0:0:0/96) forms and the rest of the
 * reserved 0000::/8: a stack that still routes them reaches the IPv4 address inside, loopback included.
 */
const GLOBAL_UNICAST_IPV6 = ipaddr.parseCIDR('2000::/3');

export type SafeFetchFailureCode =
  | 'invalid_url'
  | 'unsupported_scheme'
  | 'credentials'
  | 'address_refused'
  | 'too_many_redirects'
  | 'invalid_redirect'
  | 'too_large'
  | 'timeout'
  | 'network'
  | 'http_status';

export interface SafeFetchSuccess {
  ok: true;
  status: number;
  /** The URL the body came from, after redirects. */
  url: string;
  bytes: Buffer;
  sha256: string;
  size: number;
  /** As the host declared it; not to be trusted for what the bytes are. */
  contentType: string | undefined;
}

export interface SafeFetchFailure {
  ok: false;
  code: SafeFetchFailureCode;
  /** A sentence fit to show an integrator. */
  reason: string;
  /** A permanent failure will fail again; a transient one (timeout, network, 5xx, 408, 429) may not. */
  permanent: boolean;
  /** Set when the failure is the host's HTTP answer. */
  status?: number;
}

export type SafeFetchResult = SafeFetchSuccess | SafeFetchFailure;

export interface SafeFetchOptions {
  /** Lifts the address rule entirely (ALLOW_PRIVATE_*_HOSTS, local testing only). */
  allowPrivate?: boolean;
  /** Replaces the strict public-only rule; ignored when allowPrivate is set. */
  isAllowedAddress?: AddressPolicy;
  /** For the whole fetch: every redirect hop, DNS, connecting and reading the body. */
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /** What is being fetched, for failure reasons: "document" gives "HTTP 404 from the document host." */
  label?: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export class FetchFailure extends Error {
  constructor(
    readonly code: SafeFetchFailureCode,
    readonly reason: string,
    readonly permanent: boolean,
    readonly status?: number,
  ) {
    super(reason);
    this.name = 'FetchFailure';
  }
}

class AddressRefusedError extends Error {
  constructor(readonly address: string) {
    super(`Connecting to ${address} is not allowed`);
    this.name = 'AddressRefusedError';
  }
}

type ConnectionListener = (error: Error | null, socket: Duplex) => void;
type LookupCallback = (error: NodeJS.ErrnoException | null, address: unknown, family?: number) => void;

/**
 * Resolves like dns.lookup, then refuses the answer if any address fails the policy: the addresses checked are the
 * ones the socket will connect to, so a name that resolves to a private address (or to several, one private) is
 * refused however it is spelled.
 */
function policyLookup(isAllowed: AddressPolicy): net.LookupFunction {
  return ((hostname: string, options: dns.LookupOptions, callback: LookupCallback) => {
    dns.lookup(hostname, options, ((error, address, family) => {
      if (error) {
        callback(error, address, family);
        return;
      }
      const answers: { address: string }[] = Array.isArray(address) ? address : [{ address }];
      const refused = answers.find((answer) => !isAllowed(answer.address));
      if (refused) {
        callback(new AddressRefusedError(refused.address), address, family);
        return;
      }
      callback(null, address, family);
    }) as LookupCallback);
  }) as unknown as net.LookupFunction;
}

/** An IP literal host is connected to without a lookup, so it is checked here before connecting. */
function refusedLiteral(host: string | undefined, isAllowed: AddressPolicy): AddressRefusedError | undefined {
  if (host === undefined || net.isIP(host) === 0 || isAllowed(host)) return undefined;
  return new AddressRefusedError(host);
}

function failedConnection(error: Error, listener: ConnectionListener | undefined): net.Socket {
  const socket = new net.Socket();
  if (listener) listener(error, socket);
  else socket.destroy(error);
  return socket;
}

/*
 * request-filtering-agent enforces its own public-only rule on the address connected to; these subclasses run the
 * injectable policy first, so a refusal carries the address for the failure reason and a caller's policy (a
 * test treating one loopback address as public) can be applied with the library's rule lifted.
 */
/** Refuses a literal address the policy rejects; otherwise connects with the policy checking every DNS answer. */
function policyConnection<S>(
  isAllowed: AddressPolicy,
  options: net.TcpNetConnectOpts,
  listener: ConnectionListener | undefined,
  connect: (options: net.TcpNetConnectOpts, listener?: ConnectionListener) => S,
): S | net.Socket {
  const refused = refusedLiteral(options.host, isAllowed);
  if (refused) return failedConnection(refused, listener);
  return connect({ ...options, lookup: policyLookup(isAllowed) }, listener);
}

function libraryOptions(libraryStrict: boolean, keepAlive: boolean) {
  return { keepAlive, allowPrivateIPAddress: !libraryStrict, allowMetaIPAddress: !libraryStrict };
}

class PolicyHttpAgent extends RequestFilteringHttpAgent {
  constructor(
    private readonly isAllowed: AddressPolicy,
    libraryStrict: boolean,
    keepAlive = false,
  ) {
    super(libraryOptions(libraryStrict, keepAlive));
  }
  override createConnection(options: net.TcpNetConnectOpts, listener?: ConnectionListener) {
    return policyConnection(this.isAllowed, options, listener, (o, l) => super.createConnection(o, l));
  }
}

class PolicyHttpsAgent extends RequestFilteringHttpsAgent {
  constructor(
    private readonly isAllowed: AddressPolicy,
    libraryStrict: boolean,
    keepAlive = false,
  ) {
    super(libraryOptions(libraryStrict, keepAlive));
  }
  override createConnection(options: net.TcpNetConnectOpts, listener?: ConnectionListener) {
    return policyConnection(this.isAllowed, options, listener, (o, l) => super.createConnection(o, l));
  }
}

export interface PolicyAgents {
  'http:': http.Agent;
  'https:': https.Agent;
}

/**
 * The connection agents of safeFetch, for a caller that makes its own requests (webhook deliveries): every
 * connection they open is checked against the address rule after DNS resolution. With keepAlive an open
 * connection is reused (it was checked when it was opened); without it, destroy the agents after use.
 */
export function policyAgents(
  options: Pick<SafeFetchOptions, 'allowPrivate' | 'isAllowedAddress'> & { keepAlive?: boolean },
): PolicyAgents {
  const allowPrivate = options.allowPrivate ?? false;
  const isAllowed: AddressPolicy = allowPrivate ? () => true : (options.isAllowedAddress ?? isPublicAddress);
  // A caller's own policy replaces the library's rule; the default keeps both, one behind the other.
  const libraryStrict = !allowPrivate && options.isAllowedAddress === undefined;
  return {
    'http:': new PolicyHttpAgent(isAllowed, libraryStrict, options.keepAlive),
    'https:': new PolicyHttpsAgent(isAllowed, libraryStrict, options.keepAlive),
  };
}

function describeDuration(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

function describeSize(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${bytes} bytes`;
}

export function checkUrl(url: URL): void {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchFailure('unsupported_scheme', 'Only http and https URLs can be fetched.', true);
  }
  if (url.username !== '' || url.password !== '') {
    throw new FetchFailure('credentials', 'URLs with credentials are not allowed.', true);
  }
}

function errorCode(error: unknown): string | undefined {
  if (error instanceof AggregateError) return errorCode(error.errors[0]);
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

function findAddressRefusal(error: unknown): AddressRefusedError | undefined {
  if (error instanceof AddressRefusedError) return error;
  if (error instanceof AggregateError) {
    for (const inner of error.errors) {
      const found = findAddressRefusal(inner);
      if (found) return found;
    }
  }
  return undefined;
}

/** What went wrong with a request (refused address, DNS, connection, TLS...), as a failure code and a sentence. */
export function classifyError(error: unknown, url: URL, label: string): FetchFailure {
  if (error instanceof FetchFailure) return error;
  const publicHostRule = `${label}s must be on a public host.`;
  const refusal = findAddressRefusal(error);
  if (refusal) {
    return new FetchFailure(
      'address_refused',
      `The address ${refusal.address} is private or loopback; ${publicHostRule}`,
      true,
    );
  }
  const message = error instanceof Error ? error.message : String(error);
  // The library's own rule, stricter than ours only for IPv4-mapped IPv6 addresses of public hosts.
  if (/is not allowed/.test(message) && /^DNS lookup /.test(message)) {
    return new FetchFailure(
      'address_refused',
      `The address of ${url.hostname} is private or loopback; ${publicHostRule}`,
      true,
    );
  }
  const code = errorCode(error);
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EAI_NODATA':
    case 'EAI_NONAME':
      return new FetchFailure('network', `The host name ${url.hostname} could not be resolved.`, false);
    case 'ECONNREFUSED':
      return new FetchFailure('network', `The ${label} host refused the connection.`, false);
    case 'ECONNRESET':
    case 'EPIPE':
    case 'ERR_STREAM_PREMATURE_CLOSE':
      return new FetchFailure(
        'network',
        `The connection to the ${label} host closed before the response was complete.`,
        false,
      );
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ETIMEDOUT':
      return new FetchFailure('network', `The ${label} host could not be reached.`, false);
    default:
      if (code?.startsWith('HPE_')) {
        return new FetchFailure('network', `The ${label} host sent an invalid HTTP response.`, false);
      }
      if (code && /CERT|TLS|SSL/.test(code)) {
        return new FetchFailure(
          'network',
          `The ${label} host's TLS certificate was not accepted (${code}).`,
          false,
        );
      }
      return new FetchFailure(
        'network',
        `Could not fetch from the ${label} host (${code ?? message}).`,
        false,
      );
  }
}

function statusFailure(status: number, label: string): FetchFailure {
  const transient = status >= 500 || status === 408 || status === 429;
  return new FetchFailure('http_status', `HTTP ${status} from the ${label} host.`, !transient, status);
}

/**
 * Fetches a URL given by someone outside, so it must not become a way into our own network (SSRF): http(s) only,
 * no credentials, and every hop (redirects are followed here, never by the HTTP client) connects only to addresses
 * the policy allows, checked after DNS resolution. The size cap is enforced while reading; a failure is returned,
 * never thrown.
 */
export async function safeFetch(rawUrl: string, options: SafeFetchOptions = {}): Promise<SafeFetchResult> {
  const label = options.label ?? 'document';
  const timeoutMs = options.timeoutMs ?? DEFAULT_FETCH_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_FETCH_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_FETCH_MAX_REDIRECTS;

  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, code: 'invalid_url', reason: 'That is not a valid URL.', permanent: true };
  }

  const agents = policyAgents(options);
  const timeoutFailure = new FetchFailure(
    'timeout',
    `Timed out after ${describeDuration(timeoutMs)}.`,
    false,
  );
  let timedOut = false;
  let request: http.ClientRequest | undefined;
  let response: http.IncomingMessage | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    response?.destroy(timeoutFailure);
    request?.destroy(timeoutFailure);
  }, timeoutMs);

  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  const headers: Record<string, string> = {
    'user-agent': 'rentpay',
    accept: '*/*',
    // Compressed bodies would need inflating, and the cap would then have to apply to what they inflate to.
    'accept-encoding': 'identity',
    ...Object.fromEntries(Object.entries(options.headers ?? {}).map(([k, v]) => [k.toLowerCase(), v])),
  };

  try {
    for (let redirects = 0; ; redirects++) {
      checkUrl(url);
      if (timedOut) throw timeoutFailure;
      const hopUrl = url;
      response = await new Promise<http.IncomingMessage>((resolve, reject) => {
        const client = hopUrl.protocol === 'https:' ? https : http;
        request = client.request({
          protocol: hopUrl.protocol,
          hostname: hopUrl.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: hopUrl.port === '' ? undefined : Number(hopUrl.port),
          path: `${hopUrl.pathname}${hopUrl.search}`,
          method,
          headers,
          agent: agents[hopUrl.protocol as 'http:' | 'https:'],
        });
        // Stays attached: a late error on a finished request must not become an uncaught exception.
        request.on('error', (error) => reject(error));
        request.on('response', resolve);
        request.end(body);
      });
      const status = response.statusCode ?? 0;

      if (REDIRECT_STATUSES.has(status)) {
        const location = response.headers.location;
        response.destroy();
        if (redirects >= maxRedirects) {
          throw new FetchFailure(
            'too_many_redirects',
            `Too many redirects (more than ${maxRedirects}).`,
            true,
          );
        }
        if (!location) {
          throw new FetchFailure(
            'invalid_redirect',
            `HTTP ${status} without a Location header from the ${label} host.`,
            true,
            status,
          );
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new FetchFailure('invalid_redirect', `The ${label} host redirected to an invalid URL.`, true);
        }
        if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
          method = 'GET';
          body = undefined;
          delete headers['content-type'];
          delete headers['content-length'];
        }
        if (next.origin !== url.origin) for (const name of ORIGIN_BOUND_HEADERS) delete headers[name];
        url = next;
        continue;
      }

      if (status < 200 || status > 299) {
        response.destroy();
        throw statusFailure(status, label);
      }

      const declared = response.headers['content-length'];
      if (declared !== undefined && /^\d+$/.test(declared) && Number(declared) > maxBytes) {
        response.destroy();
        throw new FetchFailure('too_large', `Larger than ${describeSize(maxBytes)}.`, true);
      }

      const hash = createHash('sha256');
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of response as AsyncIterable<Buffer>) {
        size += chunk.length;
        if (size > maxBytes) {
          // Closing the socket, not just ignoring the rest, is what stops the host sending it.
          request?.destroy();
          throw new FetchFailure('too_large', `Larger than ${describeSize(maxBytes)}.`, true);
        }
        hash.update(chunk);
        chunks.push(chunk);
      }
      return {
        ok: true,
        status,
        url: url.toString(),
        bytes: Buffer.concat(chunks, size),
        sha256: hash.digest('hex'),
        size,
        contentType: response.headers['content-type'],
      };
    }
  } catch (error) {
    request?.destroy();
    const failure = timedOut ? timeoutFailure : classifyError(error, url, label);
    return {
      ok: false,
      code: failure.code,
      reason: failure.reason,
      permanent: failure.permanent,
      ...(failure.status === undefined ? {} : { status: failure.status }),
    };
  } finally {
    clearTimeout(timer);
    agents['http:'].destroy();
    agents['https:'].destroy();
  }
}
