import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { type PaymentRow, PaymentView, paymentView } from '../../payments/view.ts';
import type { SqlParam } from '../../platform/db/db.ts';
import { ApiError } from '../../platform/http/errors.ts';
import { formatPence } from '../../platform/money.ts';
import { operatorErrors } from '../schemas.ts';

export const PAYMENT_STATUSES = ['requires_action', 'processing', 'succeeded', 'failed', 'canceled'] as const;

/** The contract's Payment, plus what only the operator sees: whose payment it is and how much was refunded. */
export const OperatorPaymentView = Type.Object(
  {
    ...PaymentView.properties,
    integrator_id: Type.String(),
    refunded: Type.String({
      pattern: '^\\d+\\.\\d{2}$',
      description: 'Pounds refunded so far; `amount` minus this can still be refunded.',
    }),
  },
  { title: 'OperatorPayment' },
);
export type OperatorPaymentView = Static<typeof OperatorPaymentView>;

export function operatorPaymentView(row: PaymentRow): OperatorPaymentView {
  return {
    ...paymentView(row),
    integrator_id: row.integrator_id,
    refunded: formatPence(Number(row.refunded_pence)),
  };
}

const ListQuery = Type.Object(
  {
    integrator_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    status: Type.Optional(Type.Enum([...PAYMENT_STATUSES])),
    session_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
    starting_after: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description: 'A payment_id: the page starts with the payment listed right after it.',
      }),
    ),
  },
  { additionalProperties: false },
);

export const listPaymentsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payments',
    {
      schema: {
        summary: 'List payments, newest first',
        tags: ['Operator'],
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(OperatorPaymentView), has_more: Type.Boolean() }),
          ...operatorErrors(),
        },
      },
    },
    async (request) => {
      const { integrator_id, status, session_id, limit, starting_after } = request.query;
      const where: string[] = [];
      const params: SqlParam[] = [];
      const add = (clause: (n: string) => string, value: SqlParam) => {
        params.push(value);
        where.push(clause(`$${params.length}`));
      };
      if (integrator_id !== undefined) add((n) => `integrator_id = ${n}`, integrator_id);
      if (status !== undefined) add((n) => `status = ${n}`, status);
      if (session_id !== undefined) add((n) => `session_id = ${n}`, session_id);
      if (starting_after !== undefined) {
        const [cursor] = await app.ctx.db.query<{ id: string }>('SELECT id FROM payments WHERE id = $1', [
          starting_after,
        ]);
        if (!cursor)
          throw new ApiError(
            'invalid_request',
            `Invalid querystring: starting_after: No payment ${starting_after}.`,
          );
        // Compared in SQL so the timestamp keeps its full precision.
        add(
          (n) => `(created_at, id) < (SELECT created_at, id FROM payments WHERE id = ${n})`,
          starting_after,
        );
      }
      params.push(limit + 1);
      const rows = await app.ctx.db.query<PaymentRow>(
        `SELECT * FROM payments ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
          ORDER BY created_at DESC, id DESC LIMIT $${params.length}`,
        params,
      );
      return { data: rows.slice(0, limit).map(operatorPaymentView), has_more: rows.length > limit };
    },
  );
};
