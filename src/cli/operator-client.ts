/** The CLI's client for the Operator API of a running deployment. */
export class OperatorClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string | undefined,
  ) {}

  async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    if (!this.token) {
      throw new CliError('No operator token: pass --token or set RENTPAY_OPERATOR_TOKEN.');
    }
    let response: Response;
    try {
      response = await fetch(`${this.baseUrl.replace(/\/+$/, '')}/api/operator${path}`, {
        method,
        headers: {
          authorization: `Bearer ${this.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch (error) {
      throw new CliError(
        `Cannot reach ${this.baseUrl}: ${(error as Error).cause ?? (error as Error).message}`,
      );
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text === '' ? undefined : JSON.parse(text);
    } catch {
      throw new CliError(`${response.status} from ${this.baseUrl}: not JSON: ${text.slice(0, 200)}`);
    }
    if (!response.ok) throw new CliError(describeError(response.status, parsed));
    return parsed as T;
  }
}

export class CliError extends Error {}

function describeError(status: number, body: unknown): string {
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (typeof record.error === 'string') return `${status} ${record.error}: ${String(record.detail ?? '')}`;
    const fields = Object.entries(record)
      .map(
        ([field, messages]) =>
          `  ${field}: ${Array.isArray(messages) ? messages.join(' ') : String(messages)}`,
      )
      .join('\n');
    return `${status} invalid request:\n${fields}`;
  }
  return `${status}`;
}
