import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { FieldValidationError } from '../../platform/http/errors.ts';
import { ErrorResponse, FieldErrorsResponse } from '../../platform/http/schemas.ts';
import { AMOUNT_FORMAT_MESSAGE, parsePence } from '../../platform/money.ts';
import type { ClientContext } from '../../sessions/service.ts';
import { checkSessionAmount, fixedAmountPence } from '../../sessions/service.ts';
import {
  assertRecurringEnabled,
  type CreateScheduleInput,
  type ScheduleAction,
  ScheduleService,
} from '../service.ts';
import { ScheduleView, scheduleView } from '../view.ts';

const ACTIONS: readonly ScheduleAction[] = ['pause', 'resume', 'cancel'];

const PreviewBody = Type.Object({
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
});

const Money = Type.String({ pattern: '^\\d+\\.\\d{2}$', examples: ['1217.40'] });
const PricedCharge = Type.Object({
  due_date: Type.String({ format: 'date' }),
  pure_amount: Money,
  fee: Money,
  amount: Money,
});

const SchedulePreviewView = Type.Object(
  {
    pure_amount: { ...Money, description: 'The first charge before the fee.' },
    fee: { ...Money, description: 'The card fee of the first charge, at today’s rate.' },
    amount: { ...Money, description: 'What the first charge takes from the card: pure_amount plus fee.' },
    installment_plan: Type.Boolean(),
    payments: Type.Integer({
      description: 'How many charges it makes until the tenancy (or the plan) ends.',
    }),
    upcoming: Type.Array(PricedCharge, { description: 'The first charges (up to three), with their dates.' }),
    last_due_date: Type.String({ format: 'date', description: 'The date of the last charge.' }),
    authorization: Type.Object({
      version: Type.String({ description: 'The version of the wording.' }),
      text: Type.String({
        description: 'The sentence the tenant agrees to; show it as it is, and send it back to set up.',
      }),
    }),
  },
  { title: 'SchedulePreview' },
);

const TermsChangedResponse = Type.Object(
  { ...ErrorResponse.properties, terms: SchedulePreviewView },
  { title: 'TermsChanged' },
);

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

  /** The set-up's input from a preview's or a set-up's body: 400 on a malformed or refused amount. */
  function setUpInput(request: {
    body: Static<typeof PreviewBody>;
    client: ClientContext;
  }): CreateScheduleInput {
    const { pure_amount: pureAmount, saved_card_id: savedCardId, use_installment_plan } = request.body;
    let purePence = pureAmount === undefined ? undefined : parsePence(pureAmount);
    if (pureAmount !== undefined && purePence === undefined) {
      throw new FieldValidationError({ pure_amount: [AMOUNT_FORMAT_MESSAGE] });
    }
    // A fixed session amount is what the schedule charges, unless it follows the tenancy's installment plan.
    const { session, tenancy } = request.client;
    if (!(use_installment_plan ?? tenancy.installment_plan !== null)) {
      if (purePence !== undefined) checkSessionAmount(session, purePence);
      purePence ??= fixedAmountPence(session);
    }
    return { savedCardId, purePence, useInstallmentPlan: use_installment_plan };
  }

  app.post(
    '/schedules/preview',
    {
      schema: {
        summary: 'What setting up recurring rent would charge, and the sentence the tenant agrees to',
        description:
          'Checks the set-up as POST /schedules does (same 400 and 409 answers) and sets nothing up. Show the tenant ' +
          '`authorization.text` with the amounts and dates; once they agree, send the text back as ' +
          '`authorization_text` to POST /schedules.',
        tags: ['Client'],
        body: PreviewBody,
        response: {
          200: SchedulePreviewView,
          400: Type.Union([FieldErrorsResponse, ErrorResponse]),
          401: ErrorResponse,
          409: ErrorResponse,
        },
      },
    },
    async (request) => {
      assertRecurringEnabled(request.client.integrator);
      return schedules.preview(request.client, setUpInput(request));
    },
  );

  app.post(
    '/schedules',
    {
      schema: {
        summary: 'Set up recurring rent for the session’s tenancy with an active saved card',
        description:
          'The tenant must have agreed to the sentence POST /schedules/preview gives: send it as `authorization_text`. ' +
          'It is stored with the schedule, with its version and the time, and shown in the schedule’s `authorization`. ' +
          'If the terms changed since the preview (the rent, the fee, the dates), the answer is 409 terms_changed with ' +
          'the new `terms`, and nothing is set up.',
        tags: ['Client'],
        body: Type.Object({
          ...PreviewBody.properties,
          authorization_text: Type.String({
            minLength: 1,
            maxLength: 4000,
            description: 'The `authorization.text` of POST /schedules/preview, which the tenant agreed to.',
          }),
        }),
        response: {
          201: ScheduleView,
          400: Type.Union([FieldErrorsResponse, ErrorResponse]),
          401: ErrorResponse,
          409: Type.Union([TermsChangedResponse, ErrorResponse]),
        },
      },
    },
    async (request, reply) => {
      assertRecurringEnabled(request.client.integrator);
      const created = await schedules.create(request.client, {
        ...setUpInput(request),
        authorizationText: request.body.authorization_text,
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
