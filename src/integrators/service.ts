import { randomBytes } from 'node:crypto';
import type { Clock } from '../platform/clock/clock.ts';
import type { ServiceEnv } from '../platform/config/config.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { ApiError } from '../platform/http/errors.ts';
import { digestsEqual, newId } from '../platform/ids.ts';
import { enqueueJob, type JobHandler } from '../platform/jobs/queue.ts';
import { displayPrefix, generateServerToken, hashToken } from './tokens.ts';

export const PAYMENT_METHODS = [
  'card',
  'apple_pay',
  'google_pay',
  'alipay',
  'wechat_pay',
  'unionpay',
] as const;
export type PaymentMethod = (typeof PAYMENT_METHODS)[number];

export interface MethodFee {
  percent_bps: number;
  fixed_pence: number;
}

export interface Integrator {
  id: string;
  name: string;
  environment: ServiceEnv;
  webhook_url: string | null;
  webhook_secret: string;
  allowed_origins: string[];
  fees: Partial<Record<PaymentMethod, MethodFee>>;
  rate_limit_per_second: number;
  rate_limit_burst: number;
  created_at: Date;
  updated_at: Date;
}

export interface IntegratorSettings {
  name?: string;
  webhook_url?: string | null;
  allowed_origins?: string[];
  fees?: Partial<Record<PaymentMethod, MethodFee>>;
  rate_limit_per_second?: number;
  rate_limit_burst?: number;
}

export const DEFAULT_RATE_LIMIT_PER_SECOND = 100;
export const DEFAULT_RATE_LIMIT_BURST = 200;
export const MAX_GRACE_PERIOD_SECONDS = 604_800;
export const DEFAULT_GRACE_PERIOD_SECONDS = 86_400;

const INTEGRATOR_COLUMNS = `i.id, i.name, i.environment, i.webhook_url, i.webhook_secret, i.allowed_origins, i.fees,
  i.rate_limit_per_second, i.rate_limit_burst, i.created_at, i.updated_at`;

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

export interface CreatedIntegrator {
  integrator: Integrator;
  serverToken: string;
}

