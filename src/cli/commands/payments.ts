import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { OperatorPaymentView } from '../../operator/payment-view.ts';
import { formatPence, parsePence } from '../../shared/money.ts';
import { PAYMENT_STATUSES } from '../../shared/vocabulary.ts';
import { CliError, operatorClient, withOperatorOptions } from '../operator-client.ts';
import { positiveInt } from '../option-parsers.ts';
import { jsonOutput, safe, table } from '../output.ts';

/** A payment as the Operator API answers it (its schema is the source). */
type PaymentOut = OperatorPaymentView;

interface RefundOut {
  refund_id: string;
  payment_id: string;
  amount: string;
  status: string;
  created_at: string;
  payment: Omit<PaymentOut, 'integrator_id' | 'refunded'>;
}

function paymentStatus(value: string): string {
  if (!(PAYMENT_STATUSES as readonly string[]).includes(value)) {
    throw new CliError(safe`--status "${value}": choose one of ${PAYMENT_STATUSES.join(', ')}`);
  }
  return value;
}

/** An amount the API answered (always "1217.40"), in pence. */
function pence(amount: string): number {
  return parsePence(amount) ?? 0;
}

function printPayment(payment: PaymentOut, json: boolean | undefined): void {
  if (json) {
    process.stdout.write(`${jsonOutput(payment)}\n`);
    return;
  }
  const card = payment.card
    ? safe` (${payment.card.brand} ending ${payment.card.last4}, expires ${String(payment.card.exp_month).padStart(2, '0')}/${payment.card.exp_year})`
    : '';
  const left = pence(payment.amount) - pence(payment.refunded);
  const lines = [
    safe`payment_id             ${payment.payment_id}`,
    safe`status                 ${payment.status}`,
    safe`amount                 ${payment.amount} ${payment.currency} (${payment.pure_amount} + fee ${payment.fee})`,
    safe`refunded               ${payment.refunded}${payment.status === 'succeeded' ? ` (${formatPence(left)} left to refund)` : ''}`,
    safe`method                 ${payment.method}${card}`,
    safe`reference              ${payment.reference}`,
    safe`integrator_id          ${payment.integrator_id}`,
    safe`session_id             ${payment.session_id}`,
  ];
  if (payment.schedule_id) {
    lines.push(
      safe`schedule               ${payment.schedule_id}, installment ${payment.installment_number ?? '-'}`,
    );
  }
  if (payment.failure_code) {
    lines.push(safe`failure                ${payment.failure_code}: ${payment.failure_message ?? ''}`);
  }
  lines.push(
    safe`created_at             ${payment.created_at}`,
    safe`updated_at             ${payment.updated_at}`,
  );
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** `rentpay payments ...`: list, show and refund. */
export function registerPaymentCommands(program: Command): void {
  const payments = program.command('payments').description('List, show and refund payments');

  withOperatorOptions(
    payments
      .command('list')
      .description('List payments, newest first')
      .option('--integrator <integrator_id>', 'only this integrator’s payments')
      .option(
        '--status <status>',
        `only payments in this status: ${PAYMENT_STATUSES.join(', ')}`,
        paymentStatus,
      )
      .option('--session <session_id>', 'only the payments of this session')
      .option('--limit <n>', 'at most this many, 1 to 100 (default 20)', positiveInt)
      .option('--starting-after <payment_id>', 'the page after this payment (for paging through older ones)'),
  ).action(async (options) => {
    const query = new URLSearchParams();
    if (options.integrator) query.set('integrator_id', options.integrator);
    if (options.status) query.set('status', options.status);
    if (options.session) query.set('session_id', options.session);
    if (options.limit) query.set('limit', String(options.limit));
    if (options.startingAfter) query.set('starting_after', options.startingAfter);
    const path = query.size > 0 ? `/payments?${query}` : '/payments';
    const page = await operatorClient(options).request<{ data: PaymentOut[]; has_more: boolean }>(
      'GET',
      path,
    );
    if (options.json) {
      process.stdout.write(`${jsonOutput(page)}\n`);
      return;
    }
    if (page.data.length === 0) {
      process.stdout.write('No payments.\n');
      return;
    }
    const rows = page.data.map((p) => [
      p.payment_id,
      p.status,
      p.amount,
      p.refunded,
      p.method,
      p.created_at,
      p.integrator_id,
    ]);
    const lines = [
      table(['PAYMENT_ID', 'STATUS', 'AMOUNT', 'REFUNDED', 'METHOD', 'CREATED_AT', 'INTEGRATOR'], rows),
    ];
    if (page.has_more) {
      lines.push('', safe`More: run again with --starting-after ${page.data.at(-1)!.payment_id}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  });

  withOperatorOptions(payments.command('show <payment_id>').description('Show one payment')).action(
    async (paymentId: string, options) => {
      printPayment(
        await operatorClient(options).request<PaymentOut>(
          'GET',
          `/payments/${encodeURIComponent(paymentId)}`,
        ),
        options.json,
      );
    },
  );

  withOperatorOptions(
    payments
      .command('refund <payment_id>')
      .description('Refund a succeeded payment: everything not refunded yet, or --amount of it')
      .option('--amount <decimal>', 'pounds to refund, e.g. 100.00 (default: all that is left)')
      .option(
        '--idempotency-key <key>',
        'the same key again is the same refund, never a second one (default: a new key, used for this command’s own retries)',
      ),
  ).action(async (paymentId: string, options) => {
    const api = operatorClient(options);
    const path = `/payments/${encodeURIComponent(paymentId)}`;
    const key: string = options.idempotencyKey ?? `cli_${randomUUID()}`;
    let refund: RefundOut;
    try {
      refund = await api.request<RefundOut>(
        'POST',
        `${path}/refunds`,
        options.amount === undefined ? {} : { amount: options.amount },
        { headers: { 'idempotency-key': key }, retries: 2 },
      );
    } catch (error) {
      // Whether the refund was made is unknown: the same key finds it instead of refunding twice.
      if (error instanceof CliError && error.message.startsWith('Cannot reach')) {
        throw new CliError(
          `${error.message}\n${safe`To retry safely, run again with --idempotency-key ${key}`}`,
        );
      }
      throw error;
    }
    if (options.json) {
      process.stdout.write(`${jsonOutput(refund)}\n`);
      return;
    }
    const lines = [
      safe`refund_id              ${refund.refund_id}`,
      safe`payment_id             ${refund.payment_id}`,
      safe`amount                 ${refund.amount} ${refund.payment.currency}`,
      safe`status                 ${refund.status}${refund.status === 'pending' ? ' (the processor has not answered yet; it is finished in the background: see payments show)' : ''}`,
      safe`created_at             ${refund.created_at}`,
      safe`idempotency_key        ${key}`,
    ];
    // The refund is made (or pending); the totals are a courtesy and their absence is not a failure.
    try {
      const payment = await api.request<PaymentOut>('GET', path);
      const left = pence(payment.amount) - pence(payment.refunded);
      lines.push(
        safe`payment                ${payment.amount} ${payment.currency}, refunded ${payment.refunded}, ${formatPence(left)} left`,
      );
    } catch {
      lines.push(safe`payment                ${refund.payment.amount} ${refund.payment.currency}`);
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  });
}
