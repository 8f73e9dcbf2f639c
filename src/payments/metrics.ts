import { Counter, Histogram, type Registry } from 'prom-client';

/** The payment path's shared transactions, counted by the process that runs them, in one set per process. */
export const paymentBatchMetrics = {
  batchSize: new Histogram({
    name: 'rentpay_payment_batch_size',
    help:
      'Payments per shared transaction, by step: write (new payments: before Stripe is asked; the sandbox charges ' +
      'inside it) and outcome (the processor’s later answers). _count is the transactions, _sum the payments.',
    labelNames: ['step'],
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [],
  }),
  splits: new Counter({
    name: 'rentpay_payment_batch_splits_total',
    help: 'Shared payment transactions that failed as a whole and were run again payment by payment, by step.',
    labelNames: ['step'],
    registers: [],
  }),
};

export type PaymentBatchStep = 'write' | 'outcome';

/** StatementBatcher options that count a step's batches and splits. */
export function countedBatches(step: PaymentBatchStep) {
  return {
    observe: (size: number) => paymentBatchMetrics.batchSize.observe({ step }, size),
    onSplit: () => paymentBatchMetrics.splits.inc({ step }),
  };
}

export function installPaymentMetrics(registry: Registry): void {
  registry.registerMetric(paymentBatchMetrics.batchSize);
  registry.registerMetric(paymentBatchMetrics.splits);
}
