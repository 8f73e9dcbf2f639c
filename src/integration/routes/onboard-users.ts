import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { OnboardingBody, OnboardingResponse } from '../../onboarding/schemas.ts';
import { validateOnboardingBody } from '../../onboarding/validate.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { serverTokenActor } from '../actor.ts';

export const onboardUsersRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/onboarding/',
    {
      // The body schema documents the endpoint; validateOnboardingBody applies it (and the rules it cannot
      // express) with paths that start at the array index, which a one-object-or-array schema cannot give.
      validatorCompiler: () => () => true,
      schema: {
        operationId: 'onboardUsers',
        summary: 'Create or update users, tenancies and KYC links',
        description:
          'One User or an array of 1 to 500, all-or-nothing. A user with an existing `user_id` is updated. A tenancy ' +
          'matching an existing one on (user, start_rent_date, payment_reference, address_1) is existing: only its ' +
          'end_rent_date, amount and frequency change, and `ignored` lists the other fields sent for it that differ from ' +
          'what is stored. Tenancies not named are left as they are. KYC members: absent ' +
          'means unchanged, null clears. Agreement and KYC documents are fetched in the background; their state ' +
          'shows in the session query.',
        tags: ['Onboarding'],
        body: OnboardingBody,
        response: { 201: OnboardingResponse, ...integrationErrors({ 413: ErrorResponse }) },
      },
    },
    async (request, reply) => {
      const users = validateOnboardingBody(request.body);
      const { created, updated, ignored } = await app.ctx.onboarding.onboard(
        request.integrator.id,
        users,
        Array.isArray(request.body),
        serverTokenActor(request),
      );
      request.log.info(
        { integrator_id: request.integrator.id, created, updated, ignored: ignored.length },
        'users onboarded',
      );
      return reply.code(201).send({
        message: `Onboarded ${users.length} user${users.length === 1 ? '' : 's'}: ${created} created, ${updated} updated.`,
        created,
        updated,
        ignored,
      });
    },
  );
};
