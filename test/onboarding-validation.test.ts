import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FREQUENCIES } from '../src/onboarding/schemas.ts';
import {
  type Api,
  countRows,
  DATE_MESSAGE,
  deletePath,
  integrationApi,
  ONBOARDING,
  setPath,
  UNLIMITED,
} from './api-client.ts';
import { manyUsers, tenancyBody, userBody } from './fixtures.ts';
import { startTestApp, type TestApp } from './helpers.ts';

type Path = readonly (string | number)[];
type Body = Record<string, unknown>;

let sequence = 0;

/**
 * A valid user in which every field of the spec's tables is present (installment plan and KYC links
 * included), with its own user_id, email and payment_reference so that passing cases never collide.
 */
function fullUser(): { body: Body; n: number } {
  const n = ++sequence;
  return {
    n,
    body: userBody({
      user_id: 100_000 + n,
      email: `valid-${n}@example.com`,
      tenant: [
        tenancyBody({
          payment_reference: `VAL-${n}`,
          installment_payment: {
            total_amount: 2400,
            installments: [
              { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
              { installment_number: 2, due_date: '2026-07-01', amount: 1200 },
            ],
          },
        }),
      ],
      kyc: { pii_front: 'https://docs.example/front.jpg', pii_back: null, photo: null, status: 'pending' },
    }),
  };
}

const at = (path: Path, prefix?: number) => [...(prefix === undefined ? [] : [prefix]), ...path].join('.');

// ---------------------------------------------------------------------------------------------------------
// The field table: every field of User, Tenancy, Installment payment, Installment and KYC (spec tables),
// with its kind, whether it is required and its maximum length (spec Limits; `implementationMax` marks a
// limit the service adds where the spec gives none).
// ---------------------------------------------------------------------------------------------------------

type Kind =
  | 'text'
  | 'email'
  | 'date'
  | 'integer'
  | 'boolean'
  | 'choice'
  | 'decimal'
  | 'url'
  | 'nullableUrl'
  | 'freeText'
  | 'number'
  | 'list'
  | 'object';

interface FieldSpec {
  path: Path;
  kind: Kind;
  required: boolean;
  max?: number;
  implementationMax?: boolean;
}

const TENANCY: Path = ['tenant', 0];
const PLAN: Path = [...TENANCY, 'installment_payment'];
const INSTALLMENT: Path = [...PLAN, 'installments', 0];

const FIELDS: FieldSpec[] = [
  // User
  { path: ['user_id'], kind: 'integer', required: true },
  { path: ['email'], kind: 'email', required: true, max: 254 },
  { path: ['first_name'], kind: 'text', required: true, max: 150 },
  { path: ['last_name'], kind: 'text', required: true, max: 150 },
  { path: ['phone_number'], kind: 'text', required: true, max: 20 },
  { path: ['date_of_birth'], kind: 'date', required: true },
  { path: ['tenant'], kind: 'list', required: true },
  { path: ['kyc'], kind: 'object', required: true },
  // Tenancy
  { path: [...TENANCY, 'post_code'], kind: 'text', required: true, max: 60 },
  { path: [...TENANCY, 'address_1'], kind: 'text', required: true, max: 128 },
  { path: [...TENANCY, 'city'], kind: 'text', required: true, max: 60 },
  { path: [...TENANCY, 'country'], kind: 'text', required: true, max: 120 },
  { path: [...TENANCY, 'is_primary'], kind: 'boolean', required: true },
  { path: [...TENANCY, 'start_rent_date'], kind: 'date', required: true },
  { path: [...TENANCY, 'end_rent_date'], kind: 'date', required: true },
  { path: [...TENANCY, 'rent_due_day'], kind: 'integer', required: true },
  { path: [...TENANCY, 'amount'], kind: 'decimal', required: true },
  { path: [...TENANCY, 'frequency'], kind: 'choice', required: true },
  { path: [...TENANCY, 'is_active'], kind: 'boolean', required: true },
  { path: [...TENANCY, 'payment_reference'], kind: 'text', required: true, max: 50 },
  { path: [...TENANCY, 'recipient_bank_sort_code'], kind: 'text', required: true, max: 50 },
  { path: [...TENANCY, 'recipient_bank_account_number'], kind: 'text', required: true, max: 50 },
  { path: [...TENANCY, 'recipient_bank_account_name'], kind: 'text', required: true, max: 100 },
  { path: [...TENANCY, 'agreement'], kind: 'url', required: true, max: 2048, implementationMax: true },
  { path: PLAN, kind: 'object', required: false },
  // Installment payment
  { path: [...PLAN, 'total_amount'], kind: 'number', required: false },
  { path: [...PLAN, 'installments'], kind: 'list', required: false },
  // Installment
  { path: [...INSTALLMENT, 'installment_number'], kind: 'integer', required: true },
  { path: [...INSTALLMENT, 'due_date'], kind: 'date', required: true },
  { path: [...INSTALLMENT, 'amount'], kind: 'number', required: true },
  // KYC
  { path: ['kyc', 'pii_front'], kind: 'nullableUrl', required: false, max: 2048, implementationMax: true },
  { path: ['kyc', 'pii_back'], kind: 'nullableUrl', required: false, max: 2048, implementationMax: true },
  { path: ['kyc', 'photo'], kind: 'nullableUrl', required: false, max: 2048, implementationMax: true },
  { path: ['kyc', 'status'], kind: 'freeText', required: false, max: 100, implementationMax: true },
];

const CHOICE_MESSAGE = `Not a valid choice. Choose one of: ${FREQUENCIES.join(', ')}.`;

/** A value of the wrong JSON type for each kind, and the message it earns. */
const WRONG_TYPE: Record<Kind, { value: unknown; message: string }> = {
  text: { value: 123, message: 'Not a valid string.' },
  email: { value: 123, message: 'Not a valid string.' },
  date: { value: 20260101, message: 'Not a valid string.' },
  decimal: { value: 1200, message: 'Not a valid string.' },
  url: { value: 123, message: 'Not a valid string.' },
  nullableUrl: { value: 123, message: 'Not a valid string.' },
  freeText: { value: 123, message: 'Not a valid string.' },
  integer: { value: '5', message: 'A valid integer is required.' },
  boolean: { value: 'true', message: 'Must be a valid boolean.' },
  choice: { value: 1, message: CHOICE_MESSAGE },
  number: { value: '1200.00', message: 'A valid number is required.' },
  list: { value: {}, message: 'Expected a list of items.' },
  object: { value: [], message: 'Expected an object.' },
};

/** What an empty string earns, for the kinds that are strings; undefined means it passes. */
const EMPTY_STRING: Partial<Record<Kind, string | undefined>> = {
  text: 'This field may not be blank.',
  email: 'Enter a valid email address.',
  date: DATE_MESSAGE,
  decimal: 'Enter the amount as a decimal string, e.g. "1200.00".',
  url: 'Enter a valid URL.',
  nullableUrl: 'Enter a valid URL.',
  choice: CHOICE_MESSAGE,
  freeText: undefined,
};

/** A valid value of exactly `length` characters, unique to case n where uniqueness matters. */
function valueOfLength(kind: Kind, length: number, n: number): string {
  switch (kind) {
    case 'email': {
      // A realistic address: 64-character local part, labels of at most 63 characters.
      const local = `v${n}-`.padEnd(64, 'a');
      const tail = length - local.length - 1 - (63 + 1 + 63 + 1) - '.com'.length;
      return `${local}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(tail)}.com`;
    }
    case 'url':
    case 'nullableUrl': {
      const head = `https://docs.example/${n}/`;
      return `${head}${'a'.repeat(length - head.length - '.pdf'.length)}.pdf`;
    }
    default:
      return `${n}-`.padEnd(length, 'x');
  }
}

interface Case {
  name: string;
  mutate: (body: Body, n: number) => void;
  /** undefined: the case passes with 201. */
  message?: string;
}

function casesFor(field: FieldSpec): Case[] {
  const name = at(field.path);
  const cases: Case[] = [];
  cases.push(
    field.required
      ? {
          name: `${name}: missing fails`,
          mutate: (body) => deletePath(body, field.path),
          message: 'This field is required.',
        }
      : { name: `${name}: missing passes (optional)`, mutate: (body) => deletePath(body, field.path) },
  );
  const wrong = WRONG_TYPE[field.kind];
  cases.push({
    name: `${name}: wrong type (${JSON.stringify(wrong.value)}) fails`,
    mutate: (body) => setPath(body, field.path, wrong.value),
    message: wrong.message,
  });
  if (field.kind in EMPTY_STRING) {
    const message = EMPTY_STRING[field.kind];
    cases.push({
      name: `${name}: empty string ${message === undefined ? 'passes' : 'fails'}`,
      mutate: (body) => setPath(body, field.path, ''),
      ...(message === undefined ? {} : { message }),
    });
  }
  if (field.kind === 'nullableUrl' || field.kind === 'freeText') {
    cases.push({ name: `${name}: null passes`, mutate: (body) => setPath(body, field.path, null) });
  }
  if (field.max !== undefined) {
    const max = field.max;
    const source = field.implementationMax ? 'implementation limit' : 'spec limit';
    cases.push({
      name: `${name}: exactly ${max} characters passes (${source})`,
      mutate: (body, n) => setPath(body, field.path, valueOfLength(field.kind, max, n)),
    });
    cases.push({
      name: `${name}: ${max + 1} characters fails (${source})`,
      mutate: (body, n) => setPath(body, field.path, valueOfLength(field.kind, max + 1, n)),
      message: `Ensure this field has no more than ${max} characters.`,
    });
  }
  return cases;
}

async function expectCase(api: Api, mutate: (body: Body, n: number) => void, message?: string) {
  const { body, n } = fullUser();
  mutate(body, n);
  return { response: await api.onboard(body), message };
}

function assertOutcome(
  response: { status: number; body: unknown },
  expected: Record<string, string[]> | undefined,
) {
  if (expected === undefined) {
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.deepEqual(response.body, {
      message: 'Onboarded 1 user: 1 created, 0 updated.',
      created: 1,
      updated: 0,
    });
    return;
  }
  assert.equal(response.status, 400, JSON.stringify(response.body));
  assert.deepEqual(response.body, expected);
}

describe('onboarding validation: every field of every resource (table)', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
  });
  after(() => t.close());

  it('the full valid user used by every case passes', async () => {
    const { response } = await expectCase(api, () => undefined);
    assertOutcome(response, undefined);
  });

  for (const field of FIELDS) {
    for (const testCase of casesFor(field)) {
      it(`single object: ${testCase.name}`, async () => {
        const { response } = await expectCase(api, testCase.mutate);
        assertOutcome(
          response,
          testCase.message === undefined ? undefined : { [at(field.path)]: [testCase.message] },
        );
      });
    }
    // A sample of each field in an array body: the error path starts with the item's index.
    const wrong = WRONG_TYPE[field.kind];
    it(`array body: ${at(field.path)} of item 3 of 5 with the wrong type fails at 3.${at(field.path)}`, async () => {
      const items = Array.from({ length: 5 }, () => fullUser().body);
      setPath(items[3], field.path, wrong.value);
      const response = await api.onboard(items);
      assertOutcome(response, { [at(field.path, 3)]: [wrong.message] });
    });
    if (field.required) {
      it(`array body: ${at(field.path)} missing from item 0 of 2 fails at 0.${at(field.path)}`, async () => {
        const items = [fullUser().body, fullUser().body];
        deletePath(items[0], field.path);
        const response = await api.onboard(items);
        assertOutcome(response, { [at(field.path, 0)]: ['This field is required.'] });
      });
    }
  }

  it('array body: the contract example path 3.tenant.0.post_code', async () => {
    const items = Array.from({ length: 4 }, () => fullUser().body);
    setPath(items[3], [...TENANCY, 'post_code'], 'x'.repeat(61));
    const response = await api.onboard(items);
    assertOutcome(response, {
      '3.tenant.0.post_code': ['Ensure this field has no more than 60 characters.'],
    });
  });

  it('array body: errors of several items are all reported at once', async () => {
    const items = Array.from({ length: 3 }, () => fullUser().body);
    setPath(items[0], ['email'], 'not-an-email');
    setPath(items[2], [...TENANCY, 'rent_due_day'], 32);
    const response = await api.onboard(items);
    assertOutcome(response, {
      '0.email': ['Enter a valid email address.'],
      '2.tenant.0.rent_due_day': ['Ensure this value is less than or equal to 31.'],
    });
  });

  it('whitespace-only strings fail required text fields', async () => {
    const { body } = fullUser();
    setPath(body, ['first_name'], '   ');
    setPath(body, [...TENANCY, 'city'], '\t');
    const response = await api.onboard(body);
    assertOutcome(response, {
      first_name: ['This field may not be blank.'],
      'tenant.0.city': ['This field may not be blank.'],
    });
  });

  it('text PostgreSQL cannot store (NUL) or that is not Unicode is a field error, not a 500', async () => {
    const { body } = fullUser();
    setPath(body, ['last_name'], 'Love\u0000lace');
    setPath(body, [...TENANCY, 'address_1'], 'Flat \ud800 1');
    setPath(body, ['kyc', 'status'], 'pending\u0000');
    const response = await api.onboard(body);
    assertOutcome(response, {
      last_name: ['Null characters are not allowed.'],
      'tenant.0.address_1': ['Enter valid Unicode text.'],
      'kyc.status': ['Null characters are not allowed.'],
    });
  });

  it('a paired surrogate (an emoji) is fine', async () => {
    const { body } = fullUser();
    setPath(body, ['first_name'], 'Ada 🏠');
    assertOutcome(await api.onboard(body), undefined);
  });
});

