import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SavedCardView, savedCardView } from '../../cards/view.ts';
import { clientErrors } from '../../sessions/client-schemas.ts';
import { FeatureDisabled, savedCardsOnly } from '../saved-cards.ts';

/** The session user's saved cards. */
export const listSavedCardsRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cards = app.ctx.payments.cards;
  savedCardsOnly(app);

  app.get(
    '/cards',
    {
      schema: {
        operationId: 'listSavedCards',
        summary: 'The saved cards this user can pay with, the default first, then newest first',
        description:
          'The active cards of the session’s user, from any of their sessions with this platform. Cards still ' +
          'waiting for their 3DS check, failed and deleted ones are not listed.',
        tags: ['Saved cards'],
        response: {
          200: Type.Object({ cards: Type.Array(SavedCardView) }),
          ...clientErrors({ 409: FeatureDisabled }),
        },
      },
    },
    async (request) => ({ cards: (await cards.list(request.client)).map(savedCardView) }),
  );
};
