import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { ErrorResponse } from '../../platform/http/schemas.ts';
import { BadRequest, clientErrors, NotFound } from '../../sessions/client-schemas.ts';
import { CardParams, savedCardsOnly } from '../saved-cards.ts';

export const deleteSavedCardRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cards = app.ctx.payments.cards;
  savedCardsOnly(app);

  app.delete(
    '/cards/:card_id',
    {
      schema: {
        operationId: 'deleteSavedCard',
        summary: 'Delete a saved card; the newest remaining card becomes the default if it was',
        description:
          'A card a recurring schedule charges cannot be deleted (409): cancel the schedule first.',
        tags: ['Saved cards'],
        params: CardParams,
        response: {
          204: Type.Null({ description: 'Deleted.' }),
          ...clientErrors({
            400: BadRequest,
            404: NotFound,
            409: {
              ...ErrorResponse,
              description:
                'conflict: a recurring schedule charges this card (cancel it first); or feature_disabled.',
            },
          }),
        },
      },
    },
    async (request, reply) => {
      await cards.delete(request.client, request.params.card_id);
      return reply.code(204).send(null);
    },
  );
};