describe('onboarding validation: values (dates, amounts, ranges, enums, identifiers, installments)', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
  });
  after(() => t.close());

  const valueCases: { name: string; path: Path; value: unknown; message?: string; errorPath?: string }[] = [
    // Dates must be real calendar dates.
    ...[
      ['date_of_birth'],
      [...TENANCY, 'start_rent_date'],
      [...TENANCY, 'end_rent_date'],
      [...INSTALLMENT, 'due_date'],
    ].flatMap((path) => [
      { name: `${at(path)} 2026-02-30 fails`, path, value: '2026-02-30', message: DATE_MESSAGE },
      {
        name: `${at(path)} 2026-02-29 fails (2026 is no leap year)`,
        path,
        value: '2026-02-29',
        message: DATE_MESSAGE,
      },
      { name: `${at(path)} 2026-13-01 fails`, path, value: '2026-13-01', message: DATE_MESSAGE },
      { name: `${at(path)} 0000-01-01 fails (no year 0)`, path, value: '0000-01-01', message: DATE_MESSAGE },
      { name: `${at(path)} 2026-1-1 fails (not YYYY-MM-DD)`, path, value: '2026-1-1', message: DATE_MESSAGE },
      { name: `${at(path)} 01/02/2026 fails`, path, value: '01/02/2026', message: DATE_MESSAGE },
      {
        name: `${at(path)} a date-time fails`,
        path,
        value: '2026-01-01T00:00:00Z',
        message: DATE_MESSAGE,
      },
    ]),
    { name: 'date_of_birth 2024-02-29 passes (leap year)', path: ['date_of_birth'], value: '2024-02-29' },
    {
      name: 'start_rent_date 2024-02-29 passes (leap year)',
      path: [...TENANCY, 'start_rent_date'],
      value: '2024-02-29',
    },
    {
      name: 'installment due_date 2024-02-29 passes (leap year)',
      path: [...INSTALLMENT, 'due_date'],
      value: '2024-02-29',
    },
    // end_rent_date >= start_rent_date (start is 2026-01-01).
    {
      name: 'end_rent_date before start_rent_date fails',
      path: [...TENANCY, 'end_rent_date'],
      value: '2025-12-31',
      message: 'Ensure this date is on or after start_rent_date.',
    },
    {
      name: 'end_rent_date equal to start_rent_date passes',
      path: [...TENANCY, 'end_rent_date'],
      value: '2026-01-01',
    },
    // amount: a decimal string > 0 with at most 8 digits before the point and 2 after.
    ...(
      [
        ['0', 'Ensure this value is greater than 0.'],
        ['0.00', 'Ensure this value is greater than 0.'],
        ['0.0', 'Ensure this value is greater than 0.'],
        ['-1', 'Ensure this value is greater than 0.'],
        ['-0.01', 'Ensure this value is greater than 0.'],
        ['1.234', 'Ensure that there are no more than 2 decimal places.'],
        ['123456789.00', 'Ensure that there are no more than 8 digits before the decimal point.'],
        ['123456789', 'Ensure that there are no more than 8 digits before the decimal point.'],
        ['1,200.00', 'Enter the amount as a decimal string, e.g. "1200.00".'],
        ['1e3', 'Enter the amount as a decimal string, e.g. "1200.00".'],
        [' 1200.00', 'Enter the amount as a decimal string, e.g. "1200.00".'],
        ['1200.', 'Enter the amount as a decimal string, e.g. "1200.00".'],
        ['£1200', 'Enter the amount as a decimal string, e.g. "1200.00".'],
      ] as const
    ).map(([value, message]) => ({
      name: `amount ${JSON.stringify(value)} fails`,
      path: [...TENANCY, 'amount'],
      value,
      message,
    })),
    ...['12345678.99', '0.01', '1200', '1200.5', '1200.50', '00001200.00'].map((value) => ({
      name: `amount ${JSON.stringify(value)} passes`,
      path: [...TENANCY, 'amount'],
      value,
    })),
    {
      name: 'amount as a JSON number fails',
      path: [...TENANCY, 'amount'],
      value: 1200.5,
      message: 'Not a valid string.',
    },
    // rent_due_day 1..31.
    {
      name: 'rent_due_day 0 fails',
      path: [...TENANCY, 'rent_due_day'],
      value: 0,
      message: 'Ensure this value is greater than or equal to 1.',
    },
    {
      name: 'rent_due_day 32 fails',
      path: [...TENANCY, 'rent_due_day'],
      value: 32,
      message: 'Ensure this value is less than or equal to 31.',
    },
    {
      name: 'rent_due_day 1.5 fails',
      path: [...TENANCY, 'rent_due_day'],
      value: 1.5,
      message: 'A valid integer is required.',
    },
    { name: 'rent_due_day 1 passes', path: [...TENANCY, 'rent_due_day'], value: 1 },
    { name: 'rent_due_day 31 passes', path: [...TENANCY, 'rent_due_day'], value: 31 },
    // frequency: one of the enum.
    ...FREQUENCIES.map((value) => ({
      name: `frequency ${value} passes`,
      path: [...TENANCY, 'frequency'],
      value,
    })),
    ...['monthly', 'EVERY_1_MONTH', 'every_6_month'].map((value) => ({
      name: `frequency ${value} fails`,
      path: [...TENANCY, 'frequency'],
      value,
      message: CHOICE_MESSAGE,
    })),
    // user_id: a positive safe integer.
    {
      name: 'user_id 0 fails',
      path: ['user_id'],
      value: 0,
      message: 'Ensure this value is greater than or equal to 1.',
    },
    {
      name: 'user_id -1 fails',
      path: ['user_id'],
      value: -1,
      message: 'Ensure this value is greater than or equal to 1.',
    },
    { name: 'user_id 1.5 fails', path: ['user_id'], value: 1.5, message: 'A valid integer is required.' },
    { name: 'user_id "5" fails', path: ['user_id'], value: '5', message: 'A valid integer is required.' },
    {
      name: 'user_id 2^53 fails',
      path: ['user_id'],
      value: 2 ** 53,
      message: `Ensure this value is less than or equal to ${Number.MAX_SAFE_INTEGER}.`,
    },
    { name: 'user_id null fails', path: ['user_id'], value: null, message: 'A valid integer is required.' },
    // is_primary / is_active: JSON booleans only.
    {
      name: 'is_active 1 fails',
      path: [...TENANCY, 'is_active'],
      value: 1,
      message: 'Must be a valid boolean.',
    },
    {
      name: 'is_primary null fails',
      path: [...TENANCY, 'is_primary'],
      value: null,
      message: 'Must be a valid boolean.',
    },
    // tenant: at least one item.
    { name: 'tenant [] fails', path: ['tenant'], value: [], message: 'This list may not be empty.' },
    {
      name: 'tenant [null] fails',
      path: ['tenant'],
      value: [null],
      message: 'Expected an object.',
      errorPath: 'tenant.0',
    },
    // kyc: the object is required, its members are not.
    { name: 'kyc {} passes', path: ['kyc'], value: {} },
    { name: 'kyc null fails', path: ['kyc'], value: null, message: 'Expected an object.' },
    // URLs: http(s) only, no credentials.
    ...[
      [...TENANCY, 'agreement'],
      ['kyc', 'pii_front'],
    ].flatMap((path) => [
      {
        name: `${at(path)} relative URL fails`,
        path,
        value: '/agreement.pdf',
        message: 'Enter a valid URL.',
      },
      {
        name: `${at(path)} ftp URL fails`,
        path,
        value: 'ftp://docs.example/a.pdf',
        message: 'Enter an http or https URL.',
      },
      {
        name: `${at(path)} URL with credentials fails`,
        path,
        value: 'https://user:secret@docs.example/a.pdf',
        message: 'URLs with credentials are not allowed.',
      },
      { name: `${at(path)} http URL passes`, path, value: 'http://docs.example/a.pdf' },
    ]),
    // Installment payment and installments.
    {
      name: 'installment_payment {} passes',
      path: PLAN,
      value: {},
    },
    {
      name: 'installments [] passes',
      path: [...PLAN, 'installments'],
      value: [],
    },
    {
      name: 'installment_payment null fails',
      path: PLAN,
      value: null,
      message: 'Expected an object.',
    },
    {
      name: 'total_amount 0 fails',
      path: [...PLAN, 'total_amount'],
      value: 0,
      message: 'Ensure this value is greater than 0.',
    },
    {
      name: 'total_amount with 3 decimals fails',
      path: [...PLAN, 'total_amount'],
      value: 2400.001,
      message: 'Ensure this value has at most 2 decimal places.',
    },
    { name: 'total_amount 2400.5 passes', path: [...PLAN, 'total_amount'], value: 2400.5 },
    {
      name: 'installment amount 0 fails',
      path: [...INSTALLMENT, 'amount'],
      value: 0,
      message: 'Ensure this value is greater than 0.',
    },
    {
      name: 'installment amount -5 fails',
      path: [...INSTALLMENT, 'amount'],
      value: -5,
      message: 'Ensure this value is greater than 0.',
    },
    {
      name: 'installment amount with 3 decimals fails',
      path: [...INSTALLMENT, 'amount'],
      value: 1.234,
      message: 'Ensure this value has at most 2 decimal places.',
    },
    {
      name: 'installment amount 1e-9 fails (not rounded to zero)',
      path: [...INSTALLMENT, 'amount'],
      value: 1e-9,
      message: 'Ensure this value has at most 2 decimal places.',
    },
    {
      name: 'installment amount 12.340000001 fails (not rounded to 12.34)',
      path: [...INSTALLMENT, 'amount'],
      value: 12.340000001,
      message: 'Ensure this value has at most 2 decimal places.',
    },
    { name: 'installment amount 0.01 passes', path: [...INSTALLMENT, 'amount'], value: 0.01 },
    {
      name: 'installment_number 0 fails',
      path: [...INSTALLMENT, 'installment_number'],
      value: 0,
      message: 'Ensure this value is greater than or equal to 1.',
    },
  ];

  for (const c of valueCases) {
    it(c.name, async () => {
      const { body } = fullUser();
      setPath(body, c.path, c.value);
      assertOutcome(
        await api.onboard(body),
        c.message === undefined ? undefined : { [c.errorPath ?? at(c.path)]: [c.message] },
      );
    });
  }

  it('user_id Number.MAX_SAFE_INTEGER passes and is stored exactly', async () => {
    const { body } = fullUser();
    body.user_id = Number.MAX_SAFE_INTEGER;
    assertOutcome(await api.onboard(body), undefined);
    const rows = await t.db.query<{ external_id: number | bigint }>(
      'SELECT external_id FROM users WHERE integrator_id = $1 AND email = $2',
      [api.integratorId, body.email as string],
    );
    assert.equal(String(rows[0]?.external_id), String(Number.MAX_SAFE_INTEGER));
  });

  const planOf = (installments: unknown[]) => ({ total_amount: 3600, installments });
  const installmentCases: { name: string; installments: unknown[]; errors: Record<string, string[]> }[] = [
    {
      name: 'numbering with a gap (1, 3)',
      installments: [
        { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 3, due_date: '2026-02-01', amount: 1200 },
      ],
      errors: {
        'tenant.0.installment_payment.installments.1.installment_number': [
          'Installments are numbered 1, 2, 3, … without gaps: expected 2.',
        ],
      },
    },
    {
      name: 'numbering not starting at 1 (2, 3)',
      installments: [
        { installment_number: 2, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 3, due_date: '2026-02-01', amount: 1200 },
      ],
      errors: {
        'tenant.0.installment_payment.installments.0.installment_number': [
          'Installments are numbered 1, 2, 3, … without gaps: expected 1.',
        ],
        'tenant.0.installment_payment.installments.1.installment_number': [
          'Installments are numbered 1, 2, 3, … without gaps: expected 2.',
        ],
      },
    },
    {
      name: 'numbering out of order (2, 1)',
      installments: [
        { installment_number: 2, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 1, due_date: '2026-02-01', amount: 1200 },
      ],
      errors: {
        'tenant.0.installment_payment.installments.0.installment_number': [
          'Installments are numbered 1, 2, 3, … without gaps: expected 1.',
        ],
        'tenant.0.installment_payment.installments.1.installment_number': [
          'Installments are numbered 1, 2, 3, … without gaps: expected 2.',
        ],
      },
    },
    {
      name: 'due dates not ascending (equal)',
      installments: [
        { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 2, due_date: '2026-01-01', amount: 1200 },
      ],
      errors: {
        'tenant.0.installment_payment.installments.1.due_date': [
          "Due dates must ascend: this one is not after installment 1's (2026-01-01).",
        ],
      },
    },
    {
      name: 'due dates descending',
      installments: [
        { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 2, due_date: '2026-03-01', amount: 1200 },
        { installment_number: 3, due_date: '2026-02-01', amount: 1200 },
      ],
      errors: {
        'tenant.0.installment_payment.installments.2.due_date': [
          "Due dates must ascend: this one is not after installment 2's (2026-03-01).",
        ],
      },
    },
    {
      name: 'an amount of 0 in the third installment',
      installments: [
        { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 2, due_date: '2026-02-01', amount: 1200 },
        { installment_number: 3, due_date: '2026-03-01', amount: 0 },
      ],
      errors: {
        'tenant.0.installment_payment.installments.2.amount': ['Ensure this value is greater than 0.'],
      },
    },
    {
      name: 'an amount with 3 decimals in the second installment',
      installments: [
        { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 2, due_date: '2026-02-01', amount: 1200.005 },
      ],
      errors: {
        'tenant.0.installment_payment.installments.1.amount': [
          'Ensure this value has at most 2 decimal places.',
        ],
      },
    },
  ];
  for (const c of installmentCases) {
    it(`installments: ${c.name} fails`, async () => {
      const { body } = fullUser();
      setPath(body, PLAN, planOf(c.installments));
      assertOutcome(await api.onboard(body), c.errors);
    });
  }

  it('installments: 1..3 with ascending dates and amounts > 0 pass', async () => {
    const { body } = fullUser();
    setPath(
      body,
      PLAN,
      planOf([
        { installment_number: 1, due_date: '2026-01-01', amount: 1200 },
        { installment_number: 2, due_date: '2026-01-02', amount: 1200.5 },
        { installment_number: 3, due_date: '2026-12-31', amount: 0.01 },
      ]),
    );
    assertOutcome(await api.onboard(body), undefined);
  });

  it('unknown fields are ignored at every level (201)', async () => {
    const { body } = fullUser();
    body.nickname = 'Ada';
    setPath(body, [...TENANCY, 'floor'], 3);
    setPath(body, [...PLAN, 'currency'], 'GBP');
    setPath(body, [...INSTALLMENT, 'note'], { any: ['thing'] });
    setPath(body, ['kyc', 'selfie_taken_at'], '2026-01-01');
    assertOutcome(await api.onboard(body), undefined);
  });

  it('an unknown field holding text PostgreSQL could not store is ignored too', async () => {
    const { body } = fullUser();
    body.note = 'a\u0000b\ud800';
    assertOutcome(await api.onboard(body), undefined);
  });
});

