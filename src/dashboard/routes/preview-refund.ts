import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, IdString, integrationErrors } from '../../platform/http/schemas.ts';
import { ERROR_MESSAGE } from '../../platform/http/validation.ts';
import { AMOUNT_FORMAT_MESSAGE, AMOUNT_PATTERN, parsePence } from '../../shared/money.ts';
import { RefundPreviewView, refundPreviewView } from '../payment-views.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** What a refund would take back and do to the landlord's payouts: the refund's confirmation. */
export const previewRefundRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/:payment_id/refund-preview/',
    {
      schema: {
        operationId: 'previewRefund',
        summary: 'What a refund would do, before it is made',
        description:
          'The amount (default: everything left), its rent and fee parts (refunds give the rent back first), what ' +
          'is left to refund after it, and what the landlord’s payouts lose. Answers as the refund would: 409 ' +
          '`conflict` for a payment that did not succeed or has nothing left, 400 on `amount` for more than is ' +
          'left; a payment whose rent is in a confirmed payout is previewed with `refused` (`paid_out`). Changes ' +
          'nothing. Needs `payments.read`.',
        tags: ['Payments'],
        params: Type.Object({ payment_id: IdString('pay', 'a payment') }),
        querystring: Type.Object(
          {
            amount: Type.Optional(
              Type.String({
                pattern: AMOUNT_PATTERN,
                [ERROR_MESSAGE]: AMOUNT_FORMAT_MESSAGE,
                description: 'Pounds, e.g. "100.00"; absent: everything not refunded yet.',
              }),
            ),
          },
          { additionalProperties: false },
        ),
        response: {
          200: RefundPreviewView,
          ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse }),
        },
      },
    },
    async (request) => {
      const integratorId = dashboardIntegrator(request);
      const actor = dashboardActor(request);
      requirePermission(actor, 'payments.read');
      const { payment_id } = request.params;
      if (!(await app.ctx.payments.belongsTo(payment_id, integratorId))) {
        throw new ServiceError('not_found', `No payment ${payment_id}.`);
      }
      const { amount } = request.query;
      const preview = await app.ctx.payments.previewRefund(
        payment_id,
        amount === undefined ? undefined : parsePence(amount),
        actor,
      );
      return refundPreviewView(preview);
    },
  );
};
