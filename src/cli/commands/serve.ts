import type { Command } from 'commander';
import type { Config } from '../../platform/config/config.ts';
import type { Running } from '../../runtime.ts';

/** The configuration, after printing its warnings. The runtime (the whole service) is loaded only now. */
async function configured(): Promise<{ cfg: Config; runtime: typeof import('../../runtime.ts') }> {
  const { configWarnings, loadConfig } = await import('../../platform/config/config.ts');
  const cfg = loadConfig(process.env);
  for (const warning of configWarnings(cfg)) process.stderr.write(`rentpay: warning: ${warning}\n`);
  return { cfg, runtime: await import('../../runtime.ts') };
}

function holdUntilSignal(running: Running, timeoutMs: number): void {
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stderr.write(`rentpay: ${signal} received, finishing in-flight work...\n`);
    setTimeout(() => {
      process.stderr.write(`rentpay: still busy after SHUTDOWN_TIMEOUT_MS=${timeoutMs}; exiting anyway\n`);
      process.exit(1);
    }, timeoutMs).unref();
    running.stop().then(
      () => process.exit(0),
      (error) => {
        process.stderr.write(`rentpay: error while stopping: ${String(error)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

/** `rentpay serve` and `rentpay worker`: the long-running processes, each until a signal stops it. */
export function registerServeCommands(program: Command): void {
  program
    .command('serve')
    .description('Run the HTTP service (and the job worker, unless --no-worker) until stopped')
    .option('--no-worker', 'do not run background jobs in this process (run `rentpay worker` elsewhere)')
    .action(async (options: { worker: boolean }) => {
      const { cfg, runtime } = await configured();
      const running = await runtime.serve(cfg, options.worker);
      holdUntilSignal(running, cfg.shutdownTimeoutMs);
      const database = cfg.databaseUrl ? 'PostgreSQL (DATABASE_URL)' : `embedded PGlite in ${cfg.dataDir}`;
      const address = running.app?.server.address();
      const port = address && typeof address === 'object' ? address.port : cfg.port;
      // PORT=0 picks a free port: the configured public URL cannot know it.
      const baseUrl = cfg.port === 0 ? `http://${cfg.host}:${port}` : cfg.publicUrl;
      const lines = [
        '',
        `rentpay is listening on http://${cfg.host}:${port} (${cfg.serviceEnv}; database: ${database}; worker: ${options.worker ? 'in process' : 'off'})`,
        `  API reference: ${baseUrl}/docs`,
      ];
      if (cfg.serviceEnv === 'sandbox') {
        lines.push(
          `  Demo platform: ${baseUrl}/demo (the hosted page and the SDK side by side, and the webhooks it receives${cfg.allowPrivateWebhookHosts ? '' : '; on a local address those need ALLOW_PRIVATE_WEBHOOK_HOSTS=1'})`,
          `  Dashboard: ${baseUrl}/dashboard (the platform's people sign in; the first start prints an admin's set-up link)`,
          `  Your webhooks on this machine: npx rentpay listen --forward-to http://localhost:3000/webhooks --url ${baseUrl} --token <server token>`,
        );
      }
      if (running.secrets.operatorToken) {
        lines.push(
          '',
          'Operator token (shown once; store it, e.g. export RENTPAY_OPERATOR_TOKEN=...):',
          `  ${running.secrets.operatorToken}`,
        );
      }
      if (running.secrets.demo) {
        lines.push(
          '',
          `Demo integrator ${running.secrets.demo.integratorId}, server token (shown once):`,
          `  ${running.secrets.demo.serverToken}`,
          '',
          'Try it:',
          `  curl -H "Authorization: Token ${running.secrets.demo.serverToken}" ${baseUrl}/api/third-party/integrator/`,
          '',
          `The demo platform's dashboard admin (${running.secrets.demo.adminInvite.email}): set up a sign-in within 72 hours, once:`,
          `  ${running.secrets.demo.adminInvite.link}`,
        );
      }
      process.stdout.write(`${lines.join('\n')}\n\n`);
    });

  program
    .command('worker')
    .description(
      'Run background jobs only (webhooks, documents, schedules, token expiry) until stopped; /healthz, /readyz and /metrics on PORT',
    )
    .action(async () => {
      const { cfg, runtime } = await configured();
      const running = await runtime.runWorker(cfg);
      holdUntilSignal(running, cfg.shutdownTimeoutMs);
      const address = running.app?.server.address();
      const port = address && typeof address === 'object' ? address.port : cfg.port;
      process.stdout.write(
        `rentpay worker ${running.worker?.name} is running (${cfg.serviceEnv}); health and metrics on http://${cfg.host}:${port} (/healthz, /readyz, /metrics)\n`,
      );
    });
}
