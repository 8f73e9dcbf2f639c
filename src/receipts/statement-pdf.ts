/** The statement on paper: the period, who and what, the opening and closing balance, every due date and entry. */
import { balance, longDate, money, rentOf, shortDate, ukMoment } from './format.ts';
import { PdfWriter } from './pdf.ts';
import type { Statement } from './statement.ts';

function describe(entry: Statement['entries'][number]): string {
  switch (entry.type) {
    case 'rent_due':
      return rentOf(entry.date);
    case 'payment':
      return `Payment ${entry.payment_id}`;
    case 'refund':
      return `Refund of ${entry.payment_id}`;
  }
}

export function renderStatement(statement: Statement): Promise<Buffer> {
  const { parties } = statement;
  const pdf = new PdfWriter({
    title: `Rent statement ${longDate(statement.from)} to ${longDate(statement.to)}`,
    subject: 'Rent statement of a tenancy',
    createdAt: statement.generated_at,
  });
  pdf.heading('Rent statement');
  pdf.paragraph(`${longDate(statement.from)} to ${longDate(statement.to)}`);
  pdf.details([
    { label: 'Tenant', value: parties.tenant },
    { label: 'Property', value: parties.property },
    { label: 'Paid to (landlord)', value: parties.payee },
    { label: 'Payment reference', value: parties.payment_reference },
    { label: 'Platform', value: parties.platform },
  ]);
  pdf.heading('Summary', 2);
  pdf.details(
    [
      {
        label: `Opening balance, ${shortDate(statement.from)}`,
        value: balance(statement.opening_balance_pence),
      },
      { label: 'Rent due in the period', value: money(statement.totals.rent_due_pence) },
      { label: 'Paid in the period', value: money(statement.totals.paid_pence) },
      { label: 'Refunded in the period', value: money(statement.totals.refunded_pence) },
      {
        label: `Closing balance, ${shortDate(statement.to)}`,
        value: balance(statement.closing_balance_pence),
        bold: true,
      },
      { label: 'Arrears at the end', value: money(statement.arrears_pence), bold: true },
      { label: 'Days overdue', value: String(statement.days_overdue) },
    ],
    { amounts: true },
  );
  pdf.heading('Due dates', 2);
  if (statement.due_dates.length === 0) pdf.paragraph('No rent fell due in this period.');
  else {
    pdf.table(
      [
        { title: 'Rent', width: 0.46 },
        { title: 'Due', width: 0.17, align: 'right' },
        { title: 'Paid', width: 0.17, align: 'right' },
        { title: 'Paid in full on', width: 0.2, align: 'right' },
      ],
      statement.due_dates.map((due) => [
        rentOf(due.date),
        money(due.rent_pence),
        money(due.paid_pence),
        due.settled_on ? shortDate(due.settled_on) : 'not yet',
      ]),
    );
  }
  pdf.heading('Entries', 2);
  if (statement.entries.length === 0) pdf.paragraph('Nothing fell due or was paid in this period.');
  else {
    pdf.table(
      [
        { title: 'Date', width: 0.16 },
        { title: 'What', width: 0.47 },
        { title: 'Amount', width: 0.17, align: 'right' },
        { title: 'Balance', width: 0.2, align: 'right' },
      ],
      statement.entries.map((entry) => [
        shortDate(entry.date),
        describe(entry),
        `${entry.type === 'payment' ? '−' : '+'}${money(entry.amount_pence)}`,
        balance(entry.balance_pence),
      ]),
    );
  }
  pdf.paragraph(
    `These figures come from rentpay's records of this tenancy (payment reference ${parties.payment_reference}), ` +
      `as of the end of ${longDate(statement.to)}. A payment counts on the day it was made and pays the oldest ` +
      `rent due first; the fee is not rent. Generated ${ukMoment(statement.generated_at)}.`,
    { small: true },
  );
  return pdf.finish();
}
