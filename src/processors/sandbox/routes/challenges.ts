import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../../platform/errors.ts';
import { ErrorResponse } from '../../../platform/http/schemas.ts';
import type { ChallengeKind, SandboxProcessor } from '../processor.ts';

/** What each kind of sandbox page plays, under which path, and what its buttons answer. */
export const CHALLENGES: Record<
  ChallengeKind,
  { path: string; approved: string; waitingFor: string; summary: string }
> = {
  three_ds: {
    path: '3ds',
    approved: 'authenticated',
    waitingFor: 'No 3DS challenge is waiting for this charge.',
    summary: 'a 3DS challenge',
  },
  apm: {
    path: 'apm',
    approved: 'authorised',
    waitingFor: 'No payment is waiting for this charge.',
    summary: 'an APM payment (Alipay, WeChat Pay, UnionPay)',
  },
};

/**
 * The Authorise and Fail buttons of the sandbox 3DS server and APM providers. The answer only says the click
 * was taken; the payment (or the card being saved) learns the outcome from a notification.
 */
export function sandboxChallengeRoutes(processor: SandboxProcessor): FastifyPluginAsyncTypebox {
  return async (app) => {
    for (const [kind, challenge] of Object.entries(CHALLENGES) as [
      ChallengeKind,
      (typeof CHALLENGES)[ChallengeKind],
    ][]) {
      for (const decision of ['authorise', 'fail'] as const) {
        app.post(
          `/sandbox/${challenge.path}/:charge_id/${decision}`,
          {
            schema: {
              summary: `Sandbox: ${decision} ${challenge.summary}`,
              tags: ['Sandbox'],
              params: Type.Object({ charge_id: Type.String({ maxLength: 64 }) }),
              response: { 202: Type.Object({ status: Type.String() }), 409: ErrorResponse },
            },
          },
          async (request, reply) => {
            const approve = decision === 'authorise';
            const taken = await processor.answerChallenge(request.params.charge_id, kind, approve);
            if (!taken) throw new ServiceError('conflict', challenge.waitingFor);
            return reply.code(202).send({ status: approve ? challenge.approved : 'failed' });
          },
        );
      }
    }
  };
}
