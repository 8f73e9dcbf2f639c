import { ConfigError } from './config.ts';

/** A setting that reads well but does not work here (the database cannot be reached, the port is taken). */
export class StartupError extends ConfigError {
  constructor(variable: string, message: string) {
    super(variable, message);
    this.message = `Cannot start: ${variable} ${message}`;
    this.name = 'StartupError';
  }
}

interface Where {
  databaseUrl?: string | undefined;
  port?: number;
  host?: string;
}

function codeOf(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const { code } = error as { code?: unknown };
  if (typeof code === 'string') return code;
  // Node's connection to a name with several addresses fails with an AggregateError of one error per address.
  const inner = (error as { errors?: unknown[] }).errors;
  return Array.isArray(inner) ? codeOf(inner[0]) : undefined;
}

function databaseAt(databaseUrl: string): { address: string; database: string; user: string } {
  const url = new URL(databaseUrl);
  return {
    address: `${url.hostname}:${url.port || '5432'}`,
    database: decodeURIComponent(url.pathname.replace(/^\//, '')) || decodeURIComponent(url.username),
    user: decodeURIComponent(url.username) || 'the current user',
  };
}

/**
 * What a failure to open the database or to listen means for the person starting rentpay, naming the variable to
 * change; undefined for anything else (a bug, printed with its stack).
 */
export function startupProblem(error: unknown, where: Where): StartupError | undefined {
  const code = codeOf(error);
  const text = error instanceof Error ? error.message : String(error);
  if (where.databaseUrl && (code !== undefined || /timeout exceeded when trying to connect/.test(text))) {
    const { address, database, user } = databaseAt(where.databaseUrl);
    const database_ = (message: string) => new StartupError('DATABASE_URL', message);
    switch (code) {
      case 'ECONNREFUSED':
        return database_(
          `points at ${address}, where nothing accepts connections: is PostgreSQL running there?`,
        );
      case 'ENOTFOUND':
      case 'EAI_AGAIN':
        return database_(`names the host ${address.replace(/:\d+$/, '')}, which cannot be resolved`);
      case 'ETIMEDOUT':
      case 'EHOSTUNREACH':
      case 'ENETUNREACH':
        return database_(`points at ${address}, which does not answer (a firewall, or the wrong address?)`);
      case '3D000':
        return database_(`names the database "${database}", which does not exist on ${address}: create it`);
      case '28P01':
        return database_(`has the wrong password for the role "${user}" on ${address}`);
      case '28000':
        return database_(`is refused by ${address}: ${text}`);
      case '57P03':
        return database_(`points at ${address}, which is starting up or shutting down: try again shortly`);
      case '53300':
        return database_(`points at ${address}, which has no connections left (max_connections): ${text}`);
      default:
        if (code === undefined)
          return database_(`points at ${address}, which does not answer within 5 seconds`);
    }
  }
  const listening = `${where.host ?? ''}:${where.port ?? ''}`;
  switch (code) {
    case 'EADDRINUSE':
      return new StartupError('PORT', `${where.port}: another process already listens on ${listening}`);
    case 'EACCES':
      return new StartupError(
        'PORT',
        `${where.port} needs privileges this process does not have (use 1024 or above)`,
      );
    case 'EADDRNOTAVAIL':
      return new StartupError('HOST', `${where.host} is not an address of this machine`);
    default:
      return undefined;
  }
}

/** Runs a command's start, turning the failures startupProblem knows into a StartupError. */
export async function starting<T>(where: Where, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (error) {
    throw startupProblem(error, where) ?? error;
  }
}
