import type { FastifyPluginAsync } from 'fastify';
import type { SandboxProcessor } from './processor.ts';
import { sandboxChallengeRoutes } from './routes/challenges.ts';
import { sandboxPageRoutes } from './routes/pages.ts';
import { sandboxRefundDisputeRoutes } from './routes/refunds-disputes.ts';
import { sandboxTokensRoute } from './routes/tokens.ts';
import { sandboxWalletRoute } from './routes/wallet.ts';

/** The sandbox processor's own routes under /sandbox/; buildApp mounts them only when SERVICE_ENV=sandbox. */
export function sandboxProcessorRoutes(processor: SandboxProcessor): FastifyPluginAsync {
  return async (app) => {
    await app.register(sandboxTokensRoute(processor));
    await app.register(sandboxWalletRoute(processor));
    await app.register(sandboxChallengeRoutes(processor));
    await app.register(sandboxPageRoutes(processor));
    await app.register(sandboxRefundDisputeRoutes(processor));
  };
}
