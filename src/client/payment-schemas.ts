import { Type } from 'typebox';
import { NextActionView, type PaymentRow, PaymentView, paymentView } from '../payments/view.ts';
import { ErrorResponse, IdString } from '../platform/http/schemas.ts';
import { BadRequest, clientErrors, NotFound } from '../sessions/client-schemas.ts';

/** A payment of the session in the path. */
export const PaymentParams = Type.Object({
  payment_id: IdString('pay', 'a payment'),
});

/** The Client API's Payment: the Payment every API shows, plus what the page must do next (3DS, redirect, QR). */
export const ClientPayment = Type.Object(
  {
    ...PaymentView.properties,
    next_action: Type.Union([NextActionView, Type.Null()]),
  },
  { title: 'ClientPayment' },
);

export function clientPayment(row: PaymentRow) {
  return { ...paymentView(row), next_action: row.status === 'requires_action' ? row.next_action : null };
}

/** The answers of a route acting on one waiting payment: the payment, or 409 `conflict` when it is not waiting. */
export function waitingPaymentResponses(conflict: string) {
  return {
    200: ClientPayment,
    ...clientErrors({
      400: BadRequest,
      404: NotFound,
      409: { ...ErrorResponse, description: `conflict: ${conflict}` },
    }),
  };
}
