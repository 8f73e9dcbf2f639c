import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import { FieldValidationError } from '../../platform/errors.ts';
import { ErrorResponse, IdString } from '../../platform/http/schemas.ts';
import {
  assertRecurringEnabled,
  type CreateScheduleInput,
  type ScheduleAction,
} from '../../schedules/service.ts';
import { ScheduleView, scheduleView } from '../../schedules/view.ts';
import {
  AmountInput,
  amountPence,
  BadRequest,
  clientErrors,
  NotFound,
} from '../../sessions/client-schemas.ts';
import type { ClientContext } from '../../sessions/service.ts';
import { fixedAmountPence } from '../../sessions/service.ts';
import { formatPence } from '../../shared/money.ts';

const ACTIONS: readonly ScheduleAction[] = ['pause', 'resume', 'cancel'];

const PreviewBody = Type.Object({
  saved_card_id: Type.String({
    minLength: 1,
    maxLength: 64,
    description: 'An active saved card of this user.',
  }),
  pure_amount: Type.Optional(
    AmountInput(
      'Pounds before the fee, e.g. "1200.00". Default: the tenancy’s rent. On a session whose amount the platform ' +
        'fixed (that amount is for one payment) recurring rent charges the tenancy’s rent: any other amount is ' +
        'refused (400).',
      '1200.00',
    ),
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
    paid_through: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
      description:
        'The last due date already paid in full before the first charge (the tenant paid ahead, or has credit): ' +
        'the schedule starts after it and never charges a due date already paid. Null when the first charge is ' +
        'the first due date from today.',
    }),
    authorization: Type.Object({
      version: Type.String({ description: 'The version of the wording.' }),
      text: Type.String({
        description: 'The sentence the tenant agrees to; show it as it is, and send it back to set up.',
      }),
    }),
  },
  { title: 'SchedulePreview' },
);

const TAGS = ['Recurring rent'];

const SAMPLE_PREVIEW_WITH_AMOUNT = {
  saved_card_id: 'card_5Hq2nW8rT1yUe6Kd9Zp3Xa',
  pure_amount: '1200.00',
  use_installment_plan: false,
};

/** The 409s of a set-up (and so of its preview). */
const SetUpConflict = {
  ...ErrorResponse,
  description:
    'feature_disabled: recurring payments are off for this integration; conflict: the tenancy is not active, has ' +
    'a live schedule already, or has no rent due before it ends.',
};

const ACTION_DESCRIPTIONS: Record<ScheduleAction, string> = {
  pause:
    'An active schedule stops charging (a charge waiting to be retried is withdrawn) until resumed; due dates ' +
    'that pass while it is paused are not charged. No body.',
  resume:
    'A paused schedule charges again from its next due date after today (409 if the tenancy is not active or no ' +
    'due date is left). No body.',
  cancel: 'Ends an active or paused schedule for good: it never charges again. No body.',
};

const TermsChangedResponse = Type.Object(
  { ...ErrorResponse.properties, terms: SchedulePreviewView },
  { title: 'TermsChanged' },
);

/** The session user's recurring rent: list, set up (on the session's tenancy), pause, resume, cancel. */
export const clientScheduleRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { schedules } = app.ctx;
  // With recurring payments turned off for the integrator, no new schedule is set up; the ones set up before still
  // charge, so the tenant can still list, pause, resume and cancel them.

  app.get(
    '/schedules',
    {
      schema: {
        operationId: 'listSchedules',
        summary: 'The user’s schedules of every tenancy, newest first',
        description:
          'Every schedule of the session’s user with this platform, canceled ones included. Also while recurring ' +
          'payments are turned off for the integration: schedules set up before still charge, and can be paused, ' +
          'resumed and canceled.',
        tags: TAGS,
        response: {
          200: Type.Object({ schedules: Type.Array(ScheduleView) }),
          ...clientErrors(),
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

  /** The set-up's input from a preview's or a set-up's body: 400 on a refused amount. */
  function setUpInput(request: {
    body: Static<typeof PreviewBody>;
    client: ClientContext;
  }): CreateScheduleInput {
    const { pure_amount: pureAmount, saved_card_id: savedCardId, use_installment_plan } = request.body;
    // Its form is the schema's to check.
    let purePence = pureAmount === undefined ? undefined : amountPence(pureAmount);
    // A session's fixed amount is for one payment (a catch-up may be four months' rent): recurring rent charges the
    // tenancy's rent (or its plan), never that amount, and the tenant cannot choose another on such a session.
    const { session, tenancy } = request.client;
    const fixed = fixedAmountPence(session);
    const rentPence = Number(tenancy.amount_pence);
    if (fixed !== undefined && purePence !== undefined && purePence !== rentPence) {
      throw new FieldValidationError({
        pure_amount: [
          `Your platform fixed this session’s amount (${formatPence(fixed)}) for one payment; recurring rent ` +
            `charges the tenancy’s rent (${formatPence(rentPence)}). Leave pure_amount out.`,
        ],
      });
    }
    if (fixed !== undefined) purePence = undefined;
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
        operationId: 'previewSchedule',
        tags: TAGS,
        body: {
          ...PreviewBody,
          examples: [{ saved_card_id: 'card_5Hq2nW8rT1yUe6Kd9Zp3Xa' }, SAMPLE_PREVIEW_WITH_AMOUNT],
        },
        response: {
          200: SchedulePreviewView,
          ...clientErrors({ 400: BadRequest, 409: SetUpConflict }),
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
        operationId: 'createSchedule',
        tags: TAGS,
        body: Type.Object(
          {
            ...PreviewBody.properties,
            authorization_text: Type.String({
              minLength: 1,
              maxLength: 4000,
              description: 'The `authorization.text` of POST /schedules/preview, which the tenant agreed to.',
            }),
          },
          {
            examples: [
              {
                saved_card_id: 'card_5Hq2nW8rT1yUe6Kd9Zp3Xa',
                authorization_text:
                  'I authorise Demo platform to charge my Visa card ending 4242 £1,217.40 (£1,200.00 rent plus a ' +
                  '£17.40 card fee) every month on the 1st, from 1 April 2026 to 1 December 2026 (9 payments), for ' +
                  'the rent of 10 Downing Street paid to Landlord Ltd. I can pause or cancel these payments at any ' +
                  'time before a due date.',
              },
            ],
          },
        ),
        response: {
          201: ScheduleView,
          ...clientErrors({
            400: BadRequest,
            409: Type.Union([TermsChangedResponse, ErrorResponse], {
              description:
                'terms_changed (with the new `terms`): what it would charge changed since the preview, nothing was ' +
                'set up; or as the preview’s 409.',
            }),
          }),
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
          operationId: `${action}Schedule`,
          summary: `${action[0]!.toUpperCase()}${action.slice(1)} one of the user’s schedules`,
          description: ACTION_DESCRIPTIONS[action],
          tags: TAGS,
          params: Type.Object({
            schedule_id: IdString('sch', 'a schedule'),
          }),
          response: {
            200: ScheduleView,
            ...clientErrors({
              400: BadRequest,
              404: NotFound,
              409: { ...ErrorResponse, description: 'conflict: the schedule’s status does not allow it.' },
            }),
          },
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
