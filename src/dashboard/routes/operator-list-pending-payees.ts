import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { PayeeView, payeeView } from '../operator-payout-views.ts';
import { OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

export const operatorListPendingPayeesRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/operator/payees/pending/',
    {
      schema: {
        operationId: 'operatorListPendingPayees',
        summary: 'Landlord accounts waiting for approval (production)',
        description:
          'In production a landlord account is paid only once approved: each account with rent to pay out that ' +
          'has never been approved, with the tenancies it holds back and their rent, by sort code and account ' +
          'number. Always empty in the sandbox, which pays every UK account. Operator staff with `payments.read`.',
        tags: [OPERATOR_TAG],
        response: { 200: Type.Object({ data: Type.Array(PayeeView) }), ...operatorConsoleErrors() },
      },
    },
    async (request) => {
      requirePermission(dashboardOperator(request), 'payments.read');
      return { data: (await app.ctx.payouts.pendingPayees()).map(payeeView) };
    },
  );
};
