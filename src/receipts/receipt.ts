/**
 * A receipt for one succeeded payment: who paid whom for which rent, how much, how, and when; and what came back
 * since (refunds, a lost dispute). What the payment paid is the ledger's allocation (oldest due date first).
 */
import type { AppliedPart } from '../ledger/position.ts';
import type { RefundRow } from '../payments/refunds.ts';
import type { PaymentRow } from '../payments/view.ts';
import { money, paymentPaidWith, rentOf, ukMoment } from './format.ts';
import type { TenancyParties } from './parties.ts';
import { PdfWriter } from './pdf.ts';

export interface ReceiptData {
  payment: PaymentRow;
  parties: TenancyParties;
  /** Its refunds that succeeded, oldest first. */
  refunds: readonly Pick<RefundRow, 'id' | 'amount_pence' | 'created_at'>[];
  /** What the payment pays now, oldest due date first (the ledger's allocation, refunds taken off). */
  applied: readonly AppliedPart[];
  generatedAt: Date;
}

/** What came back of the payment: each refund, and what a lost dispute took back, oldest first. */
function givenBack(data: ReceiptData): { label: string; pence: number }[] {
  const back = data.refunds.map((refund) => ({
    at: refund.created_at,
    label: `Refund ${refund.id}, ${ukMoment(refund.created_at)}`,
    pence: refund.amount_pence,
  }));
  const { payment } = data;
  if (payment.dispute_status === 'lost' && payment.dispute_lost_at) {
    back.push({
      at: payment.dispute_lost_at,
      label: `Dispute lost, ${ukMoment(payment.dispute_lost_at)}: returned to the cardholder`,
      pence: Number(payment.dispute_amount_pence ?? 0),
    });
  }
  return back.sort((a, b) => a.at.getTime() - b.at.getTime());
}

export function renderReceipt(data: ReceiptData): Promise<Buffer> {
  const { payment, parties } = data;
  const pdf = new PdfWriter({
    title: `Rent receipt ${payment.id}`,
    subject: 'Receipt for a rent payment',
    createdAt: data.generatedAt,
  });
  pdf.heading('Rent receipt');
  pdf.paragraph(`Receipt number ${payment.id}`);
  pdf.paragraph(`Issued by ${parties.platform} through rentpay`);
  const references =
    payment.reference === parties.payment_reference
      ? [{ label: 'Payment reference', value: payment.reference }]
      : [
          { label: 'Payment reference', value: payment.reference },
          { label: 'Tenancy reference', value: parties.payment_reference },
        ];
  pdf.details([
    { label: 'Tenant', value: parties.tenant },
    { label: 'Property', value: parties.property },
    { label: 'Paid to (landlord)', value: parties.payee },
    ...references,
    { label: 'Date and time', value: ukMoment(payment.created_at) },
    { label: 'Paid with', value: paymentPaidWith(payment) },
    { label: 'Processor reference', value: payment.processor_payment_id ?? 'none' },
  ]);
  pdf.heading('Amounts', 2);
  pdf.details(
    [
      { label: 'Rent', value: money(Number(payment.pure_amount_pence)) },
      { label: 'Fee', value: money(Number(payment.fee_pence)) },
      { label: 'Total paid', value: money(Number(payment.amount_pence)), bold: true },
    ],
    { amounts: true },
  );
  pdf.heading('Rent it paid', 2);
  if (data.applied.length === 0) {
    pdf.paragraph('None: the rent of this payment was given back (see below).');
  } else {
    pdf.details(
      data.applied.map((part) => ({
        label: part.due_date ? rentOf(part.due_date) : 'Credit towards future rent',
        value: money(part.pence),
      })),
      { amounts: true },
    );
  }
  const back = givenBack(data);
  if (back.length > 0) {
    pdf.heading('Refunds and disputes', 2);
    pdf.details(
      [
        ...back.map((item) => ({ label: item.label, value: `−${money(item.pence)}` })),
        {
          label: 'Kept after these',
          value: money(Number(payment.amount_pence) - back.reduce((sum, item) => sum + item.pence, 0)),
          bold: true,
        },
      ],
      { amounts: true },
    );
  }
  pdf.paragraph(`Generated ${ukMoment(data.generatedAt)} from rentpay's records of this payment.`, {
    small: true,
  });
  return pdf.finish();
}
