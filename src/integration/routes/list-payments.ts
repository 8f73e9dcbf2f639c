import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { PAYMENT_STATUSES } from '../../payments/list.ts';
import { type PaymentRow, PaymentView, paymentView } from '../../payments/view.ts';
import { integrationErrors, pageQuery } from '../../platform/http/schemas.ts';
import { formatPence } from '../../shared/money.ts';

/** A Payment as listed to its integrator: whose it is and how much of it was refunded. */
const IntegratorPaymentView = Type.Object(
  {
    ...PaymentView.properties,
    user_id: Type.Integer({ description: 'Your user_id of the tenant who paid.' }),
    refunded: Type.String({
      pattern: '^\\d+\\.\\d{2}$',
      description: 'Pounds refunded so far; `amount` minus this can still be refunded.',
    }),
  },
  { title: 'IntegratorPayment' },
);
type IntegratorPaymentView = Static<typeof IntegratorPaymentView>;

function integratorPaymentView(row: PaymentRow & { user_external_id: number }): IntegratorPaymentView {
  return {
    ...paymentView(row),
    user_id: Number(row.user_external_id),
    refunded: formatPence(Number(row.refunded_pence)),
  };
}

const ListQuery = Type.Object(
  {
    user_id: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: Number.MAX_SAFE_INTEGER,
        description: 'Only this tenant’s payments.',
      }),
    ),
    status: Type.Optional(Type.Enum([...PAYMENT_STATUSES])),
    ...pageQuery('payment'),
  },
  { additionalProperties: false },
);

/** Your payments, newest first. */
export const listPaymentsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments/',
    {
      schema: {
        operationId: 'listPayments',
        summary: 'List your payments, newest first',
        description:
          'Cursor pagination: pass the last `payment_id` of a page as `starting_after` for the next; a payment made ' +
          'meanwhile appears on the first page and never shifts a later one.',
        tags: ['Payments'],
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(IntegratorPaymentView), has_more: Type.Boolean() }),
          ...integrationErrors(),
        },
      },
    },
    async (request) => {
      const { user_id, status, limit, starting_after } = request.query;
      const page = await app.ctx.payments.list({
        integratorId: request.integrator.id,
        ...(user_id === undefined ? {} : { userId: user_id }),
        ...(status === undefined ? {} : { status }),
        limit,
        ...(starting_after === undefined ? {} : { startingAfter: starting_after }),
      });
      return {
        data: page.rows.map(integratorPaymentView),
        has_more: page.has_more,
      };
    },
  );
};
