import { type Static, Type } from 'typebox';
import { IntegratorSettingsFields, integratorView } from '../integrators/schemas.ts';
import type { AuthenticatedIntegrator } from '../integrators/service.ts';

/** The settings a platform's admin changes from the dashboard; the others are the operator's. */
export const PlatformSettingsBody = Type.Object(
  {
    fees: IntegratorSettingsFields.fees,
    reminder_days_before: IntegratorSettingsFields.reminder_days_before,
    allowed_origins: IntegratorSettingsFields.allowed_origins,
  },
  { additionalProperties: false },
);

export const PlatformSettingsView = Type.Object(
  {
    fees: Type.Record(Type.String(), Type.Object({ percent: Type.String(), fixed: Type.String() }), {
      description:
        'The fee each payment method adds to the rent (percent of it plus a fixed part); no entry: none.',
    }),
    reminder_days_before: Type.Union([Type.Integer(), Type.Null()], {
      description: 'Days before a due date that rent_due_soon is sent; null: no rent reminders.',
    }),
    allowed_origins: Type.Array(Type.String(), {
      description: 'Origins allowed to frame the payment page and host the SDK.',
    }),
    environment: Type.Enum(['sandbox', 'production']),
    business_lets: Type.Boolean({
      description:
        'Recorded by the operator: the platform’s tenants are businesses. In production, fees other than 0 need it.',
    }),
  },
  { title: 'PlatformSettings' },
);

export function platformSettingsView(
  integrator: AuthenticatedIntegrator,
): Static<typeof PlatformSettingsView> {
  const { fees, reminder_days_before, allowed_origins, environment, business_lets } =
    integratorView(integrator);
  return { fees, reminder_days_before, allowed_origins, environment, business_lets };
}