describe('onboarding validation: uniqueness of email, user_id and payment_reference', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
    await api.onboardOk(
      userBody({
        user_id: 1,
        email: 'Case.Sensitive@Example.com',
        tenant: [tenancyBody({ payment_reference: 'TAKEN-1' })],
      }),
    );
  });
  after(() => t.close());

  for (const email of [
    'case.sensitive@example.com',
    'CASE.SENSITIVE@EXAMPLE.COM',
    'Case.Sensitive@Example.com',
  ]) {
    it(`another user_id with the same email in any case (${email}) fails on email`, async () => {
      const response = await api.onboard(
        userBody({ user_id: 2, email, tenant: [tenancyBody({ payment_reference: 'FREE-2' })] }),
      );
      assertOutcome(response, { email: ['A user with this email already exists.'] });
    });
  }

  it('the same user_id may change the case of its own email', async () => {
    const response = await api.onboard(
      userBody({
        user_id: 1,
        email: 'case.sensitive@example.com',
        tenant: [tenancyBody({ payment_reference: 'TAKEN-1' })],
      }),
    );
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.equal(response.body.updated, 1);
  });

  it('two users of one request with the same email in different case fail on the second', async () => {
    const response = await api.onboard([
      userBody({
        user_id: 10,
        email: 'twin@example.com',
        tenant: [tenancyBody({ payment_reference: 'T-10' })],
      }),
      userBody({
        user_id: 11,
        email: 'TWIN@example.com',
        tenant: [tenancyBody({ payment_reference: 'T-11' })],
      }),
    ]);
    assertOutcome(response, { '1.email': ['Another user in this request has this email.'] });
  });

  it('the same user_id twice in one request fails on the second', async () => {
    const response = await api.onboard([
      userBody({
        user_id: 12,
        email: 'a12@example.com',
        tenant: [tenancyBody({ payment_reference: 'T-12' })],
      }),
      userBody({
        user_id: 12,
        email: 'a12@example.com',
        tenant: [tenancyBody({ payment_reference: 'T-12b' })],
      }),
    ]);
    assertOutcome(response, { '1.user_id': ['Duplicate user_id in this request.'] });
  });

  it('the same payment_reference twice in one request fails on the second', async () => {
    const response = await api.onboard(
      userBody({
        user_id: 13,
        email: 'a13@example.com',
        tenant: [
          tenancyBody({ payment_reference: 'T-13' }),
          tenancyBody({ payment_reference: 'T-13', address_1: 'Elsewhere' }),
        ],
      }),
    );
    assertOutcome(response, {
      'tenant.1.payment_reference': ['Duplicate payment_reference in this request.'],
    });
  });

  it('a new user with a payment_reference already stored fails on that path', async () => {
    const response = await api.onboard(
      userBody({
        user_id: 14,
        email: 'a14@example.com',
        tenant: [tenancyBody({ payment_reference: 'TAKEN-1' })],
      }),
    );
    assertOutcome(response, {
      'tenant.0.payment_reference': [
        'A tenancy with this payment_reference already exists. To update it, send the same user_id, start_rent_date and address_1.',
      ],
    });
  });
});

