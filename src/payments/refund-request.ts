import { type Static, Type } from 'typebox';
import type { Actor } from '../audit/actor.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import {
  ErrorResponse,
  IDEMPOTENCY_KEY,
  IDEMPOTENCY_KEY_MESSAGE,
  integrationErrors,
  Timestamp,
} from '../platform/http/schemas.ts';
import { formatPence, parsePence } from '../shared/money.ts';
import type { PaymentService } from './service.ts';
import { PaymentView, paymentView } from './view.ts';

/** A refund as the operator and the integrator see it: the same rules and answers on both APIs. */
export const RefundView = Type.Object(
  {
    refund_id: Type.String(),
    payment_id: Type.String(),
    amount: Type.String(),
    status: Type.Union([Type.Literal('pending'), Type.Literal('succeeded'), Type.Literal('failed')], {
      description:
        'pending: written, the processor has not answered yet (a background job finishes it); succeeded; failed.',
    }),
    created_at: Timestamp,
    payment: PaymentView,
  },
  { title: 'Refund' },
);
type RefundView = Static<typeof RefundView>;

export const RefundHeaders = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      description:
        'A retry with the same key and amount is the same refund (200); another amount answers 422.',
    }),
  ),
});

export const RefundBody = Type.Object({
  amount: Type.Optional(
    Type.String({ description: 'Pounds, e.g. "100.00"; absent: everything not refunded yet.' }),
  ),
});

/**
 * Refunds a payment: 201 done, 202 pending at the processor, 200 the same refund again (same key), 409 refused
 * by the processor, 422 the same key with another amount, 400 on `amount` for more than is left.
 */
export async function refundPayment(
  payments: PaymentService,
  paymentId: string,
  body: Static<typeof RefundBody>,
  key: string | undefined,
  log: { info(details: object, message: string): void },
  actor: Actor,
): Promise<{ code: 200 | 201 | 202; body: RefundView }> {
  if (key !== undefined && !IDEMPOTENCY_KEY.test(key)) {
    throw new ServiceError('invalid_request', `Idempotency-Key: ${IDEMPOTENCY_KEY_MESSAGE}`);
  }
  const amountPence = body.amount === undefined ? undefined : parsePence(body.amount);
  if (body.amount !== undefined && amountPence === undefined) {
    throw new FieldValidationError({ amount: ['Enter an amount in pounds, e.g. "100.00".'] });
  }
  const { refund, payment, replayed } = await payments.refunds.refund(paymentId, amountPence, key, actor);
  log.info(
    { payment_id: payment.id, refund_id: refund.id, status: refund.status, replayed },
    'payment refund',
  );
  if (refund.status === 'failed') {
    throw new ServiceError('conflict', `The processor refused the refund: ${refund.failure_message}`);
  }
  return {
    code: refund.status === 'pending' ? 202 : replayed ? 200 : 201,
    body: {
      refund_id: refund.id,
      payment_id: payment.id,
      amount: formatPence(Number(refund.amount_pence)),
      status: refund.status,
      created_at: new Date(refund.created_at).toISOString(),
      payment: paymentView(payment),
    },
  };
}

/**
 * A refund's answers on the platform's APIs (Integration, Dashboard): 200 the same refund again, 201 refunded, 202
 * pending at the processor, and the errors.
 */
export const REFUND_RESPONSES = {
  200: RefundView,
  201: RefundView,
  202: RefundView,
  ...integrationErrors({ 404: ErrorResponse, 409: ErrorResponse, 422: ErrorResponse }),
};

/**
 * refundPayment of one of the integrator's own payments (its token's, or its people's): another integrator's
 * payment is as unknown as a missing one, 404 with `unknownDetail`.
 */
export async function refundOwnPayment(
  payments: PaymentService,
  integratorId: string,
  request: {
    paymentId: string;
    body: Static<typeof RefundBody>;
    key: string | undefined;
    log: { info(details: object, message: string): void };
    actor: Actor;
    unknownDetail: string;
  },
): Promise<{ code: 200 | 201 | 202; body: RefundView }> {
  if (!(await payments.belongsTo(request.paymentId, integratorId))) {
    throw new ServiceError('not_found', request.unknownDetail);
  }
  return refundPayment(payments, request.paymentId, request.body, request.key, request.log, request.actor);
}
