import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { FieldValidationError } from '../../platform/http/errors.ts';
import { ErrorResponse, FieldErrorsResponse } from '../../platform/http/schemas.ts';
import { AMOUNT_FORMAT_MESSAGE, parsePence } from '../../platform/money.ts';
import { checkSessionAmount, fixedAmountPence } from '../../sessions/service.ts';
import { assertRecurringEnabled, type ScheduleAction, ScheduleService } from '../service.ts';
import { ScheduleView, scheduleView } from '../view.ts';

const ACTIONS: readonly ScheduleAction[] = ['pause', 'resume', 'cancel'];

/** The session user's recurring rent: list, set up (on the session's tenancy), pause, resume, cancel. */
export const clientScheduleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const schedules = new ScheduleService(app.ctx.db, app.ctx.clock);
  // With recurring payments turned off for the integrator, no new schedule is set up; the ones set up before still
  // charge, so the tenant can still list, pause, resume and cancel them.

  app.get(
    '/schedules',
    {
      schema: {
        summary: 'The user’s schedules of every tenancy, newest first',
        tags: ['Client'],
        response: {
          200: Type.Object({ schedules: Type.Array(ScheduleView) }),
          401: ErrorResponse,
          409: ErrorResponse,
        },
      },
    },
    async (request) => {
      const { session } = request.client;
      return {
        schedules: (await schedules.listForUser(session.integrator_id, session.user_id)).map(scheduleView),
      };
    },
  );

  app.post(
    '/schedules',
    {
      schema: {
        summary: 'Set up recurring rent for the session’s tenancy with an active saved card',
        tags: ['Client'],
        body: Type.Object({
          saved_card_id: Type.String({
            minLength: 1,
            maxLength: 64,
            description: 'An active saved card of this user.',
          }),
          pure_amount: Type.Optional(
            Type.String({
              description:
                'Pounds before the fee, e.g. "1200.00". Default: the amount the platform fixed for this session, else ' +
                'the tenancy’s rent. On a session with a fixed amount any other amount is refused (400).',
            }),
          ),
          use_installment_plan: Type.Optional(
            Type.Boolean({
              description: 'Charge the tenancy’s installment plan. Default: true when the tenancy has one.',
            }),
          ),
        }),
        response: {
          201: ScheduleView,
          400: Type.Union([FieldErrorsResponse, ErrorResponse]),
          401: ErrorResponse,
          409: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      assertRecurringEnabled(request.client.integrator);
      const { pure_amount: pureAmount, saved_card_id: savedCardId, use_installment_plan } = request.body;
      let purePence = pureAmount === undefined ? undefined : parsePence(pureAmount);
      if (pureAmount !== undefined && purePence === undefined) {
        throw new FieldValidationError({
          pure_amount: [AMOUNT_FORMAT_MESSAGE],
        });
      }
      // A fixed session amount is what the schedule charges, unless it follows the tenancy's installment plan.
      const { session, tenancy } = request.client;
      if (!(use_installment_plan ?? tenancy.installment_plan !== null)) {
        if (purePence !== undefined) checkSessionAmount(session, purePence);
        purePence ??= fixedAmountPence(session);
      }
      const created = await schedules.create(request.client, {
        savedCardId,
        purePence,
        useInstallmentPlan: use_installment_plan,
      });
      request.log.info({ schedule_id: created.id }, 'schedule created');
      return reply.code(201).send(scheduleView(created));
    },
  );

  for (const action of ACTIONS) {
    app.post(
      `/schedules/:schedule_id/${action}`,
      {
        schema: {
          summary: `${action[0]!.toUpperCase()}${action.slice(1)} one of the user’s schedules`,
          tags: ['Client'],
          params: Type.Object({ schedule_id: Type.String({ maxLength: 64 }) }),
          response: { 200: ScheduleView, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse },
        },
      },
      async (request) => {
        const { session } = request.client;
        const changed = await schedules.change(
          { integratorId: session.integrator_id, userId: session.user_id },
          request.params.schedule_id,
          action,
        );
        request.log.info({ schedule_id: changed.id, status: changed.status }, `schedule ${action}`);
        return scheduleView(changed);
      },
    );
  }
};
