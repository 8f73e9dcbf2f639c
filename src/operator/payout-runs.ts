import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { PayoutRun } from '../payouts/service.ts';
import { PayoutRunView, payoutRunView } from '../payouts/view.ts';
import { ServiceError } from '../platform/errors.ts';
import { ErrorResponse, IdString } from '../platform/http/schemas.ts';
import { operatorTokenActor } from './actor.ts';
import { BadRequest, NotFound, operatorErrors } from './schemas.ts';

/** A payout run in the path. */
export const RunParams = Type.Object({
  payout_run_id: IdString('prun', 'a payout run'),
});
const Conflict = { ...ErrorResponse, description: 'conflict: the run is not in a state that allows this.' };

/** The run as the Operator API shows it, or 404 `not_found` when there is no such run. */
export function foundRun(run: PayoutRun | undefined, id: string) {
  if (!run) throw new ServiceError('not_found', `No payout run ${id}.`);
  return payoutRunView(run.run, run.items);
}

/** What a route that moves a payout run says of itself in the API document. */
interface PayoutRunChangeDoc {
  operationId: string;
  summary: string;
  description: string;
}

/**
 * POST /payouts/runs/{id}/confirm or /cancel: moves the run and answers it as it is afterwards (409 when its status
 * does not allow the move). Confirming and canceling differ only in the move and in what their document says.
 */
export function payoutRunChangeRoute(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  action: 'confirm' | 'cancel',
  doc: PayoutRunChangeDoc,
): void {
  const payouts = app.ctx.payouts;
  app.post(
    `/payouts/runs/:payout_run_id/${action}`,
    {
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: doc.description,
        tags: ['Payouts'],
        params: RunParams,
        response: {
          200: PayoutRunView,
          ...operatorErrors({ 400: BadRequest, 404: NotFound, 409: Conflict }),
        },
      },
    },
    async (request) => {
      const id = request.params.payout_run_id;
      const actor = operatorTokenActor(request);
      const run = action === 'confirm' ? await payouts.confirm(id, actor) : await payouts.cancel(id, actor);
      request.log.info({ payout_run_id: id, action }, 'payout run changed');
      return payoutRunView(run.run, run.items);
    },
  );
}
