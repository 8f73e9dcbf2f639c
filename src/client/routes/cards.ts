import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertSavedCardsEnabled } from '../../cards/service.ts';
import { SavedCardView, savedCardView } from '../../cards/view.ts';
import { ErrorResponse, FieldErrorsResponse } from '../../platform/http/schemas.ts';

const CardParams = Type.Object({ card_id: Type.String({ maxLength: 64 }) });

/** The session user's saved cards: list, one, add (maybe after 3DS), delete, make default. */
export const savedCardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const cards = app.ctx.payments.cards;
  // Every route here is about saved cards: none answers while the integrator has them turned off.
  app.addHook('preHandler', async (request) => assertSavedCardsEnabled(request.client.integrator));

  app.get(
    '/cards',
    {
      schema: {
        summary: 'The saved cards this user can pay with, the default first, then newest first',
        tags: ['Client'],
        response: { 200: Type.Object({ cards: Type.Array(SavedCardView) }), 401: ErrorResponse },
      },
    },
    async (request) => ({ cards: (await cards.list(request.client)).map(savedCardView) }),
  );

  app.get(
    '/cards/:card_id',
    {
      schema: {
        summary: 'One saved card, e.g. to follow its 3DS check',
        tags: ['Client'],
        params: CardParams,
        response: { 200: SavedCardView, 401: ErrorResponse, 404: ErrorResponse },
      },
    },
    async (request) => savedCardView(await cards.get(request.client, request.params.card_id)),
  );

  app.post(
    '/cards',
    {
      schema: {
        summary:
          'Save a tokenised card: 201 a new card (active, or requires_action with 3DS), 200 the same token again',
        tags: ['Client'],
        body: Type.Object({
          card_token: Type.String({
            minLength: 1,
            maxLength: 100,
            description:
              'sandbox: from the sandbox’s card tokenisation; Stripe: the ConfirmationToken (ctoken_...) Stripe.js ' +
              'created from the Payment Element.',
          }),
        }),
        response: {
          200: SavedCardView,
          201: SavedCardView,
          400: Type.Union([FieldErrorsResponse, ErrorResponse]),
          401: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const { card, created } = await cards.save(request.client, request.body.card_token);
      request.log.info({ card_id: card.id, status: card.status, created }, 'card saved');
      return reply.code(created ? 201 : 200).send(savedCardView(card));
    },
  );

  app.delete(
    '/cards/:card_id',
    {
      schema: {
        summary: 'Delete a saved card; the newest remaining card becomes the default if it was',
        tags: ['Client'],
        params: CardParams,
        response: {
          204: Type.Null(),
          401: ErrorResponse,
          404: ErrorResponse,
          409: { ...ErrorResponse, description: 'A recurring schedule charges this card: cancel it first.' },
        },
      },
    },
    async (request, reply) => {
      await cards.delete(request.client, request.params.card_id);
      return reply.code(204).send(null);
    },
  );

  app.post(
    '/cards/:card_id/default',
    {
      schema: {
        summary: 'Make an active saved card the default',
        tags: ['Client'],
        params: CardParams,
        response: { 200: SavedCardView, 401: ErrorResponse, 404: ErrorResponse, 409: ErrorResponse },
      },
    },
    async (request) => savedCardView(await cards.setDefault(request.client, request.params.card_id)),
  );
};
