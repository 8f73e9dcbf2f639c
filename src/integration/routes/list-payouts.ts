import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { PayoutView, payoutView } from '../../payouts/view.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';

export const listPayoutsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payouts/',
    {
      schema: {
        operationId: 'listPayouts',
        summary: "A tenancy's payouts to the landlord, newest first",
        description:
          'Every payout of the tenancy’s rent: created (in a run not yet confirmed), paid (with paid_at) or ' +
          'canceled. A paid payout also appears in the ledger and sent a payout_paid webhook.',
        tags: ['Ledger'],
        querystring: Type.Object({ payment_reference: Type.String({ minLength: 1, maxLength: 50 }) }),
        response: {
          200: Type.Object({ data: Type.Array(PayoutView) }),
          ...integrationErrors({ 404: ErrorResponse }),
        },
      },
    },
    async (request) => {
      const reference = request.query.payment_reference;
      const rows = await app.ctx.payouts.forTenancy(request.integrator.id, reference);
      if (!rows) {
        throw new ServiceError(
          'not_found',
          `No tenancy with payment_reference "${reference}". Use a payment_reference you onboarded.`,
        );
      }
      return { data: rows.map(payoutView) };
    },
  );
};
