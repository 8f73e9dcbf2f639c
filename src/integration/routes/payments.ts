import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { PAYMENT_STATUSES } from '../../payments/list.ts';
import { RefundBody, RefundHeaders, RefundView, refundPayment } from '../../payments/refund-request.ts';
import { type PaymentRow, PaymentView, paymentView } from '../../payments/view.ts';
import { ServiceError } from '../../platform/errors.ts';
import {
  ErrorResponse,
  IdString,
  integrationErrors,
  optionalBody,
  pageQuery,
} from '../../platform/http/schemas.ts';
import { formatPence } from '../../shared/money.ts';

/** A Payment as listed to its integrator: whose it is and how much of it was refunded. */
export const IntegratorPaymentView = Type.Object(
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

function integratorPaymentView(row: PaymentRow & { user_external_id: string }): IntegratorPaymentView {
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

const PaymentParams = Type.Object({ payment_id: IdString('pay', 'a payment') });

/** Your payments, newest first, and refunds of them: the operator's rules, limited to your own payments. */
export const integrationPaymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
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
        data: page.rows.map((row) => integratorPaymentView(row as PaymentRow & { user_external_id: string })),
        has_more: page.has_more,
      };
    },
  );

  app.post(
    '/payments/:payment_id/refunds/',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'refundPayment',
        summary: 'Refund one of your payments, in full or in part',
        description:
          'Send an `Idempotency-Key`: a retry with the same key and amount answers 200 with the same refund and ' +
          'refunds nothing more. 201: refunded; 202: the processor has not answered yet (the refund finishes in the ' +
          'background and `payment_refunded` follows); 409 `conflict`: the processor refused it; 409 `paid_out`: the ' +
          'rent has been paid out to the landlord in a confirmed payout (only the operator can refund it now, and what ' +
          "it takes back comes off the landlord's next payout); 422: the same key with " +
          'another amount; 400 on `amount`: more than is left to refund. A `payment_refunded` webhook follows each refund.',
        tags: ['Payments'],
        params: PaymentParams,
        headers: RefundHeaders,
        body: RefundBody,
        response: {
          200: RefundView,
          201: RefundView,
          202: RefundView,
          ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse, 422: ErrorResponse }),
        },
      },
    },
    async (request, reply) => {
      const { payment_id } = request.params;
      if (!(await app.ctx.payments.belongsTo(payment_id, request.integrator.id))) {
        throw new ServiceError(
          'not_found',
          `No payment ${payment_id}. List yours with GET /api/third-party/payments/.`,
        );
      }
      const refunded = await refundPayment(
        app,
        payment_id,
        request.body,
        request.headers['idempotency-key'],
        request.log,
        'integrator',
      );
      return reply.code(refunded.code).send(refunded.body);
    },
  );
};
