import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse, optionalBody } from '../platform/http/schemas.ts';
import { ConsoleRun, consoleRun, RunParams } from './operator-payout-views.ts';
import { NotFound, OPERATOR_TAG, operatorConsoleErrors } from './operator-views.ts';
import { dashboardOperator } from './session-auth.ts';

const Conflict = { ...ErrorResponse, description: 'conflict: the run is not in a state that allows this.' };

/**
 * POST /operator/payout-runs/{id}/confirm/ or /cancel/: the payouts service moves the run (checking `payouts.manage`
 * and, to confirm in production, that the person did not make it) and audits the person; the answer is the run as
 * it is afterwards.
 */
export function consoleRunChangeRoute(
  app: Parameters<FastifyPluginAsyncTypebox>[0],
  action: 'confirm' | 'cancel',
  doc: { operationId: string; summary: string; description: string },
): void {
  app.post(
    `/operator/payout-runs/:payout_run_id/${action}/`,
    {
      preValidation: optionalBody,
      schema: {
        operationId: doc.operationId,
        summary: doc.summary,
        description: doc.description,
        tags: [OPERATOR_TAG],
        params: RunParams,
        body: Type.Object({}, { additionalProperties: false }),
        response: { 200: ConsoleRun, ...operatorConsoleErrors({ 404: NotFound, 409: Conflict }) },
      },
    },
    async (request) => {
      const actor = dashboardOperator(request);
      const id = request.params.payout_run_id;
      const { payouts } = app.ctx;
      const run = action === 'confirm' ? await payouts.confirm(id, actor) : await payouts.cancel(id, actor);
      return consoleRun(payouts, run, id, actor);
    },
  );
}
