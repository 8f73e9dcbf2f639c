import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { FieldValidationError } from '../../platform/http/errors.ts';
import { ErrorResponse, FieldErrorsResponse } from '../../platform/http/schemas.ts';
import { parsePence } from '../../platform/money.ts';
import { ClientPayment, clientPayment } from './payment-schemas.ts';

const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

const CreatePaymentBody = Type.Object({
  pure_amount: Type.String({
    description: 'Rent in pounds before the fee, e.g. "1200.00".',
    examples: ['1200.00'],
  }),
  method: Type.Literal('card'),
  card_token: Type.String({
    minLength: 1,
    maxLength: 100,
    description: 'From the processor’s tokenisation.',
  }),
  reference: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
  idempotency_key: Type.Optional(
    Type.String({
      description: 'Or the Idempotency-Key header. A retry with the same key is the same payment.',
    }),
  ),
});

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
          409: ErrorResponse,
          422: ErrorResponse,
        },
      },
    },
    async (request, reply) => {
      const body = request.body;
      const header = request.headers['idempotency-key'];
      const idempotencyKey = body.idempotency_key ?? header;
      const errors: Record<string, string[]> = {};
      if (idempotencyKey === undefined) {
        errors.idempotency_key = ['This field (or the Idempotency-Key header) is required.'];
      } else if (!IDEMPOTENCY_KEY.test(idempotencyKey)) {
        errors.idempotency_key = ['Use 1 to 255 printable ASCII characters without spaces.'];
      } else if (
        header !== undefined &&
        body.idempotency_key !== undefined &&
        header !== body.idempotency_key
      ) {
        errors.idempotency_key = ['Differs from the Idempotency-Key header; send one key.'];
      }
      const purePence = parsePence(body.pure_amount);
      if (purePence === undefined) {
        errors.pure_amount = ['Enter an amount in pounds with at most two decimal places, e.g. "1200.00".'];
      }
      if (Object.keys(errors).length > 0 || purePence === undefined || idempotencyKey === undefined) {
        throw new FieldValidationError(errors);
      }
      const { payment, replayed } = await app.ctx.payments.create({
        client: request.client,
        purePence,
        method: body.method,
        cardToken: body.card_token,
        reference: body.reference,
        idempotencyKey,
      });
      request.log.info({ payment_id: payment.id, status: payment.status, replayed }, 'payment attempt');
      return reply.code(replayed ? 200 : 201).send(clientPayment(payment));
    },
  );
};
