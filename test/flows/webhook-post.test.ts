import assert from 'node:assert/strict';
import { once } from 'node:events';
import net from 'node:net';
import { after, describe, it } from 'node:test';
import { postWebhook } from '../../src/webhooks/post.ts';

const OK = 'HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok';

/**
 * An endpoint that answers the first request of its first connection and keeps that connection open, then resets
 * it when the next request comes on it, as an endpoint whose idle timeout closes a connection just as it is reused.
 * Later connections answer every request.
 */
async function closingEndpoint() {
  const requests: { connection: number; body: string }[] = [];
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    const connection = ++connections;
    let buffered = '';
    socket.on('data', (chunk) => {
      buffered += chunk.toString('utf8');
      const end = buffered.indexOf('\r\n\r\n');
      const length = Number(/content-length: (\d+)/i.exec(buffered)?.[1] ?? 0);
      if (end < 0 || buffered.length < end + 4 + length) return;
      const body = buffered.slice(end + 4, end + 4 + length);
      buffered = buffered.slice(end + 4 + length);
      if (connection === 1 && requests.some((r) => r.connection === 1)) {
        socket.resetAndDestroy();
        return;
      }
      requests.push({ connection, body });
      socket.write(OK);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    requests,
    close: () => {
      for (const socket of sockets) socket.destroy();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('postWebhook on a kept-open connection', () => {
  const closers: (() => Promise<void>)[] = [];
  after(() => Promise.all(closers.map((close) => close())));

  it('sends again on a new connection when the endpoint reset the reused one before answering', async () => {
    const endpoint = await closingEndpoint();
    closers.push(endpoint.close);
    // The process's shared keep-alive agents: the second call reuses the first one's connection.
    const options = { allowPrivate: true };
    const first = await postWebhook(endpoint.url, {}, '{"n":1}', options);
    assert.equal(first.status, 200, first.error);
    const second = await postWebhook(endpoint.url, {}, '{"n":2}', options);
    assert.equal(second.status, 200, second.error);
    assert.deepEqual(endpoint.requests, [
      { connection: 1, body: '{"n":1}' },
      { connection: 2, body: '{"n":2}' },
    ]);
  });
});
