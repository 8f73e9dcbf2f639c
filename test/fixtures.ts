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

/** n distinct valid users, numbered from `start`. */
export function manyUsers(n: number, start = 1, prefix = 'bulk'): Record<string, unknown>[] {
  return Array.from({ length: n }, (_, i) => {
    const id = start + i;
    return userBody({
      user_id: id,
      email: `${prefix}-${id}@example.com`,
      tenant: [tenancyBody({ payment_reference: `${prefix.toUpperCase()}-${id}` })],
    });
  });
}
