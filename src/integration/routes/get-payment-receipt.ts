import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, IdString, integrationErrors } from '../../platform/http/schemas.ts';
import { pdfResponse, sendPdf } from '../../platform/http/stored-file.ts';

export const getPaymentReceiptRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/:payment_id/receipt.pdf',
    {
      schema: {
        operationId: 'getPaymentReceipt',
        summary: 'The receipt of one of your payments, as a PDF',
        description:
          'An A4 PDF the tenant can keep: the receipt number (the payment id), your name, the tenant, the property, ' +
          'the landlord paid, the payment reference, the rent it paid (the due dates the ledger allocated it to), ' +
          'the rent, fee and total, the method (card brand and last 4, or the wallet or APM), the date and time in ' +
          'UK time, the processor reference, and any refund or lost dispute since. Made when asked, from the ' +
          'records as they are then: the same records at the same time give the same bytes. `payment_success` ' +
          'webhooks carry this path as `payment.receipt_url`. 409 `conflict`: the payment has not succeeded.',
        tags: ['Payments'],
        params: Type.Object({ payment_id: IdString('pay', 'a payment') }),
        response: {
          200: pdfResponse('The receipt (application/pdf), to be saved as receipt-<payment_id>.pdf.'),
          ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse }),
        },
      },
    },
    async (request, reply) => {
      const { payment_id: paymentId } = request.params;
      const receipt = await app.ctx.receipts.receipt(request.integrator.id, paymentId);
      // Another integrator's payment answers exactly as an unknown one.
      if (!receipt) throw new ServiceError('not_found', `No payment ${paymentId}.`);
      return sendPdf(reply, receipt, `receipt-${paymentId}.pdf`);
    },
  );
};
