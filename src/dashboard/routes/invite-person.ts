import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, integrationErrors, Timestamp } from '../../platform/http/schemas.ts';
import { dashboardActor } from '../session-auth.ts';
import { TeamMember, teamMemberView } from '../team-view.ts';

/** Invites a person to the team: a one-time set-up link. */
export const invitePersonRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/team/invites/',
    {
      schema: {
        operationId: 'invitePerson',
        summary: 'Invite a person to your team',
        description:
          'Answers with their set-up link (72 hours, once); send it to them yourself. Inviting again someone who has ' +
          'not set up yet gives a new link and role and ends the old link. Needs `team.manage`.',
        tags: ['Team'],
        body: Type.Object(
          { email: Type.String({ minLength: 3, maxLength: 320 }), role: Type.String({ maxLength: 32 }) },
          { additionalProperties: false },
        ),
        response: {
          201: Type.Object({ person: TeamMember, link: Type.String(), expires_at: Timestamp }),
          ...integrationErrors({ 409: ErrorResponse }),
        },
      },
    },
    async (request, reply) => {
      const invited = await app.ctx.people.invite(dashboardActor(request), {
        team: request.dashboard.person.integratorId,
        email: request.body.email,
        role: request.body.role,
      });
      return reply.code(201).send({
        person: teamMemberView(invited.user),
        link: invited.link,
        expires_at: invited.expiresAt.toISOString(),
      });
    },
  );
};
