import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertSavedCardsEnabled } from '../../cards/service.ts';
import { SavedCardView, savedCardView } from '../../cards/view.ts';
import { ErrorResponse, IdString } from '../../platform/http/schemas.ts';
import { BadRequest, clientErrors, NotFound, RETRY_AFTER } from '../../sessions/client-schemas.ts';

const CardParams = Type.Object({
  card_id: IdString('card', 'a saved card'),
});

/** Every saved-card route answers 409 feature_disabled while the integrator has saved cards off. */
const FeatureDisabled = {
  ...ErrorResponse,
  description: 'feature_disabled: saved cards are not enabled for this integration.',
};
const TAGS = ['Saved cards'];

/** The session user's saved cards: list, one, add (maybe after 3DS), delete, make default. */
export const savedCardRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const cards = app.ctx.payments.cards;
  // Every route here is about saved cards: none answers while the integrator has them turned off.
  app.addHook('preHandler', async (request) => assertSavedCardsEnabled(request.client.integrator));

  app.get(
    '/cards',
    {
      schema: {
        operationId: 'listSavedCards',
        summary: 'The saved cards this user can pay with, the default first, then newest first',
        description:
          'The active cards of the session’s user, from any of their sessions with this platform. Cards still ' +
          'waiting for their 3DS check, failed and deleted ones are not listed.',
        tags: TAGS,
        response: {
          200: Type.Object({ cards: Type.Array(SavedCardView) }),
          ...clientErrors({ 409: FeatureDisabled }),
        },
      },
    },
    async (request) => ({ cards: (await cards.list(request.client)).map(savedCardView) }),
  );

  app.get(
    '/cards/:card_id',
    {
      schema: {
        operationId: 'getSavedCard',
        summary: 'One saved card, e.g. to follow its 3DS check',
        description:
          'A card saved with `requires_action` becomes `active` or `failed` when its 3DS check ends.',
        tags: TAGS,
        params: CardParams,
        response: {
          200: SavedCardView,
          ...clientErrors({ 400: BadRequest, 404: NotFound, 409: FeatureDisabled }),
        },
      },
    },
    async (request) => savedCardView(await cards.get(request.client, request.params.card_id)),
  );

  app.post(
    '/cards',
    {
      schema: {
        operationId: 'saveCard',
        summary:
          'Save a tokenised card: 201 a new card (active, or requires_action with 3DS), 200 the same token again',
        description:
          'The processor checks the card (with 3DS when the issuer asks: follow the card’s `next_action`, then GET ' +
          'it). A refused card is a 400 field error on card_token and nothing is stored. Saves count against the ' +
          'same declined-card limits as payments (429 too_many_attempts).',
        tags: TAGS,
        body: Type.Object(
          {
            card_token: Type.String({
              minLength: 1,
              maxLength: 100,
              description:
                'sandbox: from the sandbox’s card tokenisation; Stripe: the ConfirmationToken (ctoken_...) Stripe.js ' +
                'created from the Payment Element.',
            }),
          },
          { examples: [{ card_token: 'tok_sandbox_3kTbGq9x2mRzVh7wYc4L' }] },
        ),
        response: {
          200: { ...SavedCardView, description: 'The card this token already saved.' },
          201: { ...SavedCardView, description: 'The new card.' },
          ...clientErrors({
            400: BadRequest,
            409: FeatureDisabled,
            429: {
              ...ErrorResponse,
              headers: RETRY_AFTER,
              description:
                'rate_limited (per session, with Retry-After), or too_many_attempts: too many declined cards.',
            },
          }),
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
        operationId: 'deleteSavedCard',
        summary: 'Delete a saved card; the newest remaining card becomes the default if it was',
        description:
          'A card a recurring schedule charges cannot be deleted (409): cancel the schedule first.',
        tags: TAGS,
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

  app.post(
    '/cards/:card_id/default',
    {
      schema: {
        operationId: 'setDefaultSavedCard',
        summary: 'Make an active saved card the default',
        description: 'The default card is listed first and preselected on the page. No body.',
        tags: TAGS,
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
