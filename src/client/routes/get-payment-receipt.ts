import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse } from '../../platform/http/schemas.ts';
import { pdfResponse, sendPdf } from '../../platform/http/stored-file.ts';
import { BadRequest, clientErrors, NotFound } from '../../sessions/client-schemas.ts';
import { PaymentParams } from '../payment-schemas.ts';

export const getPaymentReceiptRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/:payment_id/receipt.pdf',
    {
      schema: {
        operationId: 'getPaymentReceipt',
        summary: 'The receipt of one of this tenant’s payments, as a PDF (the page’s “Download receipt”)',
        description:
          'The same receipt as the Integration API’s, for a succeeded payment of the session’s tenant (any of their ' +
          'sessions at this platform); another tenant’s payment is answered as an unknown one (404). The page ' +
          'fetches it with the user session token in the Authorization header and saves the bytes, so the token ' +
          'never goes into a URL. 409 `conflict`: the payment has not succeeded.',
        tags: ['Payments'],
        params: PaymentParams,
        response: {
          200: pdfResponse('The receipt (application/pdf), to be saved as receipt-<payment_id>.pdf.'),
          ...clientErrors({
            400: BadRequest,
            404: NotFound,
            409: { ...ErrorResponse, description: 'conflict: the payment has not succeeded.' },
          }),
        },
      },
    },
    async (request, reply) => {
      const { session } = request.client;
      const { payment_id: paymentId } = request.params;
      const receipt = await app.ctx.receipts.receipt(session.integrator_id, paymentId, session.user_id);
      if (!receipt) throw new ServiceError('not_found', 'No such payment of yours.');
      return sendPdf(reply, receipt, `receipt-${paymentId}.pdf`);
    },
  );
};
