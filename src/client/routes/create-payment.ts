import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import type { PaymentSource } from '../../payments/service.ts';
import { type FieldErrors, FieldValidationError } from '../../platform/errors.ts';
import { ErrorResponse, IDEMPOTENCY_KEY, IDEMPOTENCY_KEY_MESSAGE } from '../../platform/http/schemas.ts';
import {
  AmountInput,
  amountPence,
  BadRequest,
  clientErrors,
  RETRY_AFTER,
} from '../../sessions/client-schemas.ts';
import { APM_METHODS, PAYMENT_METHODS, type PaymentMethod, WALLET_METHODS } from '../../shared/vocabulary.ts';
import { ClientPayment, clientPayment } from '../payment-schemas.ts';
import { IdempotencyKeyInput, SCHEDULER_KEY_MESSAGE, SCHEDULER_KEY_PREFIX } from '../schemas.ts';

const Money = Type.String({ examples: ['1217.40'] });

const AmountChangedResponse = Type.Object(
  {
    ...ErrorResponse.properties,
    quote: Type.Optional(
      Type.Object(
        { pure_amount: Money, fee: Money, amount: Money },
        { description: 'With amount_changed: what the payment would cost now.' },
      ),
    ),
  },
  {
    title: 'ConflictError',
    description:
      'amount_changed (with `quote`): the total is not expected_amount, nothing was charged; conflict: the session ' +
      'is paid, or another payment of it is waiting or being processed; feature_disabled: saved cards are off.',
  },
);

const Token = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 100, description }));

const CreatePaymentBody = Type.Object(
  {
    pure_amount: AmountInput('Rent in pounds before the fee, e.g. "1200.00".', '1200.00'),
    method: Type.Enum(PAYMENT_METHODS, {
      description:
        'card (card_token or saved_card_id), apple_pay and google_pay (wallet_token), or an APM (alipay, ' +
        'wechat_pay, unionpay: no token; the answer’s next_action sends the tenant to the provider). With Stripe ' +
        'every method pays with confirmation_token instead.',
    }),
    card_token: Token('method card, a new card: from the processor’s tokenisation.'),
    saved_card_id: Token('method card, a saved card of this user (instead of card_token).'),
    wallet_token: Token('apple_pay and google_pay: from the processor’s wallet sheet.'),
    confirmation_token: Token(
      'With Stripe, every method: the ConfirmationToken Stripe.js created from the Payment Element (ctoken_...).',
    ),
    reference: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 100,
        description: 'The payment’s reference; default: the tenancy’s payment_reference.',
      }),
    ),
    expected_amount: Type.Optional(
      AmountInput(
        'The total shown to the customer (pure_amount plus the method’s fee), e.g. "1217.40". If the server’s total ' +
          'differs (the fee changed), the answer is 409 amount_changed with a fresh quote and nothing is charged.',
        '1217.40',
      ),
    ),
    idempotency_key: Type.Optional(IdempotencyKeyInput),
  },
  {
    // Named request examples for the API document (OpenAPI media-type examples).
    'x-examples': {
      card: {
        summary: 'A new card, tokenised by the processor',
        value: {
          pure_amount: '1200.00',
          method: 'card',
          card_token: 'tok_sandbox_3kTbGq9x2mRzVh7wYc4L',
          expected_amount: '1217.40',
          idempotency_key: 'rent-2026-03-7f3a',
        },
      },
      saved_card: {
        summary: 'A saved card of the tenant',
        value: {
          pure_amount: '1200.00',
          method: 'card',
          saved_card_id: 'card_5Hq2nW8rT1yUe6Kd9Zp3Xa',
          idempotency_key: 'rent-2026-04-91c2',
        },
      },
      alipay: {
        summary: 'An APM: no token; next_action sends the tenant to the provider',
        value: { pure_amount: '1200.00', method: 'alipay', idempotency_key: 'rent-2026-03-alipay-1' },
      },
      stripe: {
        summary: 'With Stripe, any method: the confirmation token from the Payment Element',
        value: {
          pure_amount: '1200.00',
          method: 'card',
          confirmation_token: 'ctoken_1QxYz2AbCdEfGhIjKlMnOpQr',
          idempotency_key: 'rent-2026-03-7f3b',
        },
      },
    },
  },
);
type CreatePaymentBody = Static<typeof CreatePaymentBody>;

const TOKEN_FIELDS = ['card_token', 'saved_card_id', 'wallet_token', 'confirmation_token'] as const;

/**
 * With Stripe every method pays with a confirmation_token (card: or saved_card_id). Adds field errors to
 * `errors` for anything else.
 */
function confirmationSource(body: CreatePaymentBody, errors: FieldErrors): PaymentSource | undefined {
  const allowed = body.method === 'card' ? ['confirmation_token', 'saved_card_id'] : ['confirmation_token'];
  for (const field of TOKEN_FIELDS) {
    if (body[field] !== undefined && !allowed.includes(field)) {
      errors[field] = [
        field === 'card_token' || field === 'wallet_token'
          ? 'Not used with Stripe: send the confirmation_token from the Payment Element.'
          : `Not allowed with method "${body.method}".`,
      ];
    }
  }
  if (body.confirmation_token !== undefined && body.saved_card_id !== undefined) {
    errors.saved_card_id = ['Send confirmation_token or saved_card_id, not both.'];
    return undefined;
  }
  if (body.saved_card_id !== undefined && body.method === 'card') {
    return { type: 'saved_card', cardId: body.saved_card_id };
  }
  if (body.confirmation_token !== undefined)
    return { type: 'confirmation_token', token: body.confirmation_token };
  errors.confirmation_token = [
    body.method === 'card' ? 'This field (or saved_card_id) is required.' : 'This field is required.',
  ];
  return undefined;
}

