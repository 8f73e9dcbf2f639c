import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { HeldPayoutView, heldPayoutView } from '../payout-views.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** The platform's tenancies whose rent is held back from payouts, and why. */
export const listHeldPayoutsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payouts/held/',
    {
      schema: {
        operationId: 'listHeldPayouts',
        summary: 'Tenancies whose rent is held back from payouts, and why',
        description:
          'As of today, by payment reference: rent a run would pay but holds back (the landlord’s account cannot ' +
          'be paid, or in production awaits the operator’s approval), refunds and lost disputes that outweigh the ' +
          'rent waiting (carried into the next payouts), and rent under an open dispute. A tenancy may be listed ' +
          'once per kind. Needs `payments.read`.',
        tags: ['Payouts'],
        querystring: Type.Object({}, { additionalProperties: false }),
        response: {
          200: Type.Object({ data: Type.Array(HeldPayoutView) }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      return { data: (await app.ctx.payouts.heldFor(integratorId)).map(heldPayoutView) };
    },
  );
};
