import { randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import { type Static, Type } from 'typebox';
import { type Actor, actsForOperator, requirePermission } from '../audit/actor.ts';
import { canonicalJson } from '../audit/chain.ts';
import { recordAudit } from '../audit/log.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { ServiceEnv } from '../platform/config/config.ts';
import { Col, sqlStatement } from '../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import type { IntegratorsTable } from '../platform/db/tables.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { digestsEqual, newId } from '../platform/ids.ts';
import { formatBps, formatPence } from '../shared/money.ts';
import { FEATURES, type Feature, PAYMENT_METHODS, type PaymentMethod } from '../shared/vocabulary.ts';
import { insertServerToken, lockValidTokens, scheduleRetirement, validTokens } from './server-tokens.ts';
import { checkTenantFees } from './settings.ts';
import { generateServerToken, hashToken } from './tokens.ts';

/** As stored: only what the operator set; a feature absent is enabled. */
export type FeatureSettings = Partial<Record<Feature, boolean>>;

/** Whether an integrator has a feature: enabled unless the operator turned it off. */
export function hasFeature(integrator: Pick<Integrator, 'features'>, feature: Feature): boolean {
  return integrator.features?.[feature] !== false;
}

/** Every feature with its value for this integrator. */
export function resolvedFeatures(integrator: Pick<Integrator, 'features'>): Record<Feature, boolean> {
  return Object.fromEntries(FEATURES.map((f) => [f, hasFeature(integrator, f)])) as Record<Feature, boolean>;
}

export interface MethodFee {
  percent_bps: number;
  fixed_pence: number;
}

export const INTEGRATOR_STATUSES = ['active', 'suspended'] as const;
export type IntegratorStatus = (typeof INTEGRATOR_STATUSES)[number];

/** The integrators columns the database types loosely (JSON), as the service writes them. */
export interface IntegratorNarrowing {
  allowed_origins: string[];
  fees: Partial<Record<PaymentMethod, MethodFee>>;
  features: FeatureSettings;
}

/**
 * An integrator as the service reads it: its integrators row (without webhook_secret_issued_at), JSON columns
 * narrowed. `status` suspended: its server and user session tokens get 403 integrator_suspended (the operator's
 * brake after a leak). `business_lets`: the integrator's declaration, recorded by the operator, that its tenants are
 * businesses, not consumers. `reminder_days_before`: rent reminders, days before a due date for rent_due_soon; null:
 * none.
 */
export type Integrator = Omit<
  Selectable<IntegratorsTable>,
  'webhook_secret_issued_at' | keyof IntegratorNarrowing
> &
  IntegratorNarrowing;

export interface IntegratorSettings {
  name?: string;
  webhook_url?: string | null;
  allowed_origins?: string[];
  fees?: Partial<Record<PaymentMethod, MethodFee>>;
  business_lets?: boolean;
  /** Merged into the stored features: a key sent is set, a key not sent is left as it is. */
  features?: FeatureSettings;
  rate_limit_per_second?: number;
  rate_limit_burst?: number;
  reminder_days_before?: number | null;
}

export const DEFAULT_RATE_LIMIT_PER_SECOND = 100;
export const DEFAULT_RATE_LIMIT_BURST = 200;
export const MAX_GRACE_PERIOD_SECONDS = 604_800;
export const DEFAULT_GRACE_PERIOD_SECONDS = 86_400;

/** What a server token's request knows of its integrator: everything but the webhook secret. */
export type AuthenticatedIntegrator = Omit<Integrator, 'webhook_secret'>;
const AUTHENTICATED_INTEGRATOR_COLUMNS = [
  'id',
  'name',
  'environment',
  'status',
  'webhook_url',
  'allowed_origins',
  'fees',
  'business_lets',
  'features',
  'rate_limit_per_second',
  'rate_limit_burst',
  'reminder_days_before',
  'created_at',
  'updated_at',
] as const satisfies readonly (keyof AuthenticatedIntegrator)[];
const INTEGRATOR_COLUMNS = [...AUTHENTICATED_INTEGRATOR_COLUMNS, 'webhook_secret'] as const;
/** The same columns of alias `i`, for hand-written SQL. */
const INTEGRATOR_COLUMNS_SQL = INTEGRATOR_COLUMNS.map((column) => `i.${column}`).join(', ');

const INTEGRATOR_ROW = Col.row({
  id: Col.text,
  name: Col.text,
  environment: Type.Enum(['sandbox', 'production']),
  status: Type.Enum(INTEGRATOR_STATUSES),
  webhook_url: Col.nullable(Col.text),
  allowed_origins: Type.Array(Col.text),
  fees: Type.Partial(
    Type.Record(Type.Enum(PAYMENT_METHODS), Type.Object({ percent_bps: Col.int, fixed_pence: Col.int })),
  ),
  business_lets: Col.bool,
  features: Type.Partial(Type.Record(Type.Enum(FEATURES), Col.bool)),
  rate_limit_per_second: Col.int,
  rate_limit_burst: Col.int,
  reminder_days_before: Col.nullable(Col.int),
  created_at: Col.date,
  updated_at: Col.date,
  webhook_secret: Col.text,
});

/** An integrator as to_jsonb(i) gives it (timestamps as ISO text), for statements that read it whole as JSON. */
export const INTEGRATOR_JSON = Type.Object({
  ...INTEGRATOR_ROW.properties,
  created_at: Col.text,
  updated_at: Col.text,
});

/** The integrator of an INTEGRATOR_JSON column, timestamps as Dates. */
export function integratorFromJson(json: Static<typeof INTEGRATOR_JSON>): Integrator {
  return {
    id: json.id,
    name: json.name,
    environment: json.environment,
    status: json.status,
    webhook_url: json.webhook_url,
    allowed_origins: json.allowed_origins,
    fees: json.fees,
    business_lets: json.business_lets,
    features: json.features,
    rate_limit_per_second: json.rate_limit_per_second,
    rate_limit_burst: json.rate_limit_burst,
    reminder_days_before: json.reminder_days_before,
    webhook_secret: json.webhook_secret,
    created_at: new Date(json.created_at),
    updated_at: new Date(json.updated_at),
  };
}

const UPDATE_SETTINGS = sqlStatement(
  INTEGRATOR_ROW,
  `UPDATE integrators AS i SET
     name = COALESCE($2, i.name),
     webhook_url = CASE WHEN $3::boolean THEN $4 ELSE i.webhook_url END,
     webhook_secret = CASE WHEN $4::text IS NOT NULL AND $13::text IS NOT NULL AND i.webhook_secret_issued_at IS NULL
                           THEN $13 ELSE i.webhook_secret END,
     webhook_secret_issued_at = CASE WHEN $4::text IS NOT NULL THEN COALESCE(i.webhook_secret_issued_at, $9)
                                     ELSE i.webhook_secret_issued_at END,
     allowed_origins = COALESCE($5::jsonb, i.allowed_origins),
     fees = COALESCE($6::jsonb, i.fees),
     business_lets = COALESCE($14::boolean, i.business_lets),
     features = i.features || COALESCE($10::jsonb, '{}'::jsonb),
     rate_limit_per_second = $7,
     rate_limit_burst = $8,
     reminder_days_before = CASE WHEN $11::boolean THEN $12::integer ELSE i.reminder_days_before END,
     updated_at = $9
   WHERE i.id = $1
   RETURNING ${INTEGRATOR_COLUMNS_SQL}`,
);

/** Integrators, the columns an Integrator has, JSON columns typed as the service writes them. */
function integrators() {
  return qb.selectFrom('integrators').select(INTEGRATOR_COLUMNS).$narrowType<IntegratorNarrowing>();
}

export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Gives the integrator a new webhook signing secret in `tx`, with the integrator locked for the rest of it; returns
 * the secret it replaced, or undefined when there is no such integrator (nothing is written).
 */
export async function replaceWebhookSecret(
  tx: Queryable,
  integratorId: string,
  secret: string,
  now: Date,
): Promise<string | undefined> {
  const current = await firstRow(
    tx,
    qb.selectFrom('integrators').select('webhook_secret').where('id', '=', integratorId).forNoKeyUpdate(),
  );
  if (!current) return undefined;
  await tx.query(
    `UPDATE integrators SET webhook_secret = $2, updated_at = $3,
            webhook_secret_issued_at = COALESCE(webhook_secret_issued_at, $3)
      WHERE id = $1`,
    [integratorId, secret, now],
  );
  return current.webhook_secret;
}

export interface CreatedIntegrator {
  integrator: Integrator;
  serverToken: string;
}

/**
 * How long a node may answer a server token from memory. A change to an integrator or its tokens empties every
 * node's cache as soon as its notification arrives (AUTH_CHANGES_CHANNEL); this bound covers a node whose listening
 * connection is down, so a revoked, rotated-out, reissued or suspended token never works longer than this anywhere.
 */
export const AUTH_CACHE_TTL_MS = 2_000;
/** NOTIFY channel, sent after each committed change to an integrator or its server tokens. */
export const AUTH_CHANGES_CHANNEL = 'integrator_auth_changed';
const AUTH_CACHE_MAX_ENTRIES = 10_000;

/**
 * A cached answer holds no webhook secret: the secret changes without the auth-change notification (webhooks
 * rotate it), so a request must never read it from here.
 */
interface AuthResult {
  integrator: AuthenticatedIntegrator;
  tokenId: string;
  expiresAt: Date | null;
}

export class IntegratorService {
  /** Valid server tokens by hash, read within AUTH_CACHE_TTL_MS (by the service's clock); unknown ones are not kept. */
  readonly #authCache = new Map<string, { result: AuthResult; readAt: number }>();
  /** Bumped on every forget, so a read that was in flight across a change is not cached afterwards. */
  #authGeneration = 0;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly env: ServiceEnv,
  ) {}

  /** A new integrator with its first server token; audited as the actor's, in its own chain. */
  async create(settings: IntegratorSettings & { name: string }, actor: Actor): Promise<CreatedIntegrator> {
    requirePermission(actor, 'integrators.manage');
    const now = this.clock.now();
    const id = newId('int');
    const serverToken = generateServerToken(this.env);
    const { rate, burst } = rateLimits(
      { rate_limit_per_second: DEFAULT_RATE_LIMIT_PER_SECOND, rate_limit_burst: DEFAULT_RATE_LIMIT_BURST },
      settings,
    );
    checkTenantFees(
      this.env,
      { fees: settings.fees ?? {}, business_lets: settings.business_lets ?? false },
      settings,
    );
    const integrator = await this.db.transaction(async (tx) => {
      const webhookUrl = settings.webhook_url ?? null;
      const row = await firstRow(
        tx,
        qb
          .insertInto('integrators')
          .values({
            id,
            name: settings.name,
            environment: this.env,
            webhook_url: webhookUrl,
            webhook_secret: generateWebhookSecret(),
            allowed_origins: settings.allowed_origins ?? [],
            fees: settings.fees ?? {},
            rate_limit_per_second: rate,
            rate_limit_burst: burst,
            created_at: now,
            updated_at: now,
            features: settings.features ?? {},
            reminder_days_before: settings.reminder_days_before ?? null,
            // A secret given out with a URL is in use from now.
            webhook_secret_issued_at: webhookUrl === null ? null : now,
            business_lets: settings.business_lets ?? false,
          })
          .returning(INTEGRATOR_COLUMNS)
          .$narrowType<IntegratorNarrowing>(),
      );
      const tokenId = await insertServerToken(tx, id, serverToken, now);
      await recordAudit(tx, this.clock, actor, {
        scope: id,
        action: 'integrator.create',
        target: { type: 'integrator', id },
        after: {
          ...settingsSummary(row!, Object.keys(settings) as (keyof IntegratorSettings)[]),
          token_id: tokenId,
        },
      });
      return row!;
    });
    return { integrator, serverToken };
  }

  /**
   * Changes the settings given. With `firstWebhookSecret`, a webhook URL set where the integrator's secret has never
   * been put to use (no URL ever set, never rotated) makes that the secret: the answer then carries it, and the
   * caller alone has seen it. Setting a URL marks the secret as in use. The settings the integrator would have
   * (stored merged with sent) are checked under a lock on its row, so two changes that are each allowed cannot
   * combine into one that is not; a refused change changes nothing. The settings it changed are audited as the
   * actor's.
   */
  async update(
    id: string,
    settings: IntegratorSettings,
    actor: Actor,
    options: { firstWebhookSecret?: string } = {},
  ): Promise<Integrator> {
    requirePermission(
      actor,
      Object.keys(settings).every((key) => key === 'webhook_url') ? 'webhooks.manage' : 'settings.manage',
    );
    checkPlatformChange(actor, id, settings);
    const updated = await this.db.transaction(async (tx) => {
      const current = await firstRow(tx, integrators().where('id', '=', id).forUpdate());
      if (!current) throw new ServiceError('not_found', `No integrator ${id}.`);
      const { rate, burst } = rateLimits(current, settings);
      checkTenantFees(
        current.environment,
        {
          fees: settings.fees ?? current.fees,
          business_lets: settings.business_lets ?? current.business_lets,
        },
        settings,
      );
      const row = await UPDATE_SETTINGS.first(tx, [
        id,
        settings.name ?? null,
        settings.webhook_url !== undefined,
        settings.webhook_url ?? null,
        settings.allowed_origins ?? null,
        settings.fees ?? null,
        rate,
        burst,
        this.clock.now(),
        settings.features ?? null,
        settings.reminder_days_before !== undefined,
        settings.reminder_days_before ?? null,
        options.firstWebhookSecret ?? null,
        settings.business_lets ?? null,
      ]);
      await tx.notifyOnCommit(AUTH_CHANGES_CHANNEL, '');
      const given = (Object.keys(settings) as (keyof IntegratorSettings)[]).filter(
        (key) => settings[key] !== undefined,
      );
      const before = settingsSummary(current, given);
      const after = settingsSummary(row!, given);
      const changed = given.filter((key) => canonicalJson(before[key]) !== canonicalJson(after[key]));
      if (changed.length > 0) {
        await recordAudit(tx, this.clock, actor, {
          scope: id,
          action: 'integrator.update',
          target: { type: 'integrator', id },
          before: settingsSummary(current, changed),
          after: settingsSummary(row!, changed),
        });
      }
      return row!;
    });
    this.#forgetTokens();
    return updated;
  }

  async get(id: string): Promise<Integrator> {
    const row = await firstRow(this.db, integrators().where('id', '=', id));
    if (!row) throw new ServiceError('not_found', `No integrator ${id}.`);
    return row;
  }

  async list(): Promise<Integrator[]> {
    return rows(this.db, integrators().orderBy('created_at').orderBy('id'));
  }

  /**
   * The integrator a valid server token belongs to; undefined for an unknown or expired token. `beforeLookup` runs
   * (and may throw) only when the token must be read from the database.
   */
  async authenticate(
    token: string,
    beforeLookup: () => void = () => undefined,
  ): Promise<{ integrator: AuthenticatedIntegrator; tokenId: string } | undefined> {
    const tokenHash = hashToken(token);
    const now = this.clock.now().getTime();
    const cached = this.#authCache.get(tokenHash);
    let result: AuthResult | undefined;
    if (cached && now - cached.readAt < AUTH_CACHE_TTL_MS && now >= cached.readAt) {
      result = cached.result;
    } else {
      beforeLookup();
      result = await this.#readToken(tokenHash, now);
    }
    if (!result) return undefined;
    if (result.expiresAt !== null && result.expiresAt.getTime() <= now) return undefined;
    return { integrator: result.integrator, tokenId: result.tokenId };
  }

  async #readToken(tokenHash: string, now: number): Promise<AuthResult | undefined> {
    const generation = this.#authGeneration;
    const row = await firstRow(
      this.db,

      qb
        .selectFrom('server_tokens as t')
        .innerJoin('integrators as i', 'i.id', 't.integrator_id')
        .select(AUTHENTICATED_INTEGRATOR_COLUMNS.map((column) => `i.${column}` as const))
        .select(['t.id as token_id', 't.token_hash', 't.expires_at'])
        .where('t.token_hash', '=', tokenHash)
        .$narrowType<IntegratorNarrowing>(),
      { prepare: 'authenticate-server-token' },
    );
    // The lookup is by hash, so response time says nothing about how much of a guessed token matched;
    // the explicit constant-time comparison keeps it that way if the lookup ever changes.
    if (!row || !digestsEqual(row.token_hash, tokenHash)) {
      this.#authCache.delete(tokenHash);
      return undefined;
    }
    const { token_id, token_hash: _hash, expires_at, ...integrator } = row;
    const result = {
      integrator,
      tokenId: token_id,
      expiresAt: expires_at === null ? null : new Date(expires_at),
    };
    if (generation !== this.#authGeneration) return result;
    if (this.#authCache.size >= AUTH_CACHE_MAX_ENTRIES) this.#authCache.clear();
    this.#authCache.set(tokenHash, { result, readAt: now });
    return result;
  }

  /** This node answers every server token from the database again. */
  #forgetTokens(): void {
    this.#authGeneration += 1;
    this.#authCache.clear();
  }

  /** After a change to tokens or integrators: this node forgets now, every other one when the notification lands. */
  async #tokensChanged(q: Queryable): Promise<void> {
    await q.notifyOnCommit(AUTH_CHANGES_CHANNEL, '');
    this.#forgetTokens();
  }

  /**
   * Empties this node's token cache whenever any node changes an integrator or its tokens. The composition root
   * starts it once per app; resolves to a function that stops listening.
   */
  watchAuthChanges(): Promise<() => Promise<void>> {
    return this.db.listen(AUTH_CHANGES_CHANNEL, () => this.#forgetTokens());
  }

  /**
   * 403 unless `tokenId` is the integrator's newest valid server token: a replaced token in its grace period may keep
   * calling the API, but not change its credentials or where its events go and how they are signed.
   */
  async assertNewestToken(integratorId: string, tokenId: string, action: string): Promise<void> {
    const newest = await firstRow(this.db, validTokens(integratorId, this.clock.now()).select('id').limit(1));
    if (newest?.id === tokenId) return;
    throw new ServiceError(
      'forbidden',
      `Only the newest server token can ${action}. This token has been replaced and is in its grace period; use ` +
        'the newest token, or ask the operator to reissue your tokens if it is lost.',
    );
  }

  /**
   * Issues a new server token. Only the integrator's newest valid token may rotate (403 otherwise), so a leaked
   * token in its grace period cannot end the newest one or mint a token that never expires. At most two tokens
   * are ever valid: the new one and the caller, which keeps working for the grace period (never longer than it
   * already had); any older token ends now.
   */
  async rotate(
    integratorId: string,
    callingTokenId: string,
    gracePeriodSeconds: number,
    actor: Actor,
  ): Promise<{ token: string; previousTokenExpiresAt: Date } | undefined> {
    requirePermission(actor, 'credentials.manage');
    const now = this.clock.now();
    const graceEnd = new Date(now.getTime() + gracePeriodSeconds * 1000);
    const token = generateServerToken(this.env);
    const rotated = await this.db.transaction(async (tx) => {
      const valid = await lockValidTokens(tx, integratorId, now);
      // A concurrent rotation or a reissue may have ended the caller after it was authenticated.
      if (!valid.some((t) => t.id === callingTokenId)) return undefined;
      if (valid[0]?.id !== callingTokenId) {
        throw new ServiceError(
          'forbidden',
          'Only the newest server token can rotate. This token has been replaced and is in its grace period; ' +
            'rotate with the newest token, or ask the operator to reissue your tokens if it is lost.',
        );
      }
      const kept = await this.#replaceTokens(tx, integratorId, valid, token, now, graceEnd);
      await tx.notifyOnCommit(AUTH_CHANGES_CHANNEL, '');
      const previousTokenExpiresAt = kept?.expiresAt ?? now;
      await recordAudit(tx, this.clock, actor, {
        scope: integratorId,
        action: 'server_token.rotate',
        target: { type: 'server_token', id: callingTokenId },
        after: {
          token_id: kept?.newTokenId ?? null,
          previous_token_expires_at: previousTokenExpiresAt.toISOString(),
        },
      });
      return { token, previousTokenExpiresAt };
    });
    this.#forgetTokens();
    return rotated;
  }

  /**
   * A new server token without a calling one, by the same rule as a rotation (the newest valid token keeps the
   * grace period at most, older ones end now). For the service's own sandbox demo, which keeps its token in
   * memory only and so needs a new one after each start; only the hash is stored, as always. With grace 0 it is
   * the operator's reissue: every token of the integrator ends now.
   */
  async issueServerToken(integratorId: string, gracePeriodSeconds: number, actor: Actor): Promise<string> {
    const action = gracePeriodSeconds === 0 ? 'server_token.reissue' : 'server_token.issue';
    return (await this.#issue(integratorId, gracePeriodSeconds, actor, action)).token;
  }

  /**
   * A rotation by a person of the platform (who holds no token): a new token, the newest one before it keeps the
   * grace period, older ones end now. Audited as `server_token.rotate`.
   */
  rotateNewest(
    integratorId: string,
    gracePeriodSeconds: number,
    actor: Actor,
  ): Promise<{ token: string; previousTokenExpiresAt: Date }> {
    return this.#issue(integratorId, gracePeriodSeconds, actor, 'server_token.rotate');
  }

  async #issue(
    integratorId: string,
    gracePeriodSeconds: number,
    actor: Actor,
    action: string,
  ): Promise<{ token: string; previousTokenExpiresAt: Date }> {
    requirePermission(actor, 'credentials.manage');
    const now = this.clock.now();
    const token = generateServerToken(this.env);
    const previousTokenExpiresAt = await this.db.transaction(async (tx) => {
      const valid = await lockValidTokens(tx, integratorId, now);
      const kept = await this.#replaceTokens(
        tx,
        integratorId,
        valid,
        token,
        now,
        new Date(now.getTime() + gracePeriodSeconds * 1000),
      );
      await tx.notifyOnCommit(AUTH_CHANGES_CHANNEL, '');
      await recordAudit(tx, this.clock, actor, {
        scope: integratorId,
        action,
        target: { type: 'integrator', id: integratorId },
        before: { valid_tokens: valid.map((t) => t.id) },
        after: { token_id: kept?.newTokenId ?? null },
      });
      return kept?.expiresAt ?? now;
    });
    this.#forgetTokens();
    return { token, previousTokenExpiresAt };
  }

  /** The operator's reissue after a leak: every server token of the integrator ends now; the new one is returned. */
  reissueServerToken(integratorId: string, actor: Actor): Promise<string> {
    return this.issueServerToken(integratorId, 0, actor);
  }

  /**
   * Suspends or reactivates an integrator; the same status again changes nothing (not even updated_at). A change is
   * audited as the actor's.
   */
  async setStatus(integratorId: string, status: IntegratorStatus, actor: Actor): Promise<Integrator> {
    requirePermission(actor, 'integrators.manage');
    const row = await this.db.transaction(async (tx) => {
      const current = await firstRow(tx, integrators().where('id', '=', integratorId).forUpdate());
      if (!current) throw new ServiceError('not_found', `No integrator ${integratorId}.`);
      if (current.status === status) return current;
      const updated = await firstRow(
        tx,
        qb
          .updateTable('integrators')
          .set({ status, updated_at: this.clock.now() })
          .where('id', '=', integratorId)
          .returning(INTEGRATOR_COLUMNS)
          .$narrowType<IntegratorNarrowing>(),
      );
      await recordAudit(tx, this.clock, actor, {
        scope: integratorId,
        action: status === 'suspended' ? 'integrator.suspend' : 'integrator.unsuspend',
        target: { type: 'integrator', id: integratorId },
        before: { status: current.status },
        after: { status },
      });
      return updated!;
    });
    await this.#tokensChanged(this.db);
    return row;
  }

  /** Adds `token`; the first of `valid` (the newest) ends at graceEnd at the latest, the others now. */
  async #replaceTokens(
    tx: Queryable,
    integratorId: string,
    valid: { id: string; expires_at: Date | null }[],
    token: string,
    now: Date,
    graceEnd: Date,
  ): Promise<{ id: string; expiresAt: Date; newTokenId: string } | undefined> {
    const [kept, ...older] = valid;
    let keptExpiry: Date | undefined;
    if (kept) {
      keptExpiry =
        kept.expires_at !== null && new Date(kept.expires_at) < graceEnd
          ? new Date(kept.expires_at)
          : graceEnd;
      await tx.query('UPDATE server_tokens SET expires_at = $2 WHERE id = $1', [kept.id, keptExpiry]);
      await scheduleRetirement(tx, this.clock, kept.id, keptExpiry);
    }
    for (const { id } of older) {
      await tx.query('UPDATE server_tokens SET expires_at = $2 WHERE id = $1', [id, now]);
      await scheduleRetirement(tx, this.clock, id, now);
    }
    const newTokenId = await insertServerToken(tx, integratorId, token, now);
    return kept && keptExpiry ? { id: kept.id, expiresAt: keptExpiry, newTokenId } : undefined;
  }
}