/**
 * Which token fields each method takes with the sandbox processor: card exactly one of card_token and
 * saved_card_id, a wallet its wallet_token, an APM none. Adds field errors to `errors` for the rest.
 */
function paymentSource(body: CreatePaymentBody, errors: FieldErrors): PaymentSource | undefined {
  const method: PaymentMethod = body.method;
  const allowed: readonly string[] =
    method === 'card'
      ? ['card_token', 'saved_card_id']
      : (WALLET_METHODS as readonly string[]).includes(method)
        ? ['wallet_token']
        : [];
  if (body.confirmation_token !== undefined) {
    errors.confirmation_token = [
      'Only with Stripe; this service’s sandbox processor takes card and wallet tokens.',
    ];
  }
  for (const field of TOKEN_FIELDS) {
    if (body[field] !== undefined && !allowed.includes(field) && field !== 'confirmation_token') {
      errors[field] = [`Not allowed with method "${method}".`];
    }
  }
  if (method === 'card') {
    if (body.card_token !== undefined && body.saved_card_id !== undefined) {
      errors.saved_card_id = ['Send card_token or saved_card_id, not both.'];
    } else if (body.card_token !== undefined) {
      return { type: 'card_token', token: body.card_token };
    } else if (body.saved_card_id !== undefined) {
      return { type: 'saved_card', cardId: body.saved_card_id };
    } else {
      errors.card_token = ['This field (or saved_card_id) is required.'];
    }
    return undefined;
  }
  if ((APM_METHODS as readonly string[]).includes(method)) return { type: 'none' };
  if (body.wallet_token === undefined) {
    errors.wallet_token = ['This field is required.'];
    return undefined;
  }
  return { type: 'wallet_token', token: body.wallet_token };
}

export const createPaymentRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.post(
    '/payments',
    {
      schema: {
        operationId: 'createPayment',
        summary: 'Pay: one payment attempt, idempotent by its key',
        description:
          'Charges the session’s tenant pure_amount plus the method’s fee. 201: a new payment, `succeeded`, ' +
          '`failed` (a decline, with failure_code and failure_message), or `requires_action` (3DS, a wallet or an ' +
          'APM: follow `next_action`, then GET the payment). 200: the payment this idempotency key already made ' +
          '(same amount and method; otherwise 422). Which token fields a method takes is checked after the schema: ' +
          'a missing or extra one is a 400 field error.',
        tags: ['Payments'],
        headers: Type.Object({
          'idempotency-key': Type.Optional(
            Type.String({
              description:
                'The idempotency key, instead of idempotency_key in the body (the same rules; if both, the same value).',
            }),
          ),
        }),
        body: CreatePaymentBody,
        response: {
          200: { ...ClientPayment, description: 'A retry: the payment this idempotency key made.' },
          201: { ...ClientPayment, description: 'The new payment.' },
          ...clientErrors({
            400: BadRequest,
            409: AmountChangedResponse,
            422: {
              ...ErrorResponse,
              description: 'idempotency_mismatch: the key was used for another amount or method.',
            },
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
      const body = request.body;
      const header = request.headers['idempotency-key'];
      const idempotencyKey = body.idempotency_key ?? header;
      const errors: FieldErrors = {};
      // The body's key, and both amounts, are checked by the schema; the header's key the same way here.
      if (idempotencyKey === undefined) {
        errors.idempotency_key = ['This field (or the Idempotency-Key header) is required.'];
      } else if (body.idempotency_key === undefined && !IDEMPOTENCY_KEY.test(idempotencyKey)) {
        errors.idempotency_key = [IDEMPOTENCY_KEY_MESSAGE];
      } else if (body.idempotency_key === undefined && idempotencyKey.startsWith(SCHEDULER_KEY_PREFIX)) {
        errors.idempotency_key = [SCHEDULER_KEY_MESSAGE];
      } else if (
        header !== undefined &&
        body.idempotency_key !== undefined &&
        header !== body.idempotency_key
      ) {
        errors.idempotency_key = ['Differs from the Idempotency-Key header; send one key.'];
      }
      const purePence = amountPence(body.pure_amount);
      const expectedPence =
        body.expected_amount === undefined ? undefined : amountPence(body.expected_amount);
      // Which token fields each method takes depends on the processor, and is checked here.
      const source = app.ctx.processor.previewConfirmationToken
        ? confirmationSource(body, errors)
        : paymentSource(body, errors);
      if (Object.keys(errors).length > 0 || idempotencyKey === undefined || source === undefined) {
        throw new FieldValidationError(errors);
      }
      const { payment, replayed } = await app.ctx.payments.create({
        client: request.client,
        purePence,
        method: body.method,
        source,
        reference: body.reference,
        idempotencyKey,
        expectedAmountPence: expectedPence,
      });
      request.log.info({ payment_id: payment.id, status: payment.status, replayed }, 'payment attempt');
      return reply.code(replayed ? 200 : 201).send(clientPayment(payment));
    },
  );
};
