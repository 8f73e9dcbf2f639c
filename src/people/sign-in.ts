import QRCode from 'qrcode';
import type { Actor } from '../audit/actor.ts';
import { OPERATOR_SCOPE, recordAudit } from '../audit/log.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { sha256Hex } from '../platform/ids.ts';
import type { Role } from '../shared/roles.ts';
import {
  type AuthenticationResponseJSON,
  Passkeys,
  type RegistrationResponseJSON,
  relyingPartyOf,
} from './passkeys.ts';
import { hashPassword, passwordProblem, verifyPassword } from './password.ts';
import type { DashboardSessions, NewSession, SecondFactor } from './sessions.ts';
import { matchTotp, newTotpSecret, totpUri } from './totp.ts';

/** Failed sign-ins counted over this window… */
export const FAILURE_WINDOW_MS = 15 * 60_000;
/** …lock an email (known or not) after this many… */
export const MAX_FAILURES_PER_ACCOUNT = 5;
/** …and an address after this many, whichever emails it tried. */
export const MAX_FAILURES_PER_ADDRESS = 20;

const SIGN_IN_FAILED = 'The email, password or code is not right.';
const PASSKEY_FAILED =
  'That passkey was not accepted: it is not one of this dashboard’s, or the request expired. Try again.';
const TOTP_SECRET = /^[A-Z2-7]{32}$/;

/** The person a set-up link is for, and a fresh authenticator-app secret to offer them. */
export interface InviteView {
  email: string;
  role: Role;
  team: { id: string; name: string } | null;
  expiresAt: Date;
  totp: { secret: string; uri: string; qrSvg: string };
}

/** How a person proves the second factor at set-up: an authenticator app's first code, or a new passkey. */
export type SetUpFactor =
  | { kind: 'totp'; secret: string; code: string }
  | { kind: 'passkey'; challengeId: string; response: RegistrationResponseJSON };

export interface SignInResult extends NewSession {
  person: { id: string; email: string; role: Role; integratorId: string | null };
}

/**
 * Setting up a sign-in from an invite, and signing in: a password and an authenticator-app code, or a passkey alone.
 * Every person has a second factor (set-up requires one). Failures are counted per email and per address in the
 * database (every serve process sees them), and no answer says whether an email belongs to anyone.
 */