/** The settings a platform changes itself (its token, its people); the others are the operator's. */
export const PLATFORM_SETTINGS = [
  'webhook_url',
  'fees',
  'reminder_days_before',
  'allowed_origins',
] as const satisfies readonly (keyof IntegratorSettings)[];

/**
 * A platform's own change (not the operator's) is of its own integrator (404 for another, as for an unknown one) and
 * of its own settings only (403 for the operator's: name, limits, features, business lets).
 */
function checkPlatformChange(actor: Actor, id: string, settings: IntegratorSettings): void {
  if (actsForOperator(actor)) return;
  const own = actor.kind === 'dashboard_user' || actor.kind === 'server_token' ? actor.integratorId : null;
  if (own !== id) throw new ServiceError('not_found', `No integrator ${id}.`);
  const operators = Object.keys(settings).filter(
    (key) => !(PLATFORM_SETTINGS as readonly string[]).includes(key),
  );
  if (operators.length > 0) {
    throw new ServiceError(
      'forbidden',
      `Only the operator changes ${operators.join(', ')}; a platform changes ${PLATFORM_SETTINGS.join(', ')}.`,
    );
  }
}

/** Settings of an integrator as its audit entries show them (fees as the APIs write them: "1.45", "0.20"). */
function settingsSummary(
  integrator: Integrator,
  keys: readonly (keyof IntegratorSettings)[],
): Record<string, unknown> {
  return Object.fromEntries(
    keys.map((key) => [
      key,
      key === 'fees'
        ? Object.fromEntries(
            Object.entries(integrator.fees).map(([method, fee]) => [
              method,
              { percent: formatBps(fee.percent_bps), fixed: formatPence(fee.fixed_pence) },
            ]),
          )
        : integrator[key],
    ]),
  );
}

/**
 * The limits after a change. A burst below the rate would make the limiter's window shorter than a second, so
 * an explicit one is refused and an implicit one grows with the rate (to twice the rate, as the defaults are).
 */
function rateLimits(
  current: Pick<Integrator, 'rate_limit_per_second' | 'rate_limit_burst'>,
  change: IntegratorSettings,
): { rate: number; burst: number } {
  const rate = change.rate_limit_per_second ?? current.rate_limit_per_second;
  if (change.rate_limit_burst !== undefined) {
    if (change.rate_limit_burst < rate) {
      throw new FieldValidationError({
        rate_limit_burst: [`Ensure this value is at least rate_limit_per_second (${rate}).`],
      });
    }
    return { rate, burst: change.rate_limit_burst };
  }
  return { rate, burst: current.rate_limit_burst >= rate ? current.rate_limit_burst : rate * 2 };
}
