import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ServiceError } from '../../../platform/errors.ts';
import { ErrorResponse } from '../../../platform/http/schemas.ts';
import type { DisputeStatus } from '../../processor.ts';
import type { RefundSettlement, SandboxProcessor } from '../processor.ts';

/** One sandbox action after a payment: what its path names, what it answers, and what it does. */
interface Action {
  /** `/sandbox/<kind>/:<param>/<verb>`. */
  kind: 'refunds' | 'disputes';
  param: 'refund_id' | 'charge_id';
  verb: string;
  summary: string;
  /** The 202 answer's status. */
  status: string;
  /** The 409's detail, when nothing could move so. */
  conflict: string;
  run(id: string): Promise<boolean>;
}

/**
 * What the card network does after a payment, played by the sandbox: a refund ends (`POST
 * /sandbox/refunds/{refund_id}/succeed|fail`; one of the refund_pending card waits for it, and any refund may
 * still fail), and the cardholder disputes a charge and the dispute ends (`POST
 * /sandbox/disputes/{charge_id}/open|won|lost`). As with the 3DS and APM buttons, the answer only says the action
 * was taken; the payment learns of it from a notification.
 */
export function sandboxRefundDisputeRoutes(processor: SandboxProcessor): FastifyPluginAsyncTypebox {
  const refund = (verb: RefundSettlement): Action => ({
    kind: 'refunds',
    param: 'refund_id',
    verb,
    summary: `Sandbox: a refund ${verb === 'fail' ? 'fails' : 'succeeds'}`,
    status: verb === 'fail' ? 'failed' : 'succeeded',
    conflict: verb === 'fail' ? 'No refund with this id can fail now.' : 'No refund is pending with this id.',
    run: (id) => processor.settleRefund(id, verb),
  });
  const dispute = (verb: DisputeStatus): Action => ({
    kind: 'disputes',
    param: 'charge_id',
    verb,
    summary: verb === 'open' ? 'Sandbox: the cardholder disputes a charge' : `Sandbox: a dispute is ${verb}`,
    status: verb,
    conflict:
      verb === 'open'
        ? 'This charge cannot be disputed: it did not succeed, or is disputed already.'
        : 'No dispute is open on this charge.',
    run: (id) => processor.disputeCharge(id, verb),
  });
  const actions = [refund('succeed'), refund('fail'), dispute('open'), dispute('won'), dispute('lost')];
  return async (app) => {
    for (const action of actions) {
      app.post(
        `/sandbox/${action.kind}/:${action.param}/${action.verb}`,
        {
          schema: {
            summary: action.summary,
            tags: ['Sandbox'],
            params: Type.Object({ [action.param]: Type.String({ maxLength: 64 }) }),
            response: { 202: Type.Object({ status: Type.String() }), 409: ErrorResponse },
          },
        },
        async (request, reply) => {
          const id = (request.params as Record<string, string>)[action.param]!;
          if (!(await action.run(id))) throw new ServiceError('conflict', action.conflict);
          return reply.code(202).send({ status: action.status });
        },
      );
    }
  };
}
