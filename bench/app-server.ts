import { buildApp } from '../src/app.ts';
import { loadConfig } from '../src/platform/config/config.ts';
import { CASES } from './cases.ts';
import { portOf, runChild } from './child.ts';

/** The real app for one case; bench/run.ts sets BENCH_CASE and the database environment. */
runChild(async () => {
  const name = process.env.BENCH_CASE;
  const benchCase = CASES.find((c) => c.name === name);
  if (!benchCase) throw new Error(`unknown benchmark case "${name ?? ''}"`);
  const app = await buildApp(loadConfig(process.env));
  try {
    // A further server process of the same case (--serve-processes): the first one's setup made the data.
    const data = process.env.BENCH_SERVE_ONLY ? {} : await benchCase.setup(app);
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { port: portOf(app.server), data, close: () => app.close() };
  } catch (error) {
    await app.close();
    throw error;
  }
});
