/**
 * A user with one monthly tenancy (£1,250.00 on the 1st, a UK landlord account), as the benches onboard them;
 * `tenancy` changes its fields (reference, dates), `email` the login.
 */
export function benchUser(
  id: number,
  tenancy: Record<string, unknown> = {},
  email = `tenant-${id}@bench.example`,
): Record<string, unknown> {
  return {
    user_id: id,
    email,
    first_name: 'Bench',
    last_name: `Tenant ${id}`,
    phone_number: '+447700900123',
    date_of_birth: '1990-01-31',
    tenant: [
      {
        post_code: 'SW1A 1AA',
        address_1: `${id} Bench Street`,
        city: 'London',
        country: 'United Kingdom',
        is_primary: true,
        start_rent_date: '2026-01-01',
        end_rent_date: '2026-12-31',
        rent_due_day: 1,
        amount: '1250.00',
        frequency: 'every_1_month',
        is_active: true,
        payment_reference: `BENCH-${id}`,
        recipient_bank_sort_code: '12-34-56',
        recipient_bank_account_number: '12345678',
        recipient_bank_account_name: 'Landlord Ltd',
        agreement: 'https://docs.example/agreement.pdf',
        ...tenancy,
      },
    ],
    kyc: { status: 'pending' },
  };
}
