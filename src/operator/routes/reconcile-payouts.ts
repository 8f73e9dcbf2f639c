import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { utcDate } from '../../shared/dates.ts';
import { operatorErrors } from '../schemas.ts';

export const reconcilePayoutsRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/payouts/reconcile',
    {
      schema: {
        operationId: 'reconcilePayouts',
        summary: 'Check payouts against payments',
        description:
          'Every succeeded payment is in at most one live payout, with exactly its rent (else it is still payable, or ' +
          'waits for its funds or a dispute), and none was paid out before its funds were available; when a payment’s ' +
          'funds are available is known within 3 days; every refund or lost dispute deducted is its rent part; every ' +
          'payout adds up to its lines, and every run to its payouts; statuses agree. Each mismatch is one sentence ' +
          'naming what is wrong.',
        tags: ['Payouts'],
        response: {
          200: Type.Object({
            ok: Type.Boolean(),
            mismatches: Type.Array(Type.String()),
            checked: Type.Object({ payments: Type.Integer(), payouts: Type.Integer(), runs: Type.Integer() }),
          }),
          ...operatorErrors(),
        },
      },
    },
    async () => {
      const result = await app.ctx.payouts.reconcile(utcDate(app.ctx.clock.now()));
      return { ok: result.mismatches.length === 0, ...result };
    },
  );
};