export class IntegratorService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly env: ServiceEnv,
  ) {}

  async create(settings: IntegratorSettings & { name: string }): Promise<CreatedIntegrator> {
    const now = this.clock.now();
    const id = newId('int');
    const serverToken = generateServerToken(this.env);
    const burst =
      settings.rate_limit_burst ??
      Math.max(DEFAULT_RATE_LIMIT_BURST, (settings.rate_limit_per_second ?? 0) * 2);
    const integrator = await this.db.transaction(async (tx) => {
      const [row] = await tx.query<Integrator>(
        `INSERT INTO integrators AS i (id, name, environment, webhook_url, webhook_secret, allowed_origins, fees,
                                 rate_limit_per_second, rate_limit_burst, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7::jsonb, $8, $9, $10, $10)
         RETURNING ${INTEGRATOR_COLUMNS}`,
        [
          id,
          settings.name,
          this.env,
          settings.webhook_url ?? null,
          generateWebhookSecret(),
          settings.allowed_origins ?? [],
          settings.fees ?? {},
          settings.rate_limit_per_second ?? DEFAULT_RATE_LIMIT_PER_SECOND,
          burst,
          now,
        ],
      );
      await insertServerToken(tx, id, serverToken, now);
      return row!;
    });
    return { integrator, serverToken };
  }

  async update(id: string, settings: IntegratorSettings): Promise<Integrator> {
    const [row] = await this.db.query<Integrator>(
      `UPDATE integrators AS i SET
         name = COALESCE($2, i.name),
         webhook_url = CASE WHEN $3::boolean THEN $4 ELSE i.webhook_url END,
         allowed_origins = COALESCE($5::jsonb, i.allowed_origins),
         fees = COALESCE($6::jsonb, i.fees),
         rate_limit_per_second = COALESCE($7, i.rate_limit_per_second),
         rate_limit_burst = COALESCE($8, i.rate_limit_burst),
         updated_at = $9
       WHERE i.id = $1
       RETURNING ${INTEGRATOR_COLUMNS}`,
      [
        id,
        settings.name ?? null,
        settings.webhook_url !== undefined,
        settings.webhook_url ?? null,
        settings.allowed_origins ?? null,
        settings.fees ?? null,
        settings.rate_limit_per_second ?? null,
        settings.rate_limit_burst ?? null,
        this.clock.now(),
      ],
    );
    if (!row) throw new ApiError('not_found', `No integrator ${id}.`);
    return row;
  }

  async get(id: string): Promise<Integrator> {
    const [row] = await this.db.query<Integrator>(
      `SELECT ${INTEGRATOR_COLUMNS} FROM integrators i WHERE i.id = $1`,
      [id],
    );
    if (!row) throw new ApiError('not_found', `No integrator ${id}.`);
    return row;
  }

  async list(): Promise<Integrator[]> {
    return this.db.query<Integrator>(
      `SELECT ${INTEGRATOR_COLUMNS} FROM integrators i ORDER BY i.created_at, i.id`,
    );
  }

  /** The integrator a valid server token belongs to; undefined for an unknown or expired token. */
  async authenticate(token: string): Promise<{ integrator: Integrator; tokenId: string } | undefined> {
    const tokenHash = hashToken(token);
    const [row] = await this.db.query<
      Integrator & { token_id: string; token_hash: string; expires_at: Date | null }
    >(
      `SELECT ${INTEGRATOR_COLUMNS}, t.id AS token_id, t.token_hash, t.expires_at
         FROM server_tokens t JOIN integrators i ON i.id = t.integrator_id
        WHERE t.token_hash = $1`,
      [tokenHash],
    );
    // The lookup is by hash, so response time says nothing about how much of a guessed token matched;
    // the explicit constant-time comparison keeps it that way if the lookup ever changes.
    if (!row || !digestsEqual(row.token_hash, tokenHash)) return undefined;
    if (row.expires_at !== null && new Date(row.expires_at).getTime() <= this.clock.now().getTime()) {
      return undefined;
    }
    const { token_id, token_hash: _hash, expires_at: _expires, ...integrator } = row;
    return { integrator, tokenId: token_id };
  }

  /**
   * Issues a new server token. The calling token keeps working for the grace period (never longer than
   * it already had); every other token ends now, so at most two are ever valid.
   */
  async rotate(
    integratorId: string,
    callingTokenId: string,
    gracePeriodSeconds: number,
  ): Promise<{ token: string; previousTokenExpiresAt: Date }> {
    const now = this.clock.now();
    const graceEnd = new Date(now.getTime() + gracePeriodSeconds * 1000);
    const token = generateServerToken(this.env);
    return this.db.transaction(async (tx) => {
      // Serialises concurrent rotations of one integrator, so two of them cannot leave three valid tokens.
      await tx.query('SELECT id FROM integrators WHERE id = $1 FOR UPDATE', [integratorId]);
      const ended = await tx.query<{ id: string }>(
        `UPDATE server_tokens SET expires_at = $3
          WHERE integrator_id = $1 AND id <> $2 AND (expires_at IS NULL OR expires_at > $3)
          RETURNING id`,
        [integratorId, callingTokenId, now],
      );
      const [caller] = await tx.query<{ expires_at: Date }>(
        `UPDATE server_tokens
            SET expires_at = CASE WHEN expires_at IS NULL OR expires_at > $2 THEN $2 ELSE expires_at END
          WHERE id = $1 RETURNING expires_at`,
        [callingTokenId, graceEnd],
      );
      if (!caller) throw new ApiError('unauthorized', 'Invalid or expired token.');
      const previousTokenExpiresAt = new Date(caller.expires_at);
      await insertServerToken(tx, integratorId, token, now);
      for (const { id } of ended) await scheduleRetirement(tx, this.clock, id, now);
      await scheduleRetirement(tx, this.clock, callingTokenId, previousTokenExpiresAt);
      return { token, previousTokenExpiresAt };
    });
  }
}

async function insertServerToken(
  tx: Queryable,
  integratorId: string,
  token: string,
  now: Date,
): Promise<void> {
  await tx.query(
    `INSERT INTO server_tokens (id, integrator_id, token_hash, display_prefix, created_at)
     VALUES ($1, $2, $3, $4, $5)`,
    [newId('tok'), integratorId, hashToken(token), displayPrefix(token), now],
  );
}

export const RETIRE_SERVER_TOKEN_JOB = 'server-token.retire';

async function scheduleRetirement(tx: Queryable, clock: Clock, tokenId: string, at: Date): Promise<void> {
  await enqueueJob(
    tx,
    clock,
    RETIRE_SERVER_TOKEN_JOB,
    { token_id: tokenId },
    { runAt: at, dedupeKey: `${RETIRE_SERVER_TOKEN_JOB}:${tokenId}` },
  );
}

/**
 * Deletes a server token's hash once it has expired: an expired credential is kept no longer than needed.
 * Idempotent: a missing row or a second run changes nothing.
 */
export const retireServerToken: JobHandler = async ({ job, db, clock }) => {
  const tokenId = String(job.payload.token_id);
  const [row] = await db.query<{ expires_at: Date | null }>(
    'SELECT expires_at FROM server_tokens WHERE id = $1',
    [tokenId],
  );
  if (!row) return;
  if (row.expires_at === null || new Date(row.expires_at).getTime() > clock.now().getTime()) {
    throw new Error(`server token ${tokenId} has not expired yet`);
  }
  await db.query('DELETE FROM server_tokens WHERE id = $1 AND expires_at <= $2', [tokenId, clock.now()]);
};
