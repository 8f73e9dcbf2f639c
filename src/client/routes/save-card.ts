import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { SavedCardView, savedCardView } from '../../cards/view.ts';
import { ErrorResponse } from '../../platform/http/schemas.ts';
import { BadRequest, clientErrors, RETRY_AFTER } from '../../sessions/client-schemas.ts';
import { FeatureDisabled, savedCardsOnly } from '../saved-cards.ts';

/** Adding a saved card (maybe after 3DS). */
export const saveCardRoute: FastifyPluginAsyncTypebox = async (app) => {
  const cards = app.ctx.payments.cards;
  savedCardsOnly(app);

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
        tags: ['Saved cards'],
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
};
