import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { CalendarDate } from '../../ledger/view.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, integrationErrors } from '../../platform/http/schemas.ts';
import { sendPdf } from '../../platform/http/stored-file.ts';
import { MAX_STATEMENT_YEARS } from '../../receipts/service.ts';
import { StatementView, statementView } from '../../receipts/statement-view.ts';

/** Whether the Accept header asks for JSON rather than the PDF: it names application/json, at a q above PDF's. */
function wantsJson(accept: string | undefined): boolean {
  const q = new Map<string, number>();
  for (const part of (accept ?? '').split(',')) {
    const [type, ...params] = part.split(';').map((piece) => piece.trim().toLowerCase());
    const weight = params.find((param) => param.startsWith('q='));
    q.set(type!, weight ? Number(weight.slice(2)) : 1);
  }
  const json = q.get('application/json') ?? 0;
  return json > 0 && json > (q.get('application/pdf') ?? 0);
}

export const getStatementRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/statements/',
    {
      schema: {
        operationId: 'getStatement',
        summary: "A tenancy's rent statement over a period, as a PDF or JSON",
        description:
          'Every due date in the period and what paid it, every payment and refund with the running balance, the ' +
          'totals, the opening and closing balance, the arrears and days overdue at the end: the ledger ' +
          '(`getLedger`) over a period, for a tenant to show as proof of their rent history. Payouts to the landlord ' +
          'do not move the balance and are not listed. `application/pdf` (an A4 document) unless `Accept` asks for ' +
          '`application/json` (the same figures). The period defaults to the 12 months up to today (UTC); `to` ' +
          `cannot be after today, and a statement covers at most ${MAX_STATEMENT_YEARS} years.`,
        tags: ['Ledger'],
        querystring: Type.Object({
          payment_reference: Type.String({ minLength: 1, maxLength: 50, description: 'The tenancy.' }),
          from: Type.Optional({
            ...CalendarDate,
            description: 'The first day (default: the day after the same date a year before `to`).',
          }),
          to: Type.Optional({ ...CalendarDate, description: 'The last day (default: today, UTC).' }),
        }),
        response: {
          200: {
            description: 'The statement: a PDF by default, JSON with `Accept: application/json`.',
            content: {
              'application/pdf': { schema: { type: 'string', format: 'binary' } },
              'application/json': { schema: StatementView },
            },
          },
          ...integrationErrors({ 404: ErrorResponse }),
        },
      },
    },
    async (request, reply) => {
      const { payment_reference: reference, from, to } = request.query;
      const statement = await app.ctx.receipts.statement(request.integrator.id, reference, {
        ...(from ? { from } : {}),
        ...(to ? { to } : {}),
      });
      // Another integrator's tenancy answers exactly as an unknown one.
      if (!statement) {
        throw new ServiceError(
          'not_found',
          `No tenancy with payment_reference "${reference}". Use a payment_reference you onboarded.`,
        );
      }
      reply.header('vary', 'accept');
      if (wantsJson(request.headers.accept))
        return reply.type('application/json').send(statementView(statement));
      return sendPdf(
        reply,
        await app.ctx.receipts.statementPdf(statement),
        `statement-${statement.from}-${statement.to}.pdf`,
      );
    },
  );
};
