import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { optionalBody } from '../../platform/http/schemas.ts';
import { PayeeParams } from '../operator-payout-views.ts';
import { OPERATOR_TAG, operatorConsoleErrors } from '../operator-views.ts';
import { dashboardOperator } from '../session-auth.ts';

export const operatorApprovePayeeRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/operator/payees/:payee_id/approve/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'operatorApprovePayee',
        summary: 'Approve a landlord account for payouts',
        description:
          'Lets runs pay this account from now on (the next run includes the rent it held back). Approving an ' +
          'approved account changes nothing. Audited, naming you. No body. Needs `payouts.manage` (operator_admin).',
        tags: [OPERATOR_TAG],
        params: PayeeParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: {
          201: Type.Object({ sort_code: Type.String(), account_number: Type.String() }),
          ...operatorConsoleErrors(),
        },
      },
    },
    async (request, reply) => {
      const [sortCode, accountNumber] = request.params.payee_id.split('-') as [string, string];
      const approved = await app.ctx.payouts.approve(sortCode, accountNumber, dashboardOperator(request));
      return reply.code(201).send(approved);
    },
  );
};
