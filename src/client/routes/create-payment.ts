import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { type Static, Type } from 'typebox';
import {
  APM_METHODS,
  PAYMENT_METHODS,
  type PaymentMethod,
  WALLET_METHODS,
} from '../../integrators/service.ts';
import type { PaymentSource } from '../../payments/service.ts';
import { type FieldErrors, FieldValidationError } from '../../platform/http/errors.ts';
import {
  ErrorResponse,
  FieldErrorsResponse,
  IDEMPOTENCY_KEY,
  IDEMPOTENCY_KEY_MESSAGE,
} from '../../platform/http/schemas.ts';
import { AMOUNT_FORMAT_MESSAGE, parsePence } from '../../platform/money.ts';
import { ClientPayment, clientPayment } from './payment-schemas.ts';

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
  { title: 'ConflictError' },
);

const Token = (description: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 100, description }));

const CreatePaymentBody = Type.Object({
  pure_amount: Type.String({
    description: 'Rent in pounds before the fee, e.g. "1200.00".',
    examples: ['1200.00'],
  }),
  method: Type.Enum(PAYMENT_METHODS),
  card_token: Token('method card, a new card: from the processor’s tokenisation.'),
  saved_card_id: Token('method card, a saved card of this user (instead of card_token).'),
  wallet_token: Token('apple_pay and google_pay: from the processor’s wallet sheet.'),
  confirmation_token: Token(
    'With Stripe, every method: the ConfirmationToken Stripe.js created from the Payment Element (ctoken_...).',
  ),
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  expected_amount: Type.Optional(
    Type.String({
      description:
        'The total shown to the customer (pure_amount plus the method’s fee), e.g. "1217.40". If the server’s total ' +
        'differs (the fee changed), the answer is 409 amount_changed with a fresh quote and nothing is charged.',
      examples: ['1217.40'],
    }),
  ),
  idempotency_key: Type.Optional(
    Type.String({
      description:
        'Or the Idempotency-Key header. A retry with the same key is the same payment. Keys starting with "sch_" are reserved.',
    }),
  ),
});
type CreatePaymentBody = Static<typeof CreatePaymentBody>;

/**
 * The scheduler's payments are stored in the schedule's session with keys `{schedule_id}:{due_date}:{attempt}`, and
 * schedule ids start with `sch_`: a client key there could take a scheduled charge's key (or answer its payment).
 */
export const SCHEDULER_KEY_PREFIX = 'sch_';
export const SCHEDULER_KEY_MESSAGE =
  'Keys starting with "sch_" are reserved for recurring payments; use another key.';

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
        summary: 'Pay: one payment attempt, idempotent by its key',
        tags: ['Client'],
        headers: Type.Object({ 'idempotency-key': Type.Optional(Type.String()) }),
        body: CreatePaymentBody,
        response: {
          200: ClientPayment,
          201: ClientPayment,
          400: Type.Union([FieldErrorsResponse, ErrorResponse]),
          401: ErrorResponse,
          403: ErrorResponse,
          409: AmountChangedResponse,
          422: ErrorResponse,
          429: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const header = request.headers['idempotency-key'];
      const idempotencyKey = body.idempotency_key ?? header;
      const errors: FieldErrors = {};
      if (idempotencyKey === undefined) {
        errors.idempotency_key = ['This field (or the Idempotency-Key header) is required.'];
      } else if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
        errors.idempotency_key = [IDEMPOTENCY_KEY_MESSAGE];
      } else if (idempotencyKey.startsWith(SCHEDULER_KEY_PREFIX)) {
        errors.idempotency_key = [SCHEDULER_KEY_MESSAGE];
      } else if (
        header !== undefined &&
        body.idempotency_key !== undefined &&
        header !== body.idempotency_key
      ) {
        errors.idempotency_key = ['Differs from the Idempotency-Key header; send one key.'];
      }
      const purePence = parsePence(body.pure_amount);
      if (purePence === undefined) {
        errors.pure_amount = [AMOUNT_FORMAT_MESSAGE];
      }
      const expectedPence = body.expected_amount === undefined ? undefined : parsePence(body.expected_amount);
      if (body.expected_amount !== undefined && expectedPence === undefined) {
        errors.expected_amount = [AMOUNT_FORMAT_MESSAGE];
      }
      const source = app.ctx.processor.previewConfirmationToken
        ? confirmationSource(body, errors)
        : paymentSource(body, errors);
      if (
        Object.keys(errors).length > 0 ||
        purePence === undefined ||
        idempotencyKey === undefined ||
        source === undefined
      ) {
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
