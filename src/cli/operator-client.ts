import { type Command, Option } from 'commander';
import { CLI_USER_AGENT } from '../shared/vocabulary.ts';
import { safe } from './output.ts';

/** The options every operator command takes: where the deployment is, the operator token, and --json. */
export function withOperatorOptions(command: Command): Command {
  return command
    .addOption(
      new Option('--url <url>', 'base URL of the deployment')
        .env('RENTPAY_URL')
        .default('http://127.0.0.1:8080'),
    )
    .addOption(new Option('--token <token>', 'operator token').env('RENTPAY_OPERATOR_TOKEN'))
    .option('--json', 'print JSON instead of text');
}

export function operatorClient(options: { url: string; token?: string }): OperatorClient {
  return new OperatorClient(options.url, options.token);
}

/** The CLI's client for the Operator API of a running deployment. */
export class OperatorClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  /**
   * One call. With `retries`, a call that could not be completed (no connection, or 502/503/504) is sent again
   * up to that many times: only for calls that are safe to repeat, such as a refund with an idempotency key.
   */
  async request<T>(
    method: string,
    path: string,
    body?: unknown,
    options: { headers?: Record<string, string>; retries?: number } = {},
  ): Promise<T> {
    if (!this.token) {
      throw new CliError('No operator token: pass --token or set RENTPAY_OPERATOR_TOKEN.');
    }
    let response: Response | undefined;
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= (options.retries ?? 0);
      try {
        response = await fetch(`${this.baseUrl.replace(/\/+$/, '')}/api/operator${path}`, {
          method,
          headers: {
            authorization: `Bearer ${this.token}`,
            'user-agent': CLI_USER_AGENT,
            ...(body === undefined ? {} : { 'content-type': 'application/json' }),
            ...options.headers,
          },
          body: body === undefined ? undefined : JSON.stringify(body),
        });
      } catch (error) {
        if (last) {
          throw new CliError(
            safe`Cannot reach ${this.baseUrl}: ${(error as Error).cause ?? (error as Error).message}`,
          );
        }
      }
      if (response && (last || ![502, 503, 504].includes(response.status))) break;
      await new Promise((resolve) => setTimeout(resolve, 500 * 2 ** attempt));
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new CliError(safe`${response.status} from ${this.baseUrl}: not JSON: ${text.slice(0, 200)}`);
    }
    if (!response.ok) throw new CliError(describeError(response.status, parsed));
    return parsed as T;
  }
}

export class CliError extends Error {}

/** A GET whose answer is not JSON (a file): its text, or the API's error. */
export async function operatorText(options: { url: string; token?: string }, path: string): Promise<string> {
  if (!options.token) throw new CliError('No operator token: pass --token or set RENTPAY_OPERATOR_TOKEN.');
  let response: Response;
  try {
    response = await fetch(`${options.url.replace(/\/+$/, '')}/api/operator${path}`, {
      headers: { authorization: `Bearer ${options.token}` },
    });
  } catch (error) {
    throw new CliError(
      safe`Cannot reach ${options.url}: ${(error as Error).cause ?? (error as Error).message}`,
    );
  }
  const text = await response.text();
  if (!response.ok) {
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {}
    throw new CliError(describeError(response.status, parsed));
  }
  return text;
}

/** The API's error answer as one line, or one line per field; its text escaped (it may repeat what was sent). */
function describeError(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (typeof record.error === 'string')
      return safe`${status} ${record.error}: ${String(record.detail ?? '')}`;
    const fields = Object.entries(record)
      .map(
        ([field, messages]) =>
          safe`  ${field}: ${Array.isArray(messages) ? messages.join(' ') : String(messages)}`,
      )
      .join('\n');
    return `${status} invalid request:\n${fields}`;
  }
  return `${status}`;
}
