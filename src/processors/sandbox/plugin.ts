import type { FastifyPluginAsync } from 'fastify';
import type { SandboxProcessor } from './processor.ts';
import { sandboxThreeDsRoutes } from './routes/three-ds.ts';
import { sandboxTokensRoute } from './routes/tokens.ts';

/** The sandbox processor's own routes under /sandbox/; buildApp mounts them only when SERVICE_ENV=sandbox. */
export function sandboxProcessorRoutes(processor: SandboxProcessor): FastifyPluginAsync {
  return async (app) => {
    await app.register(sandboxTokensRoute(processor));
    await app.register(sandboxThreeDsRoutes(processor));
  };
}
