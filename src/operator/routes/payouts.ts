import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { payoutCsv } from '../../payouts/bank-account.ts';
import type { PayoutRun } from '../../payouts/service.ts';
import { PayoutRunView, payoutRunView } from '../../payouts/view.ts';
import { ServiceError } from '../../platform/errors.ts';
import { ErrorResponse, IdString, optionalBody } from '../../platform/http/schemas.ts';
import { utcDate } from '../../shared/dates.ts';
import { formatPence } from '../../shared/money.ts';
import { BadRequest, NotFound, operatorErrors } from '../schemas.ts';

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1200.00'] });
const RunParams = Type.Object({
  payout_run_id: IdString('prun', 'a payout run'),
});
const Conflict = { ...ErrorResponse, description: 'conflict: the run is not in a state that allows this.' };
const { items: _items, ...summaryProperties } = PayoutRunView.properties;
const PayoutRunSummary = Type.Object(summaryProperties, { title: 'PayoutRunSummary' });

export const operatorPayoutRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const payouts = app.ctx.payouts;
  const found = (run: PayoutRun | undefined, id: string) => {
    if (!run) throw new ServiceError('not_found', `No payout run ${id}.`);
    return payoutRunView(run.run, run.items);
  };

  app.post(
    '/payouts/runs',
    {
      preValidation: optionalBody,
      schema: {
        operationId: 'createPayoutRun',
        summary: 'Make a payout run',
        description:
          'One payout per tenancy with rent to pay out as of `as_of` (default today): the rent of its succeeded ' +
          'payments made on or before that day whose funds the processor has made available by then (and by today) ' +
          'and that no open dispute holds, not yet paid out, less the rent part of refunds and lost disputes not yet ' +
          'deducted (one after a payout is deducted from the next). Tenancies whose landlord account is not a ' +
          'UK one, or (in production) not yet approved, are held out (GET /payouts/held). Runs never share a ' +
          'payment, even when made at once. Nothing to pay: a run with no items and total 0.00.',
        tags: ['Payouts'],
        body: Type.Object(
          {
            as_of: Type.Optional(
              Type.String({ format: 'date', description: 'YYYY-MM-DD; default today (UTC).' }),
            ),
          },
          { additionalProperties: false, examples: [{ as_of: '2026-03-31' }, {}] },
        ),
        response: { 201: PayoutRunView, ...operatorErrors({ 400: BadRequest }) },
      },
    },
    async (request, reply) => {
      const asOf = request.body.as_of;
      const run = await payouts.createRun(asOf);
      request.log.info({ payout_run_id: run.run.id, items: run.items.length }, 'payout run created');
      return reply.code(201).send(payoutRunView(run.run, run.items));
    },
  );

  app.get(
    '/payouts/runs',
    {
      schema: {
        operationId: 'listPayoutRuns',
        summary: 'List payout runs, newest first (100)',
        description:
          'Each run’s status, as_of and total, without its payouts (GET /payouts/runs/{id} has them).',
        tags: ['Payouts'],
        response: { 200: Type.Object({ data: Type.Array(PayoutRunSummary) }), ...operatorErrors() },
      },
    },
    async () => ({
      data: (await payouts.listRuns()).map((run) => {
        const { items: _none, ...summary } = payoutRunView(run, []);
        return summary;
      }),
    }),
  );

  app.get(
    '/payouts/runs/:payout_run_id',
    {
      schema: {
        operationId: 'getPayoutRun',
        summary: 'Show a payout run and its payouts',
        description:
          'The run with every payout in it: the tenancy, the landlord’s account, the amount and its payments.',
        tags: ['Payouts'],
        params: RunParams,
        response: { 200: PayoutRunView, ...operatorErrors({ 400: BadRequest, 404: NotFound }) },
      },
    },
    async (request) =>
      found(await payouts.getRun(request.params.payout_run_id), request.params.payout_run_id),
  );

  app.get(
    '/payouts/runs/:payout_run_id/file',
    {
      schema: {
        operationId: 'getPayoutRunFile',
        summary: 'The bank’s bulk-payment file of a run (CSV)',
        description:
          'A header row (sort_code, account_number, account_name, amount, reference), then one row per payout: sort ' +
          'code (6 digits), account number (8 digits), account name, amount (`1200.00`) and reference (at most 18 ' +
          'characters, from the payment_reference). Every cell is quoted; a cell starting with = + - @ is prefixed ' +
          'with an apostrophe so a spreadsheet shows it as text.',
        tags: ['Payouts'],
        params: RunParams,
        querystring: Type.Object({ format: Type.Optional(Type.Literal('csv')) }),
        response: {
          200: { description: 'The file.', content: { 'text/csv': { schema: { type: 'string' } } } },
          ...operatorErrors({ 400: BadRequest, 404: NotFound }),
        },
      },
    },
    async (request, reply) => {
      const run = await payouts.getRun(request.params.payout_run_id);
      const view = found(run, request.params.payout_run_id);
      const file = payoutCsv(
        run!.items.map((item) => ({
          sort_code: item.sort_code,
          account_number: item.account_number,
          account_name: item.account_name,
          amount: formatPence(Number(item.amount_pence)),
          reference: item.reference,
        })),
      );
      return reply
        .type('text/csv; charset=utf-8')
        .header('content-disposition', `attachment; filename="${view.payout_run_id}.csv"`)
        .send(file);
    },
  );

  for (const action of ['confirm', 'cancel'] as const) {
    app.post(
      `/payouts/runs/:payout_run_id/${action}`,
      {
        schema: {
          operationId: action === 'confirm' ? 'confirmPayoutRun' : 'cancelPayoutRun',
          summary: action === 'confirm' ? 'Mark a run paid' : 'Cancel a run not yet confirmed',
          description:
            action === 'confirm'
              ? 'After the bank file was sent: the run becomes confirmed, its payouts paid, and each sends payout_paid ' +
                'to its integrator. Confirming a confirmed run changes nothing; a canceled one answers 409.'
              : 'The run becomes canceled and its payments and refunds are payable again, in the next run. ' +
                'Canceling a canceled run changes nothing; a confirmed one answers 409.',
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
        const run = action === 'confirm' ? await payouts.confirm(id) : await payouts.cancel(id);
        request.log.info({ payout_run_id: id, action }, 'payout run changed');
        return payoutRunView(run.run, run.items);
      },
    );
  }

  app.get(
    '/payouts/held',
    {
      schema: {
        operationId: 'listHeldPayouts',
        summary: 'Tenancies with rent to pay out that runs hold back, and why',
        description:
          'Rent a run would pay but holds back: the landlord account is not a UK one (6-digit sort code, 6- to 8-digit ' +
          'account number, a name), or in production it has not been approved yet (POST /payouts/approvals).',
        tags: ['Payouts'],
        querystring: Type.Object({ as_of: Type.Optional(Type.String({ format: 'date' })) }),
        response: {
          200: Type.Object({
            data: Type.Array(
              Type.Object({
                integrator_id: Type.String(),
                payment_reference: Type.String(),
                amount: Money,
                reason: Type.String(),
              }),
            ),
          }),
          ...operatorErrors({ 400: BadRequest }),
        },
      },
    },
    async (request) => ({
      data: (await payouts.held(request.query.as_of)).map((held) => ({
        integrator_id: held.integrator_id,
        payment_reference: held.payment_reference,
        amount: formatPence(held.amount_pence),
        reason: held.reason,
      })),
    }),
  );

  app.post(
    '/payouts/approvals',
    {
      schema: {
        operationId: 'approvePayee',
        summary: 'Approve a landlord account for payouts (production)',
        description:
          'In production a landlord account is held out of runs until approved once; in the sandbox every UK account ' +
          'is paid without approval.',
        tags: ['Payouts'],
        body: Type.Object(
          { sort_code: Type.String({ maxLength: 50 }), account_number: Type.String({ maxLength: 50 }) },
          { additionalProperties: false, examples: [{ sort_code: '12-34-56', account_number: '12345678' }] },
        ),
        response: {
          201: Type.Object({ sort_code: Type.String(), account_number: Type.String() }),
          ...operatorErrors({ 400: BadRequest }),
        },
      },
    },
    async (request, reply) =>
      reply.code(201).send(await payouts.approve(request.body.sort_code, request.body.account_number)),
  );

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
