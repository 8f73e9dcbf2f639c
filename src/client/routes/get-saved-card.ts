import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { SavedCardView, savedCardView } from '../../cards/view.ts';
import { BadRequest, clientErrors, NotFound } from '../../sessions/client-schemas.ts';
import { CardParams, FeatureDisabled, savedCardsOnly } from '../saved-cards.ts';

export const getSavedCardRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cards = app.ctx.payments.cards;
  savedCardsOnly(app);

  app.get(
    '/cards/:card_id',
    {
      schema: {
        operationId: 'getSavedCard',
        summary: 'One saved card, e.g. to follow its 3DS check',
        description:
          'A card saved with `requires_action` becomes `active` or `failed` when its 3DS check ends.',
        tags: ['Saved cards'],
        params: CardParams,
        response: {
          200: SavedCardView,
          ...clientErrors({ 400: BadRequest, 404: NotFound, 409: FeatureDisabled }),
        },
      },
    },
    async (request) => savedCardView(await cards.get(request.client, request.params.card_id)),
  );
};
