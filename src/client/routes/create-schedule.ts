import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../platform/http/schemas.ts';
import { assertRecurringEnabled } from '../../schedules/service.ts';
import { ScheduleView, scheduleView } from '../../schedules/view.ts';
import { BadRequest, clientErrors } from '../../sessions/client-schemas.ts';
import { PreviewBody, SchedulePreviewView, setUpInput } from '../schedule-set-up.ts';

const TermsChangedResponse = Type.Object(
  { ...ErrorResponse.properties, terms: SchedulePreviewView },
  { title: 'TermsChanged' },
);

/** Setting up recurring rent on the session’s tenancy. */
export const createScheduleRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { schedules } = app.ctx;

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
        tags: ['Recurring rent'],
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
};
