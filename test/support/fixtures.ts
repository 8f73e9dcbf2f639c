/** Builders for valid request bodies; tests change one field at a time. */

export function tenancyBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    post_code: 'SW1A 1AA',
    address_1: '10 Downing Street',
    city: 'London',
    country: 'United Kingdom',
    is_primary: true,
    start_rent_date: '2026-01-01',
    end_rent_date: '2026-12-31',
    rent_due_day: 1,
    amount: '1200.00',
    frequency: 'every_1_month',
    is_active: true,
    payment_reference: 'REF-0001',
    recipient_bank_sort_code: '12-34-56',
    recipient_bank_account_number: '12345678',
    recipient_bank_account_name: 'Landlord Ltd',
    agreement: 'https://docs.example/agreement.pdf',
    ...overrides,
  };
}

export function userBody(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    user_id: 1,
    email: 'tenant@example.com',
    first_name: 'Ada',
    last_name: 'Lovelace',
    phone_number: '+447700900123',
    date_of_birth: '1990-12-10',
    tenant: [tenancyBody()],
    kyc: { pii_front: null, pii_back: null, photo: null, status: 'pending' },
    ...overrides,
  };
}

/** userBody(user) whose tenancies are tenancyBody(t) for each t of `tenancies`. */
export function userWithTenancies(
  user: Record<string, unknown>,
  ...tenancies: Record<string, unknown>[]
): Record<string, unknown> {
  return userBody({ ...user, tenant: tenancies.map((tenancy) => tenancyBody(tenancy)) });
}

export function installment(installment_number: number, due_date: string, amount: number) {
  return { installment_number, due_date, amount };
}

/** An installment_payment of two equal installments, due 2026-01-01 and 2026-07-01. */
export function twoInstallmentPlan(each = 1200) {
  return {
    total_amount: 2 * each,
    installments: [installment(1, '2026-01-01', each), installment(2, '2026-07-01', each)],
  };
}

/** The bank_account the session query shows for a tenancyBody() with the default recipient. */
export const DEFAULT_BANK_ACCOUNT = {
  sort_code: '12-34-56',
  account_number: '12345678',
  account_name: 'Landlord Ltd',
  payout_ready: true,
  payout_hold_reason: null,
};

/** n distinct valid users, numbered from `start`. */
export function manyUsers(n: number, start = 1, prefix = 'bulk'): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const id = start + i;
    return userWithTenancies(
      { user_id: id, email: `${prefix}-${id}@example.com` },
      { payment_reference: `${prefix.toUpperCase()}-${id}` },
    );
  });
}

/** The keys every API's Payment has, sorted; each surface adds its own (next_action, integrator_id, ...). */
export const CONTRACT_PAYMENT_KEYS = [
  'amount',
  'card',
  'created_at',
  'currency',
  'failure_code',
  'failure_message',
  'fee',
  'installment_number',
  'method',
  'payment_id',
  'processor',
  'processor_reference',
  'pure_amount',
  'reference',
  'schedule_id',
  'session_id',
  'status',
  'updated_at',
] as const;

export function paymentKeys(...extra: string[]): string[] {
  return [...CONTRACT_PAYMENT_KEYS, ...extra].sort();
}

/**
 * The environment of a production start that loads (Stripe live keys, its own database and public URL): tests take
 * one thing away or change one.
 */
export const PRODUCTION_ENV = {
  SERVICE_ENV: 'production',
  DATABASE_URL: 'postgres://rentpay@db.internal:5432/rentpay',
  PUBLIC_URL: 'https://pay.example.com',
  HOST: '0.0.0.0',
  OPERATOR_TOKEN: 'rpo_live_an_operator_token_of_40_chars',
  DOCUMENT_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  PAYMENT_PROCESSOR: 'stripe',
  STRIPE_SECRET_KEY: 'rk_live_51abc',
  STRIPE_PUBLISHABLE_KEY: 'pk_live_51abc',
  STRIPE_WEBHOOK_SECRET: 'whsec_abc',
};
