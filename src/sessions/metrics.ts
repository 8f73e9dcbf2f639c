import { Counter, Histogram, type Registry } from 'prom-client';

/** user-login's shared statements, counted by the process that runs them, in one set per process. */
export const loginMetrics = {
  batchSize: new Histogram({
    name: 'rentpay_user_login_batch_size',
    help: 'Logins per user-login statement (logins that arrive together share one). _count is the statements run, _sum the logins.',
    buckets: [1, 2, 4, 8, 16, 32, 64],
    registers: [],
  }),
  splits: new Counter({
    name: 'rentpay_user_login_batch_splits_total',
    help: 'user-login statements of several logins that failed as a whole and were run again login by login.',
    registers: [],
  }),
};

export function installLoginMetrics(registry: Registry): void {
  registry.registerMetric(loginMetrics.batchSize);
  registry.registerMetric(loginMetrics.splits);
}
