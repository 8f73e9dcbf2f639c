import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, integrationErrors, Timestamp } from '../../platform/http/schemas.ts';
import { InviteBody, RoleSchema, SIGNED_OUT } from '../schemas.ts';

/** What a set-up link is for, and an authenticator-app secret to offer. */
export const lookUpInviteRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/setup/invite/',
    {
      config: SIGNED_OUT,
      schema: {
        operationId: 'lookUpInvite',
        summary: 'Read a set-up link: who it is for, and a new authenticator-app secret',
        description:
          'The set-up page calls this with the `rpi_…` token from its link. Each call offers a new secret (shown ' +
          'as a QR code and as text); the one whose code the person confirms becomes theirs. 404 when the link ' +
          'was used, replaced by a newer invite, or is more than 72 hours old.',
        tags: ['Signing in'],
        body: InviteBody,
        response: {
          200: Type.Object({
            email: Type.String(),
            role: RoleSchema,
            team: Type.Union([Type.Object({ id: Type.String(), name: Type.String() }), Type.Null()], {
              description: 'The platform; null for the operator’s staff.',
            }),
            expires_at: Timestamp,
            totp: Type.Object({
              secret: Type.String({ description: 'Base32, for typing into an app.' }),
              uri: Type.String({ description: 'The otpauth:// URI the QR code holds.' }),
              qr_svg: Type.String({ description: 'The QR code, as an SVG document.' }),
            }),
          }),
          ...integrationErrors({ 404: ErrorResponse }),
        },
      },
    },
    async (request) => {
      const invite = await app.ctx.signIn.lookUpInvite(request.body.invite);
      return {
        email: invite.email,
        role: invite.role,
        team: invite.team,
        expires_at: invite.expiresAt.toISOString(),
        totp: { secret: invite.totp.secret, uri: invite.totp.uri, qr_svg: invite.totp.qrSvg },
      };
    },
  );
};
