import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import {
  type AddressPolicy,
  checkUrl,
  classifyError,
  FetchFailure,
  isPublicAddress,
  policyAgents,
  type SafeFetchFailure,
  type SafeFetchResult,
  type SafeFetchSuccess,
  safeFetch,
} from '../../src/platform/net/safe-fetch.ts';

interface TestServer {
  host: string;
  port: number;
  /** Origin for URLs, with brackets around an IPv6 host. */
  origin: string;
  connections: number;
  requests: string[];
  close(): Promise<void>;
}

async function listen(server: http.Server | net.Server, host: string): Promise<TestServer> {
  const sockets = new Set<net.Socket>();
  const state: TestServer = {
    host,
    port: 0,
    origin: '',
    connections: 0,
    requests: [],
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      await closed;
    },
  };
  server.on('connection', (socket: net.Socket) => {
    state.connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  if (server instanceof http.Server) server.on('request', (req) => state.requests.push(req.url ?? ''));
  server.listen(0, host);
  await once(server, 'listening');
  state.port = (server.address() as net.AddressInfo).port;
  state.origin = `http://${host.includes(':') ? `[${host}]` : host}:${state.port}`;
  return state;
}

function httpServer(host: string, handler: http.RequestListener): Promise<TestServer> {
  return listen(http.createServer(handler), host);
}

function expectFailure(result: SafeFetchResult): SafeFetchFailure {
  if (result.ok) assert.fail(`expected a failure, got HTTP ${result.status} with ${result.size} bytes`);
  return result;
}

function expectSuccess(result: SafeFetchResult): SafeFetchSuccess {
  if (!result.ok) assert.fail(`expected success, got ${result.code}: ${result.reason}`);
  return result;
}

const REFUSED = (address: string) =>
  `The address ${address} is private or loopback; documents must be on a public host.`;
const BAD_SCHEME = 'Only http and https URLs can be fetched.';
const CREDENTIALS = 'URLs with credentials are not allowed.';
const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n');

describe('safeFetch: the address rule (SSRF)', { timeout: 60_000 }, () => {
  /** Stands for something on our own network: no test below may ever reach it. */
  let canary: TestServer;
  let canary6: TestServer;
  /** Plays a public host that redirects; the test policy treats exactly 127.0.0.2 as public. */
  let redirector: TestServer;
  const redirectorIsPublic: AddressPolicy = (ip) => ip === '127.0.0.2' || isPublicAddress(ip);

  before(async () => {
    const answer: http.RequestListener = (_req, res) => res.end(PDF);
    canary = await httpServer('127.0.0.1', answer);
    canary6 = await httpServer('::1', answer);
    redirector = await httpServer('127.0.0.2', (req, res) => {
      const url = new URL(req.url ?? '/', 'http://127.0.0.2');
      const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
      if (url.pathname === '/to') {
        res.writeHead(302, { location: url.searchParams.get('url') ?? '' }).end();
      } else if (chain) {
        const left = Number(chain[1]);
        if (left === 0) res.end(PDF);
        else res.writeHead(301, { location: `/chain/${left - 1}` }).end();
      } else if (url.pathname === '/no-location') {
        res.writeHead(302).end();
      } else {
        res.writeHead(404).end();
      }
    });
  });
  after(async () => {
    await canary.close();
    await canary6.close();
    await redirector.close();
  });

  function reachedCanary(): number {
    return canary.connections + canary6.connections;
  }

  const hostileUrls: [string, (p: { v4: number; v6: number }) => string, string][] = [
    ['loopback', ({ v4 }) => `http://127.0.0.1:${v4}/`, REFUSED('127.0.0.1')],
    ['short loopback 127.1', ({ v4 }) => `http://127.1:${v4}/`, REFUSED('127.0.0.1')],
    ['hex loopback', ({ v4 }) => `http://0x7f000001:${v4}/`, REFUSED('127.0.0.1')],
    ['decimal loopback', ({ v4 }) => `http://2130706433:${v4}/`, REFUSED('127.0.0.1')],
    ['octal loopback', ({ v4 }) => `http://0177.0.0.1:${v4}/`, REFUSED('127.0.0.1')],
    ['percent-encoded loopback', ({ v4 }) => `http://%31%32%37.0.0.1:${v4}/`, REFUSED('127.0.0.1')],
    ['another loopback address', ({ v4 }) => `http://127.0.0.2:${v4}/`, REFUSED('127.0.0.2')],
    ['upper-case scheme', ({ v4 }) => `HTTP://127.0.0.1:${v4}/`, REFUSED('127.0.0.1')],
    ['https to loopback', ({ v4 }) => `https://127.0.0.1:${v4}/`, REFUSED('127.0.0.1')],
    ['https to localhost by name', ({ v4 }) => `https://localhost:${v4}/`, REFUSED('127.0.0.1')],
    ['localhost by name', ({ v4 }) => `http://localhost:${v4}/`, REFUSED('127.0.0.1')],
    ['IPv6 loopback', ({ v6 }) => `http://[::1]:${v6}/`, REFUSED('::1')],
    ['IPv6 loopback written out', ({ v6 }) => `http://[0:0:0:0:0:0:0:1]:${v6}/`, REFUSED('::1')],
    ['IPv4-mapped loopback', ({ v4 }) => `http://[::ffff:127.0.0.1]:${v4}/`, REFUSED('::ffff:7f00:1')],
    ['IPv4-mapped loopback in hex', ({ v4 }) => `http://[::ffff:7f00:1]:${v4}/`, REFUSED('::ffff:7f00:1')],
    ['IPv4-mapped private', ({ v4 }) => `http://[::ffff:10.0.0.1]:${v4}/`, REFUSED('::ffff:a00:1')],
    ['NAT64 of loopback', ({ v4 }) => `http://[64:ff9b::7f00:1]:${v4}/`, REFUSED('64:ff9b::7f00:1')],
    ['unspecified', ({ v4 }) => `http://0.0.0.0:${v4}/`, REFUSED('0.0.0.0')],
    ['unspecified short', ({ v4 }) => `http://0:${v4}/`, REFUSED('0.0.0.0')],
    ['IPv6 unspecified', ({ v6 }) => `http://[::]:${v6}/`, REFUSED('::')],
    ['private 10/8', ({ v4 }) => `http://10.0.0.1:${v4}/`, REFUSED('10.0.0.1')],
    ['private 172.16/12', ({ v4 }) => `http://172.16.0.1:${v4}/`, REFUSED('172.16.0.1')],
    ['private 172.31', ({ v4 }) => `http://172.31.255.254:${v4}/`, REFUSED('172.31.255.254')],
    ['private 192.168/16', ({ v4 }) => `http://192.168.1.1:${v4}/`, REFUSED('192.168.1.1')],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/', REFUSED('169.254.169.254')],
    ['CGNAT 100.64/10', ({ v4 }) => `http://100.64.0.1:${v4}/`, REFUSED('100.64.0.1')],
    ['multicast', ({ v4 }) => `http://224.0.0.1:${v4}/`, REFUSED('224.0.0.1')],
    ['broadcast', ({ v4 }) => `http://255.255.255.255:${v4}/`, REFUSED('255.255.255.255')],
    ['reserved 240/4', ({ v4 }) => `http://240.0.0.1:${v4}/`, REFUSED('240.0.0.1')],
    ['benchmarking 198.18/15', ({ v4 }) => `http://198.18.0.1:${v4}/`, REFUSED('198.18.0.1')],
    ['IPv6 unique local', ({ v6 }) => `http://[fc00::1]:${v6}/`, REFUSED('fc00::1')],
    ['IPv6 link-local', ({ v6 }) => `http://[fe80::1]:${v6}/`, REFUSED('fe80::1')],
    ['IPv6 multicast', ({ v6 }) => `http://[ff02::1]:${v6}/`, REFUSED('ff02::1')],
    ['6to4 of loopback', ({ v6 }) => `http://[2002:7f00:1::]:${v6}/`, REFUSED('2002:7f00:1::')],
    ['file scheme', () => 'file:///etc/passwd', BAD_SCHEME],
    ['ftp scheme', ({ v4 }) => `ftp://127.0.0.1:${v4}/`, BAD_SCHEME],
    ['gopher scheme', ({ v4 }) => `gopher://127.0.0.1:${v4}/_GET%20/`, BAD_SCHEME],
    ['data URL', () => 'data:application/pdf;base64,JVBERi0xLjcK', BAD_SCHEME],
    ['javascript URL', () => 'javascript:alert(1)', BAD_SCHEME],
    ['websocket scheme', ({ v4 }) => `ws://127.0.0.1:${v4}/`, BAD_SCHEME],
    ['credentials', ({ v4 }) => `http://user:pass@127.0.0.1:${v4}/`, CREDENTIALS],
    ['user name only', ({ v4 }) => `http://user@127.0.0.1:${v4}/`, CREDENTIALS],
    ['credentials on a public-looking host', () => 'https://admin:secret@example.com/doc.pdf', CREDENTIALS],
    ['not a URL', () => 'not a url', 'That is not a valid URL.'],
  ];

  for (const [name, makeUrl, reason] of hostileUrls) {
    it(`refuses ${name} without reaching it`, async () => {
      const url = makeUrl({ v4: canary.port, v6: canary6.port });
      const before = reachedCanary();
      const failure = expectFailure(await safeFetch(url, { timeoutMs: 2000 }));
      assert.equal(failure.reason, reason, url);
      assert.equal(failure.permanent, true);
      assert.equal(reachedCanary(), before, `${url} reached the canary`);
    });
  }

  /**
   * What a caller that makes its own requests (webhook deliveries) gets from the same building blocks: checkUrl for
   * the scheme and credentials, then policyAgents' connections and classifyError's reason for the address.
   */
  async function refusalWithoutSafeFetch(rawUrl: string): Promise<string> {
    let url: URL;
    try {
      url = new URL(rawUrl);
    } catch {
      return 'That is not a valid URL.';
    }
    try {
      checkUrl(url);
    } catch (error) {
      if (error instanceof FetchFailure) return error.reason;
      throw error;
    }
    const agents = policyAgents({});
    try {
      const error = await new Promise<unknown>((resolve) => {
        const client = url.protocol === 'https:' ? https : http;
        const request = client.request({
          protocol: url.protocol,
          hostname: url.hostname.replace(/^\[(.*)\]$/, '$1'),
          port: url.port === '' ? undefined : Number(url.port),
          path: `${url.pathname}${url.search}`,
          agent: agents[url.protocol as 'http:' | 'https:'],
        });
        // Refused addresses fail before any packet is sent; an address let through is caught by the canary check,
        // or (unroutable) by this limit instead of the system's connect timeout.
        request.setTimeout(2000, () => request.destroy(new Error(`no refusal within 2 s for ${rawUrl}`)));
        request.on('error', resolve);
        request.on('response', (response) => {
          response.destroy();
          resolve(new Error(`${rawUrl} was fetched: HTTP ${response.statusCode}`));
        });
        request.end();
      });
      return classifyError(error, url, 'document').reason;
    } finally {
      agents['http:'].destroy();
      agents['https:'].destroy();
    }
  }

  for (const [name, makeUrl, reason] of hostileUrls) {
    it(`checkUrl and policyAgents (the parts webhook deliveries use) refuse ${name} too, without reaching it`, async () => {
      const url = makeUrl({ v4: canary.port, v6: canary6.port });
      const before = reachedCanary();
      assert.equal(await refusalWithoutSafeFetch(url), reason, url);
      assert.equal(reachedCanary(), before, `${url} reached the canary`);
    });
  }

  const hostileRedirects: [string, (p: { v4: number; v6: number }) => string, string][] = [
    ['loopback', ({ v4 }) => `http://127.0.0.1:${v4}/`, REFUSED('127.0.0.1')],
    ['localhost by name', ({ v4 }) => `http://localhost:${v4}/`, REFUSED('127.0.0.1')],
    ['decimal loopback', ({ v4 }) => `http://2130706433:${v4}/`, REFUSED('127.0.0.1')],
    ['IPv6 loopback', ({ v6 }) => `http://[::1]:${v6}/`, REFUSED('::1')],
    ['IPv4-mapped loopback', ({ v4 }) => `http://[::ffff:127.0.0.1]:${v4}/`, REFUSED('::ffff:7f00:1')],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/', REFUSED('169.254.169.254')],
    ['a private address', ({ v4 }) => `http://10.0.0.1:${v4}/`, REFUSED('10.0.0.1')],
    ['a file URL', () => 'file:///etc/passwd', BAD_SCHEME],
    ['a gopher URL', ({ v4 }) => `gopher://127.0.0.1:${v4}/`, BAD_SCHEME],
    ['a URL with credentials', ({ v4 }) => `http://user:pass@127.0.0.1:${v4}/`, CREDENTIALS],
  ];

  for (const [name, makeTarget, reason] of hostileRedirects) {
    it(`re-checks every redirect hop: an allowed host redirecting to ${name} is refused`, async () => {
      const target = makeTarget({ v4: canary.port, v6: canary6.port });
      const before = reachedCanary();
      const requestsBefore = redirector.requests.length;
      const failure = expectFailure(
        await safeFetch(`${redirector.origin}/to?url=${encodeURIComponent(target)}`, {
          isAllowedAddress: redirectorIsPublic,
          timeoutMs: 2000,
        }),
      );
      assert.equal(failure.reason, reason);
      assert.equal(redirector.requests.length, requestsBefore + 1, 'the first hop was fetched');
      assert.equal(reachedCanary(), before, 'the redirect target was never reached');
    });
  }

  it('the test policy lets the redirector through, and it serves directly', async () => {
    const fetched = expectSuccess(
      await safeFetch(`${redirector.origin}/chain/0`, { isAllowedAddress: redirectorIsPublic }),
    );
    assert.deepEqual(fetched.bytes, PDF);
  });

  it('follows up to 3 redirects', async () => {
    const fetched = expectSuccess(
      await safeFetch(`${redirector.origin}/chain/3`, { isAllowedAddress: redirectorIsPublic }),
    );
    assert.deepEqual(fetched.bytes, PDF);
    assert.equal(fetched.url, `${redirector.origin}/chain/0`);
  });

  it('refuses a fourth redirect without following it', async () => {
    const requestsBefore = redirector.requests.length;
    const failure = expectFailure(
      await safeFetch(`${redirector.origin}/chain/4`, { isAllowedAddress: redirectorIsPublic }),
    );
    assert.equal(failure.reason, 'Too many redirects (more than 3).');
    assert.equal(failure.permanent, true);
    assert.deepEqual(redirector.requests.slice(requestsBefore), [
      '/chain/4',
      '/chain/3',
      '/chain/2',
      '/chain/1',
    ]);
  });

  it('a redirect without a Location header fails permanently', async () => {
    const failure = expectFailure(
      await safeFetch(`${redirector.origin}/no-location`, { isAllowedAddress: redirectorIsPublic }),
    );
    assert.equal(failure.reason, 'HTTP 302 without a Location header from the document host.');
    assert.equal(failure.permanent, true);
  });

  it('with allowPrivate (ALLOW_PRIVATE_DOCUMENT_HOSTS=1) the same loopback URLs are fetched', async () => {
    const before = canary.connections;
    const fetched = expectSuccess(
      await safeFetch(`http://127.0.0.1:${canary.port}/`, { allowPrivate: true }),
    );
    assert.deepEqual(fetched.bytes, PDF);
    assert.equal(fetched.sha256, createHash('sha256').update(PDF).digest('hex'));
    assert.equal(fetched.size, PDF.length);
    expectSuccess(await safeFetch(`http://localhost:${canary.port}/`, { allowPrivate: true }));
    expectSuccess(await safeFetch(`http://[::1]:${canary6.port}/`, { allowPrivate: true }));
    assert.equal(canary.connections, before + 2);
  });

  it('allowPrivate still refuses other schemes and credentials', async () => {
    const before = reachedCanary();
    assert.equal(
      expectFailure(await safeFetch('file:///etc/passwd', { allowPrivate: true })).reason,
      BAD_SCHEME,
    );
    assert.equal(
      expectFailure(await safeFetch(`http://u:p@127.0.0.1:${canary.port}/`, { allowPrivate: true })).reason,
      CREDENTIALS,
    );
    assert.equal(reachedCanary(), before);
  });

  it('isPublicAddress accepts global unicast only, judging IPv4-mapped addresses by the IPv4 address', () => {
    for (const ip of [
      '8.8.8.8',
      '1.1.1.1',
      '2606:4700:4700::1111',
      '2a00:1450:4009:81f::200e',
      '::ffff:8.8.8.8',
    ]) {
      assert.equal(isPublicAddress(ip), true, ip);
    }
    for (const ip of [
      '127.0.0.1',
      '10.1.2.3',
      '172.16.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '192.0.2.1',
      '::1',
      '::',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      'fe80::1%eth0',
      '::ffff:127.0.0.1',
      '::ffff:192.168.0.1',
      '64:ff9b::a00:1',
      '2001:db8::1',
      'localhost',
      '2130706433',
      '',
    ]) {
      assert.equal(isPublicAddress(ip), false, ip);
    }
  });
});

/** Streams up to `total` bytes, noting whether the client hung up before it was all sent. */
interface StreamingServer extends TestServer {
  /** Resolves when the server side of the last response closes: true if that was before all was sent. */
  closedEarly: Promise<boolean>;
}

const STREAM_CHUNK = Buffer.alloc(64 * 1024, 0x25);

/** Resolves when the stream can take more or has closed; never rejects, as the client hanging up is expected. */
function drainedOrClosed(stream: NodeJS.EventEmitter): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.off('drain', done);
      stream.off('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
const STREAM_TOTAL = 64 * 1024 * 1024;

async function streamingHttpServer(headers: http.OutgoingHttpHeaders): Promise<StreamingServer> {
  let settle: (early: boolean) => void = () => undefined;
  const closedEarly = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  const server = await httpServer('127.0.0.1', async (_req, res) => {
    let finished = false;
    res.on('close', () => settle(!finished));
    res.writeHead(200, headers);
    for (let sent = 0; sent < STREAM_TOTAL; sent += STREAM_CHUNK.length) {
      if (res.destroyed) return;
      if (!res.write(STREAM_CHUNK)) await drainedOrClosed(res);
    }
    finished = true;
    res.end();
  });
  return Object.assign(server, { closedEarly });
}

/** Writes a raw HTTP response head, then streams the body until done or the client hangs up. */
async function streamingRawServer(head: string): Promise<StreamingServer> {
  let settle: (early: boolean) => void = () => undefined;
  const closedEarly = new Promise<boolean>((resolve) => {
    settle = resolve;
  });
  const server = net.createServer((socket) => {
    let finished = false;
    socket.on('error', () => undefined);
    socket.on('close', () => settle(!finished));
    socket.once('data', async () => {
      socket.write(head);
      for (let sent = 0; sent < STREAM_TOTAL; sent += STREAM_CHUNK.length) {
        if (socket.destroyed) return;
        if (!socket.write(STREAM_CHUNK)) await drainedOrClosed(socket);
      }
      finished = true;
      socket.end();
    });
  });
  const state = await listen(server, '127.0.0.1');
  return Object.assign(state, { closedEarly });
}

describe('safeFetch: time and size limits', { timeout: 60_000 }, () => {
  const MiB = 1024 * 1024;
  const local = { allowPrivate: true } as const;
  const servers: TestServer[] = [];
  after(async () => {
    for (const server of servers) await server.close();
  });
  async function track<T extends TestServer>(server: Promise<T>): Promise<T> {
    const started = await server;
    servers.push(started);
    return started;
  }

  /** Reads what it is sent and never answers; hungUp resolves when the client closes the connection. */
  async function silentServer(): Promise<TestServer & { hungUp: Promise<void> }> {
    let hangUp: () => void = () => undefined;
    const hungUp = new Promise<void>((resolve) => {
      hangUp = resolve;
    });
    const server = net.createServer((socket) => {
      socket.on('error', () => undefined);
      socket.on('close', hangUp);
      socket.resume();
    });
    return Object.assign(await track(listen(server, '127.0.0.1')), { hungUp });
  }

  it('times out a host that accepts and never answers, and hangs up', async () => {
    const silent = await silentServer();
    const started = Date.now();
    const failure = expectFailure(await safeFetch(`${silent.origin}/`, { ...local, timeoutMs: 300 }));
    assert.equal(failure.reason, 'Timed out after 300 ms.');
    assert.equal(failure.code, 'timeout');
    assert.equal(failure.permanent, false);
    assert.ok(Date.now() - started < 5000);
    await silent.hungUp;
  });

  it('times out a host that trickles the body, since the limit covers the whole fetch', async () => {
    const trickle = await track(
      httpServer('127.0.0.1', (_req, res) => {
        res.writeHead(200, { 'content-type': 'application/pdf' });
        res.write('%PDF-');
        const timer = setInterval(() => res.write('x'), 20);
        res.on('close', () => clearInterval(timer));
      }),
    );
    const failure = expectFailure(await safeFetch(`${trickle.origin}/`, { ...local, timeoutMs: 300 }));
    assert.equal(failure.reason, 'Timed out after 300 ms.');
    assert.equal(failure.permanent, false);
  });

  it('the default timeout is described in seconds', async () => {
    const silent = await silentServer();
    const failure = expectFailure(await safeFetch(`${silent.origin}/`, { ...local, timeoutMs: 1000 }));
    assert.equal(failure.reason, 'Timed out after 1 s.');
  });

  it('cuts off a chunked body past the cap while it streams', async () => {
    const server = await track(streamingHttpServer({ 'content-type': 'application/pdf' }));
    const failure = expectFailure(await safeFetch(`${server.origin}/`, { ...local, maxBytes: MiB }));
    assert.equal(failure.reason, 'Larger than 1 MiB.');
    assert.equal(failure.code, 'too_large');
    assert.equal(failure.permanent, true);
    assert.equal(await server.closedEarly, true, 'the connection closed before the server finished sending');
  });

  it('cuts off a body delimited by closing the connection (no Content-Length) past the cap', async () => {
    const server = await track(streamingRawServer('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\n'));
    const failure = expectFailure(await safeFetch(`${server.origin}/`, { ...local, maxBytes: MiB }));
    assert.equal(failure.reason, 'Larger than 1 MiB.');
    assert.equal(await server.closedEarly, true);
  });

  it('refuses at once when Content-Length says more than the cap', async () => {
    const server = await track(streamingHttpServer({ 'content-length': String(STREAM_TOTAL) }));
    const failure = expectFailure(await safeFetch(`${server.origin}/`, { ...local, maxBytes: MiB }));
    assert.equal(failure.reason, 'Larger than 1 MiB.');
    assert.equal(await server.closedEarly, true);
  });

  it('a Content-Length that understates the body gets only the declared bytes read', async () => {
    const server = await track(
      streamingRawServer('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\ncontent-type: application/pdf\r\n\r\n'),
    );
    const fetched = expectSuccess(await safeFetch(`${server.origin}/`, { ...local, maxBytes: MiB }));
    assert.equal(fetched.size, 1000);
    assert.deepEqual(fetched.bytes, STREAM_CHUNK.subarray(0, 1000));
    assert.equal(await server.closedEarly, true, 'the rest was never read');
  });

  it('accepts a body of exactly the cap', async () => {
    const body = Buffer.alloc(MiB, 0x41);
    const server = await track(httpServer('127.0.0.1', (_req, res) => res.end(body)));
    const fetched = expectSuccess(await safeFetch(`${server.origin}/`, { ...local, maxBytes: MiB }));
    assert.equal(fetched.size, MiB);
    assert.equal(fetched.sha256, createHash('sha256').update(body).digest('hex'));
  });

  it('the default cap is 20 MiB', async () => {
    const server = await track(streamingHttpServer({ 'content-length': String(21 * MiB) }));
    const failure = expectFailure(await safeFetch(`${server.origin}/`, local));
    assert.equal(failure.reason, 'Larger than 20 MiB.');
    assert.equal(await server.closedEarly, true);
  });
});

describe('safeFetch: HTTP answers and network errors', { timeout: 60_000 }, () => {
  let host: TestServer;
  let lastRequest: { method: string; headers: http.IncomingHttpHeaders; body: string } | undefined;
  const local = { allowPrivate: true } as const;

  before(async () => {
    host = await httpServer('127.0.0.1', async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      lastRequest = {
        method: req.method ?? '',
        headers: req.headers,
        body: Buffer.concat(chunks).toString(),
      };
      const status = /^\/status\/(\d+)$/.exec(req.url ?? '');
      if (status) {
        res.writeHead(Number(status[1])).end('nope');
      } else if (req.url === '/see-other') {
        res.writeHead(303, { location: '/echo' }).end();
      } else if (req.url === '/elsewhere') {
        res.writeHead(307, { location: `http://localhost:${host.port}/echo` }).end();
      } else if (req.url === '/reset') {
        res.writeHead(200, { 'content-length': '1000' });
        res.write('%PDF-');
        res.socket?.destroy();
      } else {
        res.writeHead(200, { 'content-type': 'application/pdf' }).end(PDF);
      }
    });
  });
  after(() => host.close());

  for (const [status, permanent] of [
    [400, true],
    [401, true],
    [403, true],
    [404, true],
    [410, true],
    [408, false],
    [429, false],
    [500, false],
    [502, false],
    [503, false],
  ] as const) {
    it(`HTTP ${status} is a ${permanent ? 'permanent' : 'transient'} failure`, async () => {
      const failure = expectFailure(await safeFetch(`${host.origin}/status/${status}`, local));
      assert.equal(failure.reason, `HTTP ${status} from the document host.`);
      assert.equal(failure.permanent, permanent);
      assert.equal(failure.status, status);
    });
  }

  it('returns the bytes, their SHA-256, size and declared type', async () => {
    const fetched = expectSuccess(await safeFetch(`${host.origin}/doc.pdf`, local));
    assert.equal(fetched.status, 200);
    assert.deepEqual(fetched.bytes, PDF);
    assert.equal(fetched.sha256, createHash('sha256').update(PDF).digest('hex'));
    assert.equal(fetched.size, PDF.length);
    assert.equal(fetched.contentType, 'application/pdf');
  });

  it('a refused connection is transient', async () => {
    const closed = await httpServer('127.0.0.1', () => undefined);
    await closed.close();
    const failure = expectFailure(await safeFetch(`${closed.origin}/`, { ...local, timeoutMs: 2000 }));
    assert.equal(failure.reason, 'The document host refused the connection.');
    assert.equal(failure.permanent, false);
  });

  it('a connection closed mid-body is transient', async () => {
    const failure = expectFailure(await safeFetch(`${host.origin}/reset`, local));
    assert.equal(
      failure.reason,
      'The connection to the document host closed before the response was complete.',
    );
    assert.equal(failure.permanent, false);
  });

  it('sends a method, headers and body, and a 303 turns a POST into a GET', async () => {
    expectSuccess(
      await safeFetch(`${host.origin}/see-other`, {
        ...local,
        method: 'POST',
        headers: { 'Content-Type': 'application/json', 'X-Test': 'yes' },
        body: '{"a":1}',
      }),
    );
    assert.equal(lastRequest?.method, 'GET');
    assert.equal(lastRequest?.body, '');
    assert.equal(lastRequest?.headers['x-test'], 'yes');
    assert.equal(lastRequest?.headers['content-type'], undefined);
  });

  it('drops credentials headers on a redirect to another origin, and labels reasons as asked', async () => {
    expectSuccess(
      await safeFetch(`${host.origin}/elsewhere`, {
        ...local,
        headers: { authorization: 'Bearer secret', 'x-test': 'kept' },
      }),
    );
    assert.equal(lastRequest?.headers.authorization, undefined);
    assert.equal(lastRequest?.headers['x-test'], 'kept');
    const failure = expectFailure(
      await safeFetch(`${host.origin}/status/404`, { ...local, label: 'webhook' }),
    );
    assert.equal(failure.reason, 'HTTP 404 from the webhook host.');
    const refused = expectFailure(await safeFetch(`${host.origin}/`, { label: 'webhook' }));
    assert.equal(
      refused.reason,
      'The address 127.0.0.1 is private or loopback; webhooks must be on a public host.',
    );
  });
});