describe('onboarding validation: the body as a whole', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
  });
  after(() => t.close());

  const NOT_A_USER = 'Expected a User object or an array of 1 to 500 User objects.';
  for (const [name, body, message] of [
    ['a string', 'hello', NOT_A_USER],
    ['a number', 42, NOT_A_USER],
    ['true', true, NOT_A_USER],
    ['null', null, NOT_A_USER],
    ['an empty array', [], 'This list may not be empty.'],
  ] as const) {
    it(`a body that is ${name} fails with non_field_errors`, async () => {
      assertOutcome(await api.onboard(body), { non_field_errors: [message] });
    });
  }

  it('501 users fail with non_field_errors and write nothing', async () => {
    const before = await countRows(t.db);
    const response = await api.onboard(manyUsers(501, 1, 'over'));
    assertOutcome(response, {
      non_field_errors: ['Ensure this list has no more than 500 users; send more in further requests.'],
    });
    assert.deepEqual(await countRows(t.db), before);
  });

  it('500 users pass in one request', async () => {
    const before = await countRows(t.db);
    const response = await api.onboard(manyUsers(500, 1, 'max'));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.deepEqual(response.body, {
      message: 'Onboarded 500 users: 500 created, 0 updated.',
      created: 500,
      updated: 0,
    });
    const after = await countRows(t.db);
    assert.equal(after.users - before.users, 500);
    assert.equal(after.tenancies - before.tenancies, 500);
    assert.equal(after.documents - before.documents, 500, 'one agreement document per tenancy');
    assert.equal(after.jobs - before.jobs, 500, 'one fetch job per document');
  });

  it('an array item that is not an object fails at its index', async () => {
    assertOutcome(await api.onboard([fullUser().body, 7]), { '1': ['Expected an object.'] });
  });

  it('an empty object reports every required field', async () => {
    const response = await api.onboard({});
    assert.equal(response.status, 400);
    assert.deepEqual(Object.keys(response.body).sort(), [
      'date_of_birth',
      'email',
      'first_name',
      'kyc',
      'last_name',
      'phone_number',
      'tenant',
      'user_id',
    ]);
    for (const messages of Object.values(response.body))
      assert.deepEqual(messages, ['This field is required.']);
  });

  it('no body at all fails with non_field_errors', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: ONBOARDING,
      headers: { authorization: `Token ${api.serverToken}` },
    });
    assert.equal(response.statusCode, 400);
    assert.deepEqual(response.json(), { non_field_errors: [NOT_A_USER] });
  });

  for (const [name, payload] of [
    ['truncated', '{"user_id": 1,'],
    ['single quotes', "{'user_id': 1}"],
    ['trailing comma', '[{"user_id": 1},]'],
  ] as const) {
    it(`malformed JSON (${name}) gives {"error": "invalid_json", "detail"}`, async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: ONBOARDING,
        headers: { authorization: `Token ${api.serverToken}`, 'content-type': 'application/json' },
        payload,
      });
      assert.equal(response.statusCode, 400);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['detail', 'error']);
      assert.equal(body.error, 'invalid_json');
      assert.match(body.detail, /not valid JSON/);
    });
  }

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    it(`a wrong content type (${contentType}) gives {"error": "unsupported_content_type", "detail"}`, async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: ONBOARDING,
        headers: { authorization: `Token ${api.serverToken}`, 'content-type': contentType },
        payload: JSON.stringify(fullUser().body),
      });
      assert.equal(response.statusCode, 400);
      const body = response.json();
      assert.deepEqual(Object.keys(body).sort(), ['detail', 'error']);
      assert.equal(body.error, 'unsupported_content_type');
    });
  }

  it('application/json with a charset is accepted', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: ONBOARDING,
      headers: {
        authorization: `Token ${api.serverToken}`,
        'content-type': 'application/json; charset=utf-8',
      },
      payload: JSON.stringify(fullUser().body),
    });
    assert.equal(response.statusCode, 201, response.body);
  });
});

