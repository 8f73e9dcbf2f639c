import {
  type AuthenticationResponseJSON,
  type AuthenticatorTransportFuture,
  generateAuthenticationOptions,
  generateRegistrationOptions,
  type PublicKeyCredentialCreationOptionsJSON,
  type PublicKeyCredentialRequestOptionsJSON,
  type RegistrationResponseJSON,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { newId } from '../platform/ids.ts';

/** A WebAuthn challenge works once, within this long. */
export const CHALLENGE_TTL_MS = 5 * 60_000;

/** The relying party: the dashboard's own origin, from the service's public URL. */
export interface RelyingParty {
  id: string;
  origin: string;
  name: string;
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl);
  return { id: url.hostname, origin: url.origin, name: 'rentpay' };
}

/** A passkey that verified: what to store. */
export interface RegisteredPasskey {
  credentialId: string;
  publicKey: string;
  counter: number;
  transports: string;
}

export type { AuthenticationResponseJSON, RegistrationResponseJSON };

/**
 * Passkeys (WebAuthn) for the dashboard's people: options for the browser, challenges kept in the database (any
 * serve process may receive the answer), and verification of what the authenticator signed.
 */
export class Passkeys {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly rp: RelyingParty,
  ) {}

  /** Options to create a passkey for the person at set-up, with the challenge stored for them. */
  async registrationOptions(person: {
    id: string;
    email: string;
  }): Promise<{ challengeId: string; options: PublicKeyCredentialCreationOptionsJSON }> {
    const options = await generateRegistrationOptions({
      rpName: this.rp.name,
      rpID: this.rp.id,
      userName: person.email,
      userID: new TextEncoder().encode(person.id),
      attestationType: 'none',
      authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
      timeout: CHALLENGE_TTL_MS,
    });
    const challengeId = await this.#storeChallenge('register', options.challenge, person.id);
    return { challengeId, options };
  }

  /** Options to sign in with any passkey of this site (the browser offers the person's own). */
  async authenticationOptions(): Promise<{
    challengeId: string;
    options: PublicKeyCredentialRequestOptionsJSON;
  }> {
    const options = await generateAuthenticationOptions({
      rpID: this.rp.id,
      userVerification: 'required',
      timeout: CHALLENGE_TTL_MS,
    });
    const challengeId = await this.#storeChallenge('sign_in', options.challenge, null);
    return { challengeId, options };
  }

  /**
   * Verifies a new passkey against its challenge (used up here, in the caller's transaction) for the person.
   * Undefined when it does not verify.
   */
  async verifyRegistration(
    tx: Queryable,
    personId: string,
    challengeId: string,
    response: RegistrationResponseJSON,
  ): Promise<RegisteredPasskey | undefined> {
    const challenge = await this.#useChallenge(tx, challengeId, 'register', personId);
    if (!challenge) return undefined;
    const verified = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: this.rp.origin,
      expectedRPID: this.rp.id,
      requireUserVerification: true,
    }).catch(() => undefined);
    if (!verified?.verified) return undefined;
    const { credential } = verified.registrationInfo;
    return {
      credentialId: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: (credential.transports ?? []).join(','),
    };
  }

  /** The person a passkey's signature proves, after checking it (and its counter); undefined when it does not. */
  async verifyAuthentication(
    tx: Queryable,
    challengeId: string,
    response: AuthenticationResponseJSON,
  ): Promise<string | undefined> {
    const challenge = await this.#useChallenge(tx, challengeId, 'sign_in', null);
    if (!challenge) return undefined;
    const passkey = await firstRow(
      tx,
      qb.selectFrom('dashboard_passkeys').selectAll().where('credential_id', '=', response.id).forUpdate(),
    );
    if (!passkey) return undefined;
    const verified = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: this.rp.origin,
      expectedRPID: this.rp.id,
      requireUserVerification: true,
      credential: {
        id: passkey.credential_id,
        publicKey: new Uint8Array(Buffer.from(passkey.public_key, 'base64url')),
        counter: Number(passkey.counter),
        transports: passkey.transports
          ? (passkey.transports.split(',') as AuthenticatorTransportFuture[])
          : undefined,
      },
    }).catch(() => undefined);
    if (!verified?.verified) return undefined;
    await tx.query('UPDATE dashboard_passkeys SET counter = $2, last_used_at = $3 WHERE id = $1', [
      passkey.id,
      verified.authenticationInfo.newCounter,
      this.clock.now(),
    ]);
    return passkey.user_id;
  }

  async store(tx: Queryable, personId: string, passkey: RegisteredPasskey): Promise<void> {
    await tx.query(
      `INSERT INTO dashboard_passkeys (id, user_id, credential_id, public_key, counter, transports, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        newId('pky'),
        personId,
        passkey.credentialId,
        passkey.publicKey,
        passkey.counter,
        passkey.transports,
        this.clock.now(),
      ],
    );
  }

  async #storeChallenge(
    purpose: 'register' | 'sign_in',
    challenge: string,
    userId: string | null,
  ): Promise<string> {
    const id = newId('wch');
    const now = this.clock.now();
    // Challenges past their time are of no use to anyone: cleared as new ones come.
    await this.db.query(
      `WITH old AS (DELETE FROM dashboard_challenges WHERE expires_at < $6)
       INSERT INTO dashboard_challenges (id, purpose, challenge, user_id, expires_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6)`,
      [id, purpose, challenge, userId, new Date(now.getTime() + CHALLENGE_TTL_MS), now],
    );
    return id;
  }

  /** The challenge, marked used, if it is unused, unexpired, of this purpose and person. */
  async #useChallenge(
    tx: Queryable,
    challengeId: string,
    purpose: 'register' | 'sign_in',
    userId: string | null,
  ): Promise<string | undefined> {
    const now = this.clock.now();
    const used = await firstRow(
      tx,
      qb
        .updateTable('dashboard_challenges')
        .set({ used_at: now })
        .where('id', '=', challengeId)
        .where('purpose', '=', purpose)
        .where((eb) => (userId === null ? eb('user_id', 'is', null) : eb('user_id', '=', userId)))
        .where('used_at', 'is', null)
        .where('expires_at', '>', now)
        .returning('challenge'),
    );
    return used?.challenge;
  }
}
