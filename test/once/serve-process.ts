/** What the suites that run `rentpay serve` as a child process share. */
import assert from 'node:assert/strict';
import type { ChildProcess } from 'node:child_process';

/** SIGTERM, and the serve must stop cleanly (exit 0). */
export async function stopServe(child: ChildProcess): Promise<void> {
  const code = await new Promise<number | null>((resolve) => {
    child.once('exit', resolve);
    child.kill('SIGTERM');
  });
  assert.equal(code, 0, 'serve stops cleanly on SIGTERM');
}

/** One HTTP request to the serve at `base`, with a JSON body when `body` is given. */
export function send(
  base: string,
  method: string,
  route: string,
  auth?: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(`${base}${route}`, {
    method,
    headers: {
      ...headers,
      ...(auth ? { authorization: auth } : {}),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}