describe('onboarding validation: a bulk body with one bad item writes nothing', () => {
  let t: TestApp;
  let api: Api;
  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
    await api.onboardOk(
      userBody({
        user_id: 1,
        email: 'existing@example.com',
        tenant: [tenancyBody({ payment_reference: 'OLD-1' })],
      }),
    );
  });
  after(() => t.close());

  const bulk = (prefix: string) => manyUsers(5, 1_000, prefix);

  const badItems: { name: string; spoil: (items: Body[]) => void; errors: Record<string, string[]> }[] = [
    {
      name: 'a schema error in item 3',
      spoil: (items) => setPath(items[3], [...TENANCY, 'rent_due_day'], 0),
      errors: { '3.tenant.0.rent_due_day': ['Ensure this value is greater than or equal to 1.'] },
    },
    {
      name: 'a rule error (end before start) in item 0',
      spoil: (items) => setPath(items[0], [...TENANCY, 'end_rent_date'], '2025-01-01'),
      errors: { '0.tenant.0.end_rent_date': ['Ensure this date is on or after start_rent_date.'] },
    },
    {
      name: 'a stored payment_reference reused by item 4 (found only in the database)',
      spoil: (items) => setPath(items[4], [...TENANCY, 'payment_reference'], 'OLD-1'),
      errors: {
        '4.tenant.0.payment_reference': [
          'A tenancy with this payment_reference already exists. To update it, send the same user_id, start_rent_date and address_1.',
        ],
      },
    },
    {
      name: 'a stored email reused by item 2 under another user_id (found only in the database)',
      spoil: (items) => setPath(items[2], ['email'], 'EXISTING@example.com'),
      errors: { '2.email': ['A user with this email already exists.'] },
    },
  ];

  for (const c of badItems) {
    it(`${c.name}: 400 on that item's path, no rows in users, tenancies, documents or jobs`, async () => {
      const before = await countRows(t.db);
      const items = bulk(c.name.replace(/\W+/g, '').slice(0, 12));
      c.spoil(items);
      assertOutcome(await api.onboard(items), c.errors);
      assert.deepEqual(await countRows(t.db), before);
    });
  }

  it('the same bulk without the bad item writes all five users', async () => {
    const before = await countRows(t.db);
    const response = await api.onboard(bulk('clean'));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    const after = await countRows(t.db);
    assert.equal(after.users - before.users, 5);
    assert.equal(after.tenancies - before.tenancies, 5);
    assert.equal(after.documents - before.documents, 5);
    assert.equal(after.jobs - before.jobs, 5);
  });

  it('an update of an existing user in a bulk with a bad item is rolled back too', async () => {
    const items = [
      userBody({
        user_id: 1,
        email: 'existing@example.com',
        first_name: 'Changed',
        tenant: [tenancyBody({ payment_reference: 'OLD-1' })],
      }),
      userBody({
        user_id: 2,
        email: 'new2@example.com',
        tenant: [tenancyBody({ payment_reference: 'OLD-1' })],
      }),
    ];
    const response = await api.onboard(items);
    assert.equal(response.status, 400);
    assert.deepEqual(Object.keys(response.body), ['1.tenant.0.payment_reference']);
    const [row] = await t.db.query<{ first_name: string }>(
      'SELECT first_name FROM users WHERE integrator_id = $1 AND external_id = 1',
      [api.integratorId],
    );
    assert.equal(row?.first_name, 'Ada');
  });
});
