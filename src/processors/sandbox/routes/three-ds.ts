import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ApiError } from '../../../platform/http/errors.ts';
import { ErrorResponse } from '../../../platform/http/schemas.ts';
import type { SandboxProcessor } from '../processor.ts';

/**
 * The sandbox 3DS server's Authorise and Fail buttons (the challenge page that shows them comes with the
 * hosted page). The answer only says the click was taken; the payment learns the outcome from a notification.
 */
export function sandboxThreeDsRoutes(processor: SandboxProcessor): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const decision of ['authorise', 'fail'] as const) {
      app.post(
        `/sandbox/3ds/:charge_id/${decision}`,
        {
          schema: {
            summary: `Sandbox: ${decision} a 3DS challenge`,
            tags: ['Sandbox'],
            params: Type.Object({ charge_id: Type.String({ maxLength: 64 }) }),
            response: { 202: Type.Object({ status: Type.String() }), 409: ErrorResponse },
          },
        },
        async (request, reply) => {
          const taken = await processor.authenticate(request.params.charge_id, decision === 'authorise');
          if (!taken) throw new ApiError('conflict', 'No 3DS challenge is waiting for this charge.');
          return reply.code(202).send({ status: decision === 'authorise' ? 'authenticated' : 'failed' });
        },
      );
    }
  };
}
