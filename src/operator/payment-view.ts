import { type Static, Type } from 'typebox';
import { type PaymentRow, PaymentView, paymentView } from '../payments/view.ts';
import { formatPence } from '../shared/money.ts';

/** The Payment every API shows, plus what only the operator sees: whose payment it is and how much was refunded. */
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
