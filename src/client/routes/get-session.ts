import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { resolvedFeatures } from '../../integrators/service.ts';
import { PaymentView, paymentView } from '../../payments/view.ts';
import { Timestamp } from '../../platform/http/schemas.ts';
import { nextRentDue } from '../../schedules/view.ts';
import { clientErrors } from '../../sessions/client-schemas.ts';
import { SessionAmountView, sessionAmountView } from '../../sessions/schemas.ts';
import { utcDate } from '../../shared/dates.ts';
import { formatBps, formatPence, MAX_PURE_AMOUNT_PENCE, MIN_PURE_AMOUNT_PENCE } from '../../shared/money.ts';
import { PAYMENT_METHODS } from '../../shared/vocabulary.ts';
import { AppliedToView, appliedToView, TenancyLedgerView, tenancyLedgerView } from '../rent-view.ts';
import { secondsUntil } from '../session-expiry.ts';

const Fee = Type.Object({ percent: Type.String(), fixed: Type.String() });

export const getSessionRoute: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/session',
    {
      schema: {
        operationId: 'getSession',
        summary: 'What the payment page needs to render',
        description:
          'The session the token belongs to: the tenant and tenancy, the amount the platform set, fees, limits, the ' +
          'processor the page and SDK talk to, the enabled features, and the payment that completed it (if any). ' +
          'The page and the SDK (`init`) read it first.',
        tags: ['Session'],
        response: {
          200: Type.Object({
            session_id: Type.String(),
            environment: Type.String(),
            expires_at: Timestamp,
            token_expires_at: Timestamp,
            expires_in_seconds: Type.Integer({
              minimum: 0,
              description:
                'Seconds until this token or its session lapses, whichever comes first, by the server’s clock (the ' +
                'page warns a minute before).',
            }),
            paid: Type.Union([PaymentView, Type.Null()], {
              description:
                'The payment that completed this session (the page then shows its receipt); null while it is unpaid.',
            }),
            paid_applied_to: AppliedToView,
            action_required: Type.Array(
              Type.Object({
                payment: PaymentView,
                reason: Type.Literal('authentication_required'),
                confirm_by: Type.String({ format: 'date' }),
              }),
              {
                description:
                  'The tenant’s recurring charges their bank wants them to authenticate (Strong Customer ' +
                  'Authentication), oldest first: the page asks them to confirm each (POST ' +
                  '/payments/{payment_id}/confirm) by confirm_by, the day after which it fails. Empty when none waits.',
              },
            ),
            amount: {
              ...SessionAmountView,
              description:
                'The amount the platform set for this session. editable false: pay exactly pure_amount (any other is ' +
                'refused); true with pure_amount: a suggestion; pure_amount null: the tenant chooses.',
            },
            tenant: Type.Object({
              first_name: Type.String(),
              last_name: Type.String(),
              email: Type.String(),
            }),
            tenancy: Type.Object({
              payment_reference: Type.String(),
              address_1: Type.String(),
              city: Type.String(),
              post_code: Type.String(),
              country: Type.String(),
              rent_amount: Type.String(),
              frequency: Type.String(),
              rent_due_day: Type.Integer(),
              start_rent_date: Type.String(),
              end_rent_date: Type.String(),
              next_due_date: Type.Union([Type.String({ format: 'date' }), Type.Null()], {
                description:
                  'The rent’s due date from today on (the next installment’s, with a plan); null once none is left.',
              }),
              payee: Type.String({ description: 'Whom the rent is paid to: the recipient account’s name.' }),
              ledger: TenancyLedgerView,
              installments: Type.Array(
                Type.Object({
                  installment_number: Type.Integer(),
                  due_date: Type.String({ format: 'date' }),
                  amount: Type.String(),
                }),
                {
                  description:
                    'The tenancy’s installment plan, empty without one; a recurring schedule follows it by default.',
                },
              ),
            }),
            currency: Type.Literal('GBP'),
            limits: Type.Object({ min_amount: Type.String(), max_amount: Type.String() }),
            fees: Type.Record(Type.String(), Fee, {
              description: 'Surcharge per method; methods absent cost nothing.',
            }),
            processor: Type.Object(
              {
                name: Type.Union([Type.Literal('sandbox'), Type.Literal('stripe')]),
                tokenize_url: Type.Union([Type.String(), Type.Null()], {
                  description:
                    'sandbox: where the card form posts the card for a token; null with Stripe (its Payment Element tokenises).',
                }),
                wallet_url: Type.Union([Type.String(), Type.Null()], {
                  description:
                    'The sandbox wallet sheet: <wallet_url>/apple_pay or /google_pay; null without wallets and with Stripe (its Express Checkout Element shows them).',
                }),
                stripe: Type.Optional(
                  Type.Object(
                    {
                      publishable_key: Type.String(),
                      js_url: Type.String({ description: 'Where Stripe.js loads from.' }),
                    },
                    {
                      description:
                        'With Stripe: the page and SDK collect the method with the Payment Element and pay with a confirmation_token.',
                    },
                  ),
                ),
              },
              {
                description: 'The processor the page and SDK talk to directly (card data never reaches us).',
              },
            ),
            features: Type.Object(
              {
                apms: Type.Boolean(),
                wallets: Type.Boolean(),
                recurring: Type.Boolean(),
                savedCards: Type.Boolean(),
              },
              { description: 'What the integrator has enabled (operator setting); all true by default.' },
            ),
          }),
          ...clientErrors(),
        },
      },
    },
    async (request) => {
      const { session, integrator, user, tenancy } = request.client;
      const paid = await paidView(app.ctx.payments, session);
      const rent = await app.ctx.ledger.position(session.tenancy_id);
      const processor = app.ctx.processor.clientConfig();
      const fees: Record<string, { percent: string; fixed: string }> = {};
      for (const method of PAYMENT_METHODS) {
        const fee = integrator.fees[method];
        if (fee) fees[method] = { percent: formatBps(fee.percent_bps), fixed: formatPence(fee.fixed_pence) };
      }
      return {
        session_id: session.id,
        environment: integrator.environment,
        expires_at: new Date(session.expires_at).toISOString(),
        token_expires_at: new Date(session.token_expires_at).toISOString(),
        expires_in_seconds: secondsUntil(
          app.ctx.clock.now(),
          new Date(session.expires_at),
          new Date(session.token_expires_at),
        ),
        paid,
        paid_applied_to: appliedToView(rent?.position, paid?.payment_id),
        action_required: (await app.ctx.schedules.chargesWaitingForTenant(session)).map(
          ({ payment, confirmBy }) => ({
            payment: paymentView(payment),
            reason: 'authentication_required' as const,
            confirm_by: confirmBy,
          }),
        ),
        amount: sessionAmountView(session),
        tenant: { first_name: user.first_name, last_name: user.last_name, email: user.email },
        tenancy: {
          payment_reference: tenancy.payment_reference,
          address_1: tenancy.address_1,
          city: tenancy.city,
          post_code: tenancy.post_code,
          country: tenancy.country,
          rent_amount: formatPence(Number(tenancy.amount_pence)),
          frequency: tenancy.frequency,
          rent_due_day: tenancy.rent_due_day,
          start_rent_date: tenancy.start_rent_date,
          end_rent_date: tenancy.end_rent_date,
          next_due_date: nextRentDue(tenancy, utcDate(app.ctx.clock.now())),
          payee: tenancy.recipient_bank_account_name,
          ledger: tenancyLedgerView(rent?.ledger, rent?.position),
          installments: (tenancy.installment_plan?.installments ?? []).map((installment) => ({
            installment_number: installment.installment_number,
            due_date: installment.due_date,
            amount: formatPence(Number(installment.amount_pence)),
          })),
        },
        currency: 'GBP' as const,
        limits: {
          min_amount: formatPence(MIN_PURE_AMOUNT_PENCE),
          max_amount: formatPence(MAX_PURE_AMOUNT_PENCE),
        },
        fees,
        processor: {
          name: processor.name,
          tokenize_url: processor.tokenizeUrl,
          wallet_url: processor.walletUrl,
          ...(processor.stripe
            ? { stripe: { publishable_key: processor.stripe.publishableKey, js_url: processor.stripe.jsUrl } }
            : {}),
        },
        // Wallets need the processor's wallet sheet, or Stripe's Express Checkout Element.
        features: {
          ...resolvedFeatures(integrator),
          ...(processor.walletUrl || processor.stripe ? {} : { wallets: false }),
        },
      };
    },
  );
};

async function paidView(
  payments: { succeededInSession(sessionId: string): Promise<Parameters<typeof paymentView>[0] | undefined> },
  session: { id: string; completed_at: Date | null },
): Promise<PaymentView | null> {
  if (!session.completed_at) return null;
  const payment = await payments.succeededInSession(session.id);
  return payment ? paymentView(payment) : null;
}
