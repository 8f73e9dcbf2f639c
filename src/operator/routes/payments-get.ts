import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PaymentRow } from '../../payments/view.ts';
import { ApiError } from '../../platform/http/errors.ts';
import { operatorErrors } from '../schemas.ts';
import { OperatorPaymentView, operatorPaymentView } from './payments-list.ts';

export const getPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/:payment_id',
    {
      schema: {
        summary: 'Show one payment',
        tags: ['Operator'],
        params: Type.Object({ payment_id: Type.String({ maxLength: 64 }) }),
        response: { 200: OperatorPaymentView, ...operatorErrors() },
      },
    },
    async (request) => {
      const { payment_id } = request.params;
      const [row] = await app.ctx.db.query<PaymentRow>('SELECT * FROM payments WHERE id = $1', [payment_id]);
      if (!row) throw new ApiError('not_found', `No payment ${payment_id}.`);
      return operatorPaymentView(row);
    },
  );
};
