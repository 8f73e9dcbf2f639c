#!/usr/bin/env node
/**
 * The demo platform as a server of its own:
 *
 *   RENTPAY_URL=http://127.0.0.1:8080 RENTPAY_SERVER_TOKEN=rp_sandbox_… RENTPAY_WEBHOOK_SECRET=whsec_… \
 *     PORT=3000 node examples/integrator/server.mjs
 *
 * See README.md beside it.
 */
import http from 'node:http';
import { createIntegratorHandler } from './handler.mjs';

function required(name) {
  const value = process.env[name]?.trim();
  if (!value) {
    process.stderr.write(`integrator: set ${name} (see examples/integrator/README.md)\n`);
    process.exit(2);
  }
  return value;
}

const serviceUrl = required('RENTPAY_URL').replace(/\/+$/, '');
const serverToken = required('RENTPAY_SERVER_TOKEN');
const webhookSecret = required('RENTPAY_WEBHOOK_SECRET');
const port = Number(process.env.PORT ?? 3000);
const host = process.env.HOST || '127.0.0.1';
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  process.stderr.write(
    `integrator: PORT must be a whole number from 0 to 65535 (got "${process.env.PORT}")\n`,
  );
  process.exit(2);
}

const server = http.createServer(createIntegratorHandler({ serviceUrl, serverToken, webhookSecret }));
server.listen(port, host, () => {
  const address = server.address();
  process.stdout.write(
    `Demo platform listening on http://${host}:${address.port}/ (rentpay: ${serviceUrl}; webhooks: http://${host}:${address.port}/webhooks)\n`,
  );
});

for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, () => {
    server.close(() => process.exit(0));
    server.closeAllConnections();
  });
}