export class SignInService {
  readonly passkeys: Passkeys;
  /** A hash to check a password against when the email is unknown, so both take as long. */
  #decoyHash: Promise<string> | undefined;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly sessions: DashboardSessions,
    publicUrl: string,
  ) {
    this.passkeys = new Passkeys(db, clock, relyingPartyOf(publicUrl));
  }

  /** What a set-up link is for; 404 when it is unknown, used, replaced or expired. */
  async lookUpInvite(token: string): Promise<InviteView> {
    const invite = await this.#openInvite(this.db, token);
    const team = invite.integrator_id
      ? await firstRow(
          this.db,
          qb.selectFrom('integrators').select(['id', 'name']).where('id', '=', invite.integrator_id),
        )
      : undefined;
    const secret = newTotpSecret();
    const uri = totpUri(secret, invite.email, 'rentpay');
    return {
      email: invite.email,
      role: invite.role,
      team: team ?? null,
      expiresAt: invite.expires_at,
      totp: { secret, uri, qrSvg: await QRCode.toString(uri, { type: 'svg', margin: 1 }) },
    };
  }

  /** Passkey creation options for the person a set-up link is for. */
  async passkeyOptionsForInvite(token: string) {
    const invite = await this.#openInvite(this.db, token);
    return this.passkeys.registrationOptions({ id: invite.user_id, email: invite.email });
  }

  /**
   * Sets the person's password and second factor, uses up the link, and signs them in. Audited in their team's log.
   */
  async completeSetUp(
    token: string,
    password: string,
    factor: SetUpFactor,
    where: { address?: string; requestId?: string },
  ): Promise<SignInResult> {
    const problem = passwordProblem(password);
    if (problem) throw new FieldValidationError({ password: [problem] });
    if (factor.kind === 'totp') {
      if (!TOTP_SECRET.test(factor.secret)) {
        throw new FieldValidationError({
          'totp.secret': ['Send back the secret the set-up page was given.'],
        });
      }
    }
    // The link is checked before the costly hash, so a made-up link costs the server nothing.
    await this.#openInvite(this.db, token);
    const passwordHash = await hashPassword(password);
    const now = this.clock.now();
    const outcome = await this.db.transaction(async (tx) => {
      const invite = await this.#openInvite(tx, token, true);
      const person = {
        id: invite.user_id,
        email: invite.email,
        role: invite.role,
        integratorId: invite.integrator_id,
      };
      let totp: { secret: string; step: number } | undefined;
      if (factor.kind === 'totp') {
        const step = matchTotp(factor.secret, factor.code, now);
        if (step === undefined) {
          throw new FieldValidationError({
            'totp.code': ['That code is not right: enter the 6 digits your app shows now for rentpay.'],
          });
        }
        totp = { secret: factor.secret, step };
      } else {
        const passkey = await this.passkeys.verifyRegistration(
          tx,
          person.id,
          factor.challengeId,
          factor.response,
        );
        if (!passkey) return { failed: true as const };
        await this.passkeys.store(tx, person.id, passkey);
      }
      await tx.query(
        `UPDATE dashboard_users SET password_hash = $2, totp_secret = $3, totp_last_step = $4, updated_at = $5
          WHERE id = $1`,
        [person.id, passwordHash, totp?.secret ?? null, totp?.step ?? null, now],
      );
      await tx.query('UPDATE dashboard_invites SET used_at = $2 WHERE id = $1', [invite.id, now]);
      const actor: Actor = {
        kind: 'dashboard_user',
        userId: person.id,
        email: person.email,
        role: person.role,
        integratorId: person.integratorId,
        address: where.address,
        requestId: where.requestId,
      };
      await recordAudit(tx, this.clock, actor, {
        scope: person.integratorId ?? OPERATOR_SCOPE,
        action: 'dashboard_user.set_up',
        target: { type: 'dashboard_user', id: person.id },
        after: { second_factor: factor.kind },
      });
      const session = await this.sessions.open(tx, person.id, factor.kind, where.address);
      return { failed: false as const, person, ...session };
    });
    if (outcome.failed) {
      throw new ServiceError(
        'invalid_request',
        `${PASSKEY_FAILED} Ask for passkey options again, then create it.`,
      );
    }
    return outcome;
  }

  /**
   * Signs in with email, password and authenticator-app code. One answer for every failure (unknown email, wrong
   * password, wrong or reused code); too many failures for the email or from the address answer 429 for a while.
   */
  async signIn(
    input: { email: string; password: string; code: string },
    where: { address: string },
  ): Promise<SignInResult> {
    const emailKey = input.email.trim().toLowerCase();
    await this.#checkLimits(emailKey, where.address);
    const person = await firstRow(
      this.db,
      qb
        .selectFrom('dashboard_users')
        .selectAll()
        .where('email_key', '=', emailKey)
        .where('removed_at', 'is', null),
    );
    const passwordOk = await verifyPassword(input.password, person?.password_hash ?? (await this.#decoy()));
    const result =
      person && passwordOk && person.totp_secret
        ? await this.db.transaction(async (tx) => {
            const step = matchTotp(person.totp_secret!, input.code.trim(), this.clock.now());
            if (step === undefined) return undefined;
            // A code works once: the step must be later than the last one used (checked and set in one statement).
            const used = await tx.query(
              `UPDATE dashboard_users SET totp_last_step = $2
                WHERE id = $1 AND (totp_last_step IS NULL OR totp_last_step < $2) RETURNING id`,
              [person.id, step],
            );
            if (used.length === 0) return undefined;
            await tx.query('DELETE FROM dashboard_sign_in_failures WHERE email_key = $1', [emailKey]);
            const session = await this.sessions.open(tx, person.id, 'totp', where.address);
            return {
              ...session,
              person: {
                id: person.id,
                email: person.email,
                role: person.role,
                integratorId: person.integrator_id,
              },
            };
          })
        : undefined;
    if (result) return result;
    await this.#recordFailure(emailKey, where.address);
    throw new ServiceError('unauthorized', SIGN_IN_FAILED);
  }

  /** Signs in with a passkey alone (it is both factors: the device, and its PIN or biometric). */
  async signInWithPasskey(
    challengeId: string,
    response: AuthenticationResponseJSON,
    where: { address: string },
  ): Promise<SignInResult> {
    await this.#checkLimits(undefined, where.address);
    const result = await this.db.transaction(async (tx) => {
      const userId = await this.passkeys.verifyAuthentication(tx, challengeId, response);
      if (!userId) return undefined;
      const person = await firstRow(
        tx,
        qb
          .selectFrom('dashboard_users')
          .select(['id', 'email', 'role', 'integrator_id'])
          .where('id', '=', userId)
          .where('removed_at', 'is', null),
      );
      if (!person) return undefined;
      const session = await this.sessions.open(
        tx,
        person.id,
        'passkey' satisfies SecondFactor,
        where.address,
      );
      return {
        ...session,
        person: { id: person.id, email: person.email, role: person.role, integratorId: person.integrator_id },
      };
    });
    if (result) return result;
    await this.#recordFailure('', where.address);
    throw new ServiceError('unauthorized', PASSKEY_FAILED);
  }

  /** 429 when the email or the address has failed too often within the window. */
  async #checkLimits(emailKey: string | undefined, address: string): Promise<void> {
    const since = new Date(this.clock.now().getTime() - FAILURE_WINDOW_MS);
    const counts = await firstRow(
      this.db,
      qb
        .selectFrom('dashboard_sign_in_failures')
        .select((eb) => [
          eb.fn
            .count<number>('id')
            .filterWhere('email_key', '=', emailKey ?? '')
            .as('account'),
          eb.fn.count<number>('id').filterWhere('address', '=', address).as('address'),
          eb.fn.min('created_at').as('oldest'),
        ])
        .where('created_at', '>', since)
        .where((eb) => eb.or([eb('email_key', '=', emailKey ?? ''), eb('address', '=', address)])),
    );
    const account = emailKey ? Number(counts?.account ?? 0) : 0;
    const fromAddress = Number(counts?.address ?? 0);
    if (account < MAX_FAILURES_PER_ACCOUNT && fromAddress < MAX_FAILURES_PER_ADDRESS) return;
    const oldest = counts?.oldest ?? this.clock.now();
    const seconds = Math.max(
      1,
      Math.ceil((oldest.getTime() + FAILURE_WINDOW_MS - this.clock.now().getTime()) / 1000),
    );
    throw new ServiceError(
      'too_many_attempts',
      `Too many failed sign-ins for this email or from your address. Try again in ${Math.ceil(seconds / 60)} ` +
        'minutes (Retry-After).',
      { 'retry-after': String(seconds) },
    );
  }

  async #recordFailure(emailKey: string, address: string): Promise<void> {
    const now = this.clock.now();
    // Failures older than a day count for nothing: cleared as new ones come.
    await this.db.query(
      `WITH old AS (DELETE FROM dashboard_sign_in_failures WHERE created_at < $3)
       INSERT INTO dashboard_sign_in_failures (email_key, address, created_at) VALUES ($1, $2, $4)`,
      [emailKey, address, new Date(now.getTime() - 86_400_000), now],
    );
  }

  #decoy(): Promise<string> {
    this.#decoyHash ??= hashPassword('decoy password that matches nothing');
    return this.#decoyHash;
  }

  /** The open invite a token names (locked when asked), with its person; 404 otherwise. */
  async #openInvite(tx: Queryable, token: string, lock = false) {
    let query = qb
      .selectFrom('dashboard_invites as i')
      .innerJoin('dashboard_users as u', 'u.id', 'i.user_id')
      .select(['i.id', 'i.user_id', 'i.expires_at', 'u.email', 'u.role', 'u.integrator_id'])
      .where('i.token_hash', '=', sha256Hex(token))
      .where('i.used_at', 'is', null)
      .where('i.expires_at', '>', this.clock.now())
      .where('u.removed_at', 'is', null);
    if (lock) query = query.forUpdate();
    const invite = await firstRow(tx, query);
    if (!invite) {
      throw new ServiceError(
        'not_found',
        'This set-up link does not work: it was used already, replaced by a newer invite, or is more than 72 ' +
          'hours old. Ask an admin of your team for a new invite.',
      );
    }
    return invite;
  }
}
