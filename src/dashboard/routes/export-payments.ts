import { Readable } from 'node:stream';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requirePermission } from '../../audit/actor.ts';
import type { ListedPayment } from '../../payments/list.ts';
import { integrationErrors } from '../../platform/http/schemas.ts';
import { csvLine } from '../../shared/csv.ts';
import { ukDate } from '../../shared/uk-days.ts';
import { PAYMENT_SEARCH_FILTERS, paymentSearchFilter } from '../payment-search.ts';
import { EXPORT_COLUMNS, exportCells } from '../payment-views.ts';
import { dashboardActor, dashboardIntegrator } from '../session-auth.ts';

/** The CSV text of the export: the header row, then the payments a batch at a time as the service reads them. */
async function* csvOf(batches: AsyncIterable<ListedPayment[]>): AsyncGenerator<string> {
  yield csvLine(EXPORT_COLUMNS);
  for await (const batch of batches) yield batch.map((row) => csvLine(exportCells(row))).join('');
}

/** Every payment a search finds, as a CSV file, streamed. */
export const exportPaymentsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/export.csv',
    {
      schema: {
        operationId: 'exportPayments',
        summary: 'Download the payments a search finds, as CSV',
        description:
          `The search's filters (searchPayments), every matching payment newest first, no paging. A header row ` +
          `(${EXPORT_COLUMNS.join(', ')}), then one row per payment; CRLF line ends; every cell quoted, and a cell ` +
          'starting with = + - @ (or a tab or CR) prefixed with an apostrophe so a spreadsheet shows it as text. ' +
          'Streamed as it is read, 1,000 payments at a time. Needs `payments.read`.',
        tags: ['Payments'],
        querystring: Type.Object(PAYMENT_SEARCH_FILTERS, { additionalProperties: false }),
        response: {
          200: { description: 'The file.', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...integrationErrors(),
        },
      },
    },
    async (request, reply) => {
      const integratorId = dashboardIntegrator(request);
      requirePermission(dashboardActor(request), 'payments.read');
      const filter = paymentSearchFilter(integratorId, request.query);
      const day = ukDate(app.ctx.clock.now());
      return (
        reply
          .type('text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="payments-${day}.csv"`)
          // A stream is piped as it is (the schema's string is the file's OpenAPI description).
          .send(Readable.from(csvOf(app.ctx.payments.all(filter))) as unknown as string)
      );
    },
  );
};
