import { type Static, Type } from 'typebox';
import { Timestamp } from '../platform/http/schemas.ts';
import { formatBps, formatPence } from '../shared/money.ts';
import { FEATURES, PAYMENT_METHODS } from '../shared/vocabulary.ts';
import { type AuthenticatedIntegrator, type CreatedIntegrator, resolvedFeatures } from './service.ts';

export const MethodFeeInput = Type.Object(
  {
    percent: Type.String({
      pattern: '^\\d{1,3}(\\.\\d{1,2})?$',
      description: 'Percentage of pure_amount, up to two decimals, e.g. "1.40".',
    }),
    fixed: Type.String({
      pattern: '^\\d{1,6}(\\.\\d{1,2})?$',
      description: 'Fixed part in pounds, e.g. "0.20".',
    }),
  },
  { additionalProperties: false },
);

export const FeesInput = Type.Object(
  Object.fromEntries(PAYMENT_METHODS.map((m) => [m, Type.Optional(MethodFeeInput)])),
  {
    additionalProperties: false,
    description:
      'Surcharge per payment method: percent of pure_amount plus a fixed part. Methods not listed: no fee. In ' +
      'production, a fee other than 0 needs business_lets true.',
  },
);

export const FeaturesInput = Type.Object(
  Object.fromEntries(FEATURES.map((f) => [f, Type.Optional(Type.Boolean())])),
  {
    additionalProperties: false,
    description:
      'Features of the page and SDK: apms, wallets, recurring, savedCards; false turns one off. A feature not ' +
      'sent is left as it is (on create: enabled).',
  },
);

const BUSINESS_LETS_DESCRIPTION =
  'The integrator’s declaration, recorded by the operator, that its tenants are businesses, not consumers ' +
  '(business lets, e.g. companies renting commercial or staff housing). A production integrator may charge tenants ' +
  'a fee only with it: UK law bans surcharges on consumer card payments and, in England, most tenant fees. Without ' +
  'it, a non-zero fee in production is refused (400 on fees), and so is turning it off while a fee is non-zero ' +
  '(400 on business_lets). Sandbox integrators keep their fees without it, for testing.';

export const IntegratorSettingsFields = {
  webhook_url: Type.Optional(
    Type.Union([Type.String({ maxLength: 2048, format: 'uri' }), Type.Null()], {
      description: 'Where webhooks are delivered (http or https). null removes it.',
    }),
  ),
  allowed_origins: Type.Optional(
    Type.Array(Type.String({ maxLength: 255 }), {
      maxItems: 50,
      description:
        'Origins allowed to frame the payment page and host the SDK, e.g. "https://platform.example".',
    }),
  ),
  fees: Type.Optional(FeesInput),
  business_lets: Type.Optional(
    Type.Boolean({
      description: `${BUSINESS_LETS_DESCRIPTION} On create, false unless sent.`,
    }),
  ),
  features: Type.Optional(FeaturesInput),
  rate_limit_per_second: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
  rate_limit_burst: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000 })),
  reminder_days_before: Type.Optional(
    Type.Union([Type.Integer({ minimum: 1, maximum: 90 }), Type.Null()], {
      description:
        'Rent reminders: rent_due_soon this many days before a due date that is not yet paid, and rent_overdue 1 ' +
        'and 7 days after one still unpaid. null (the default) sends none.',
    }),
  ),
};

export const CreateIntegratorBody = Type.Object({
  name: Type.String({ minLength: 1, maxLength: 200 }),
  ...IntegratorSettingsFields,
});
export type CreateIntegratorBody = Static<typeof CreateIntegratorBody>;

export const UpdateIntegratorBody = Type.Object({
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  ...IntegratorSettingsFields,
});
export type UpdateIntegratorBody = Static<typeof UpdateIntegratorBody>;

const MethodFeeView = Type.Object({ percent: Type.String(), fixed: Type.String() });

export const IntegratorView = Type.Object(
  {
    integrator_id: Type.String(),
    name: Type.String(),
    environment: Type.Union([Type.Literal('sandbox'), Type.Literal('production')]),
    status: Type.Union([Type.Literal('active'), Type.Literal('suspended')], {
      description: 'suspended: its server and user session tokens are refused with 403 integrator_suspended.',
    }),
    webhook_url: Type.Union([Type.String(), Type.Null()]),
    allowed_origins: Type.Array(Type.String()),
    fees: Type.Record(Type.String(), MethodFeeView),
    business_lets: Type.Boolean({ description: BUSINESS_LETS_DESCRIPTION }),
    features: Type.Object(
      Object.fromEntries(FEATURES.map((f) => [f, Type.Boolean()])) as Record<
        (typeof FEATURES)[number],
        ReturnType<typeof Type.Boolean>
      >,
      { description: 'Every feature of the page and SDK, true where enabled.' },
    ),
    rate_limit_per_second: Type.Integer(),
    rate_limit_burst: Type.Integer(),
    reminder_days_before: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Days before a due date that rent_due_soon is sent; null: no rent reminders.',
    }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'Integrator' },
);
export type IntegratorView = Static<typeof IntegratorView>;

export function integratorView(integrator: AuthenticatedIntegrator): IntegratorView {
  return {
    integrator_id: integrator.id,
    name: integrator.name,
    environment: integrator.environment,
    status: integrator.status,
    webhook_url: integrator.webhook_url,
    allowed_origins: integrator.allowed_origins,
    fees: Object.fromEntries(
      Object.entries(integrator.fees).map(([method, fee]) => [
        method,
        { percent: formatBps(fee.percent_bps), fixed: formatPence(fee.fixed_pence) },
      ]),
    ),
    business_lets: integrator.business_lets,
    features: resolvedFeatures(integrator),
    rate_limit_per_second: integrator.rate_limit_per_second,
    rate_limit_burst: integrator.rate_limit_burst,
    reminder_days_before: integrator.reminder_days_before,
    created_at: new Date(integrator.created_at).toISOString(),
    updated_at: new Date(integrator.updated_at).toISOString(),
  };
}

/** A new integrator as its creator sees it, this once: with its first server token and its webhook secret. */
export const CreatedIntegratorView = Type.Object(
  {
    ...IntegratorView.properties,
    server_token: Type.String({ description: 'Shown once; only its hash is stored.' }),
    webhook_secret: Type.String({
      description:
        'The secret webhooks are signed with (whsec_…), shown once. Created without a webhook_url, it lasts ' +
        'until the integrator sets its first URL itself (PUT webhook-endpoint/), which makes and shows a new ' +
        'one; created with a URL, it signs until rotated.',
    }),
  },
  { title: 'CreatedIntegrator' },
);

export function createdIntegratorView(created: CreatedIntegrator): Static<typeof CreatedIntegratorView> {
  return {
    ...integratorView(created.integrator),
    server_token: created.serverToken,
    webhook_secret: created.integrator.webhook_secret,
  };
}

/** A server token rotation's answer: the new token, shown once. */
export const RotatedToken = Type.Object({
  token: Type.String({ description: 'The new server token. Store it now: it is not shown again.' }),
  previous_token_expires_at: Timestamp,
});
