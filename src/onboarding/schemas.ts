import { type Static, Type } from 'typebox';
import { FREQUENCIES } from '../shared/vocabulary.ts';

const text = (max: number, description?: string) =>
  Type.String({ minLength: 1, maxLength: max, ...(description ? { description } : {}) });
const date = (description: string) =>
  Type.String({ format: 'date', description: `${description} YYYY-MM-DD.` });
const url = (description: string) => Type.String({ format: 'uri', maxLength: 2048, description });
const nullableUrl = (description: string) => Type.Optional(Type.Union([url(description), Type.Null()]));

export const Installment = Type.Object(
  {
    installment_number: Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'Sequential number starting at 1.',
    }),
    due_date: date('Due date.'),
    amount: Type.Number({
      exclusiveMinimum: 0,
      maximum: 99_999_999.99,
      description: 'Amount due, in pounds.',
    }),
  },
  { title: 'Installment' },
);

export const InstallmentPayment = Type.Object(
  {
    total_amount: Type.Optional(
      Type.Number({
        exclusiveMinimum: 0,
        maximum: 99_999_999.99,
        description: 'Total for the tenancy, in pounds.',
      }),
    ),
    installments: Type.Optional(Type.Array(Installment, { maxItems: 1000 })),
  },
  { title: 'InstallmentPayment' },
);

/** The tenancy's required free-text fields: each must be non-blank and storable text. */
export const TENANCY_TEXT_FIELDS = [
  'post_code',
  'address_1',
  'city',
  'country',
  'payment_reference',
  'recipient_bank_sort_code',
  'recipient_bank_account_number',
  'recipient_bank_account_name',
] as const;

export const Tenancy = Type.Object(
  {
    post_code: text(60),
    address_1: text(128),
    city: text(60),
    country: text(120),
    is_primary: Type.Boolean({ description: 'Whether this is the user’s primary residence.' }),
    start_rent_date: date('First day of the tenancy.'),
    end_rent_date: date('Last day of the tenancy; not before start_rent_date.'),
    rent_due_day: Type.Integer({ minimum: 1, maximum: 31, description: 'Day of the month rent is due.' }),
    amount: Type.String({
      pattern: '^\\d{1,8}(\\.\\d{1,2})?$',
      description: 'Rent as a decimal string, greater than 0: at most 8 digits before the point and 2 after.',
      examples: ['1200.00'],
    }),
    // An enum (not a union of literals) so a wrong value gets one message naming the choices.
    frequency: Type.Enum(FREQUENCIES, { description: 'How often rent is due.' }),
    is_active: Type.Boolean(),
    payment_reference: text(
      50,
      'Unique within your integration. With user, start_rent_date and address_1 it identifies the tenancy.',
    ),
    recipient_bank_sort_code: text(50),
    recipient_bank_account_number: text(50),
    recipient_bank_account_name: text(100),
    agreement: url('Public http(s) URL of the tenancy agreement PDF; fetched and stored in the background.'),
    installment_payment: Type.Optional(InstallmentPayment),
  },
  { title: 'Tenancy' },
);

export const Kyc = Type.Object(
  {
    pii_front: nullableUrl('URL of the front of the ID document. null clears it.'),
    pii_back: nullableUrl('URL of the back of the ID document. null clears it.'),
    photo: nullableUrl('URL of the user’s photo. null clears it.'),
    status: Type.Optional(
      Type.Union([Type.String({ maxLength: 100 }), Type.Null()], {
        description: 'Free-form, e.g. pending, verified.',
      }),
    ),
  },
  { title: 'KYC', description: 'Required; every member is optional. Absent: unchanged. null: cleared.' },
);

export const User = Type.Object(
  {
    user_id: Type.Integer({
      minimum: 1,
      maximum: Number.MAX_SAFE_INTEGER,
      description: 'Your reference for the user; the matching key for updates.',
    }),
    // No minLength: an empty string fails the format with one message, as the other format fields do.
    email: Type.String({
      format: 'email',
      maxLength: 254,
      description: 'Login identifier; unique, case-insensitive.',
    }),
    first_name: text(150),
    last_name: text(150),
    phone_number: text(20, 'International format recommended.'),
    date_of_birth: date('Date of birth.'),
    tenant: Type.Array(Tenancy, { minItems: 1, maxItems: 100 }),
    kyc: Kyc,
  },
  { title: 'User' },
);
export type UserInput = Static<typeof User>;
export type TenancyInput = Static<typeof Tenancy>;

export const MAX_USERS_PER_REQUEST = 500;

export const OnboardingBody = Type.Union(
  [User, Type.Array(User, { minItems: 1, maxItems: MAX_USERS_PER_REQUEST })],
  {
    description:
      'One User, or an array of 1 to 500. All-or-nothing: if any user is invalid, nothing is written.',
  },
);

export const OnboardingResponse = Type.Object({
  message: Type.String(),
  created: Type.Integer({ description: 'Users created.' }),
  updated: Type.Integer({ description: 'Users updated.' }),
  ignored: Type.Array(Type.String(), {
    description:
      'Always present. Dotted paths of the fields sent for an existing tenancy whose value differs from the stored one ' +
      'but may not change (of an existing tenancy only end_rent_date, amount and frequency change), in the order they ' +
      'were sent: "tenant.0.is_active", "0.tenant.0.is_active" in an array body, ' +
      '"tenant.0.installment_payment.installments.2.amount" inside an installment plan (an installment or plan with ' +
      'nothing stored to match lists each of its leaves). Values are compared as stored (1200 and 1200.00 are equal). ' +
      'Unknown fields, fields not sent, equal values and new tenancies are never listed. Empty when nothing was ' +
      'ignored.',
    examples: [['tenant.0.is_active', 'tenant.0.installment_payment.installments.2.amount']],
  }),
});
