import Fastify from 'fastify';
import { portOf, runChild } from './child.ts';

/** The yardstick: a bare Fastify hello-world, measured in the same run as the cases. */
runChild(async () => {
  const app = Fastify({ logger: false });
  app.get('/', async () => ({ hello: 'world' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  return { port: portOf(app.server), data: {}, close: () => app.close() };
});
