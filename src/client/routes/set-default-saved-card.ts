import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SavedCardView, savedCardView } from '../../cards/view.ts';
import { ErrorResponse } from '../../platform/http/schemas.ts';
import { BadRequest, clientErrors, NotFound } from '../../sessions/client-schemas.ts';
import { CardParams, savedCardsOnly } from '../saved-cards.ts';

export const setDefaultSavedCardRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cards = app.ctx.payments.cards;
  savedCardsOnly(app);

  app.post(
    '/cards/:card_id/default',
    {
      schema: {
        operationId: 'setDefaultSavedCard',
        summary: 'Make an active saved card the default',
        description: 'The default card is listed first and preselected on the page. No body.',
        tags: ['Saved cards'],
        params: CardParams,
        response: {
          200: SavedCardView,
          ...clientErrors({
            400: BadRequest,
            404: NotFound,
            409: { ...ErrorResponse, description: 'conflict: the card is not active; or feature_disabled.' },
          }),
        },
      },
    },
    async (request) => savedCardView(await cards.setDefault(request.client, request.params.card_id)),
  );
};
