import type { FastifyContextConfig, FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { SESSION_IDLE_MS } from '../people/sessions.ts';
import type { SignInResult } from '../people/sign-in.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import { GRANTS, PERMISSIONS, ROLES, type Role } from '../shared/roles.ts';
import { type SessionCookie, setSessionCookie } from './session-auth.ts';

export const RoleSchema = Type.Enum([...ROLES], { description: 'What the person may do (see Roles).' });

/** A person of a team, as the dashboard shows them. */
export const DashboardPerson = Type.Object(
  {
    id: Type.String({ description: 'dus_…' }),
    email: Type.String(),
    role: RoleSchema,
    integrator_id: Type.Union([Type.String(), Type.Null()], {
      description: 'Their platform; null for the operator’s staff.',
    }),
  },
  { title: 'DashboardPerson' },
);

/** Who is signed in, what they may do, and the token their changes must carry. */
export const SignedInResponse = Type.Object(
  {
    person: DashboardPerson,
    permissions: Type.Array(Type.Enum([...PERMISSIONS])),
    csrf_token: Type.String({
      description: 'Send it as X-CSRF-Token with every request that changes something.',
    }),
    session: Type.Object({
      second_factor: Type.Enum(['totp', 'passkey']),
      expires_at: { ...Timestamp, description: 'The session ends then at the latest (12 hours).' },
      idle_expires_at: {
        ...Timestamp,
        description: 'It ends then unless used again (30 minutes after its last request).',
      },
    }),
  },
  { title: 'SignedIn' },
);

export function personView(person: { id: string; email: string; role: Role; integratorId: string | null }) {
  return { id: person.id, email: person.email, role: person.role, integrator_id: person.integratorId };
}

export function signedInView(
  person: { id: string; email: string; role: Role; integratorId: string | null },
  session: { csrfToken: string; secondFactor: 'totp' | 'passkey'; expiresAt: Date; idleExpiresAt: Date },
) {
  return {
    person: personView(person),
    permissions: [...GRANTS[person.role]],
    csrf_token: session.csrfToken,
    session: {
      second_factor: session.secondFactor,
      expires_at: session.expiresAt.toISOString(),
      idle_expires_at: session.idleExpiresAt.toISOString(),
    },
  };
}

/** Sets the new session's cookie and answers who is signed in. */
export function signedInReply(reply: FastifyReply, cookie: SessionCookie, result: SignInResult) {
  setSessionCookie(reply, cookie, result.token);
  return signedInView(result.person, {
    csrfToken: result.csrfToken,
    secondFactor: result.session.second_factor,
    expiresAt: result.session.expires_at,
    idleExpiresAt: new Date(result.session.last_seen_at.getTime() + SESSION_IDLE_MS),
  });
}

/** Routes anyone may call (no session): setting up a sign-in, signing in. */
export const SIGNED_OUT: FastifyContextConfig = { signedOut: true };

export const InviteBody = Type.Object(
  {
    invite: Type.String({ minLength: 1, maxLength: 100, description: 'The rpi_… token of the set-up link.' }),
  },
  { additionalProperties: false },
);

export const PasskeyOptions = Type.Object(
  {
    challenge_id: Type.String({ description: 'wch_…: send it back with the browser’s answer.' }),
    options: Type.Record(Type.String(), Type.Unknown(), {
      description: 'WebAuthn options (JSON form) for the browser.',
    }),
  },
  { title: 'PasskeyOptions' },
);

/** What the browser's WebAuthn call returned, in its JSON form; checked by the server, not by this schema. */
export const WebAuthnResponse = Type.Object(
  {
    id: Type.String({ maxLength: 1024 }),
    rawId: Type.String({ maxLength: 1024 }),
    type: Type.Literal('public-key'),
    response: Type.Record(Type.String(), Type.Unknown()),
    clientExtensionResults: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    authenticatorAttachment: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: false },
);
