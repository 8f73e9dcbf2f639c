import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { assertRecurringEnabled } from '../../schedules/service.ts';
import { BadRequest, clientErrors } from '../../sessions/client-schemas.ts';
import { PreviewBody, SchedulePreviewView, SetUpConflict, setUpInput } from '../schedule-set-up.ts';

const SAMPLE_PREVIEW_WITH_AMOUNT = {
  saved_card_id: 'card_5Hq2nW8rT1yUe6Kd9Zp3Xa',
  pure_amount: '1200.00',
  use_installment_plan: false,
};

/** What setting up recurring rent on the session’s tenancy would charge; it sets nothing up. */
export const previewScheduleRoute: FastifyPluginAsyncTypebox = async (app) => {
  const { schedules } = app.ctx;

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
        tags: ['Recurring rent'],
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
};
