import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { assertSavedCardsEnabled } from '../cards/service.ts';
import { ErrorResponse, IdString } from '../platform/http/schemas.ts';

/** A saved card in the path. */
export const CardParams = Type.Object({
  card_id: IdString('card', 'a saved card'),
});

/** Every saved-card route answers 409 feature_disabled while the integrator has saved cards off. */
export const FeatureDisabled = {
  ...ErrorResponse,
  description: 'feature_disabled: saved cards are not enabled for this integration.',
};

/** Every saved-card route is about saved cards: none answers while the integrator has them turned off. */
export function savedCardsOnly(app: Parameters<FastifyPluginAsyncTypebox>[0]): void {
  app.addHook('preHandler', async (request) => assertSavedCardsEnabled(request.client.integrator));
}
