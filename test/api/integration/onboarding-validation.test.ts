import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { FREQUENCIES } from '../../../src/shared/vocabulary.ts';
import {
  type Answer,
  type Api,
  assertAnswer,
  assertError,
  assertFields,
  assertWritesNothing,
  DATE_MESSAGE,
  deletePath,
  EMAIL_TAKEN,
  ONBOARDING,
  ONE_USER_CREATED,
  REFERENCE_TAKEN,
  rowsAddedBy,
  send,
  setPath,
  startIntegration,
} from '../../support/api-client.ts';
import { installment, manyUsers, twoInstallmentPlan, userWithTenancies } from '../../support/fixtures.ts';
import { type TestApp, tokenHeader } from '../../support/helpers.ts';

type Path = readonly (string | number)[];
type Body = Record<string, unknown>;
type FieldErrors = Record<string, string[]>;

let sequence = 0;

/**
 * A valid user in which every onboarding field is present (installment plan and KYC links
 * included), with its own user_id, email and payment_reference so that passing cases never collide.
 */
function fullUser(): { body: Body; n: number } {
  const n = ++sequence;
  return {
    n,
    body: userWithTenancies(
      {
        user_id: 100_000 + n,
        email: `valid-${n}@example.com`,
        kyc: { pii_front: 'https://docs.example/front.jpg', pii_back: null, photo: null, status: 'pending' },
      },
      { payment_reference: `VAL-${n}`, installment_payment: twoInstallmentPlan() },
    ),
  };
}

const fullUsers = (count: number) => Array.from({ length: count }, () => fullUser().body);

/** Onboards a new full user after `change` has altered it. */
function onboardFullUser(api: Api, change: (body: Body, n: number) => void = () => undefined) {
  const { body, n } = fullUser();
  change(body, n);
  return api.onboard(body);
}

/** 201 creating the one user sent, or (given errors) 400 with exactly those field errors. */
function assertOutcome(response: Answer, errors: FieldErrors | undefined) {
  if (errors === undefined) assertAnswer(response, 201, ONE_USER_CREATED);
  else assertAnswer(response, 400, errors);
}

const at = (path: Path, prefix?: number) => [...(prefix === undefined ? [] : [prefix]), ...path].join('.');

// ---------------------------------------------------------------------------------------------------------
// The field table: every field of User, Tenancy, Installment payment, Installment and KYC, with its kind,
// whether it is required and its maximum length (`implementationMax` marks a limit rentpay adds of its own
// beside the documented ones).
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
  text: { value: 123, message: 'Not a valid string: send the value in quotes.' },
  email: { value: 123, message: 'Not a valid string: send the value in quotes.' },
  date: { value: 20260101, message: 'Not a valid string: send the value in quotes.' },
  decimal: { value: 1200, message: 'Not a valid string: send the value in quotes.' },
  url: { value: 123, message: 'Not a valid string: send the value in quotes.' },
  nullableUrl: { value: 123, message: 'Not a valid string: send the value in quotes.' },
  freeText: { value: 123, message: 'Not a valid string: send the value in quotes.' },
  integer: { value: '5', message: 'A valid integer is required: a whole number without quotes, e.g. 5.' },
  boolean: { value: 'true', message: 'Must be a valid boolean: true or false, without quotes.' },
  choice: { value: 1, message: CHOICE_MESSAGE },
  number: { value: '1200.00', message: 'A valid number is required: a number without quotes, e.g. 12.5.' },
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
    const source = field.implementationMax ? 'rentpay limit' : 'documented limit';
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

describe('onboarding validation: every field of every resource (table)', () => {
  let t: TestApp;
  let api: Api;
  before(async () => ({ t, api } = await startIntegration()));
  after(() => t.close());

  it('the full valid user used by every case passes', async () => {
    assertOutcome(await onboardFullUser(api), undefined);
  });

  for (const field of FIELDS) {
    for (const testCase of casesFor(field)) {
      it(`single object: ${testCase.name}`, async () => {
        assertOutcome(
          await onboardFullUser(api, testCase.mutate),
          testCase.message === undefined ? undefined : { [at(field.path)]: [testCase.message] },
        );
      });
    }
    // A sample of each field in an array body: the error path starts with the item's index.
    const wrong = WRONG_TYPE[field.kind];
    it(`array body: ${at(field.path)} of item 3 of 5 with the wrong type fails at 3.${at(field.path)}`, async () => {
      const items = fullUsers(5);
      setPath(items[3], field.path, wrong.value);
      assertOutcome(await api.onboard(items), { [at(field.path, 3)]: [wrong.message] });
    });
    if (field.required) {
      it(`array body: ${at(field.path)} missing from item 0 of 2 fails at 0.${at(field.path)}`, async () => {
        const items = fullUsers(2);
        deletePath(items[0], field.path);
        assertOutcome(await api.onboard(items), { [at(field.path, 0)]: ['This field is required.'] });
      });
    }
  }

  it('array body: a field error names its path, e.g. 3.tenant.0.post_code', async () => {
    const items = fullUsers(4);
    setPath(items[3], [...TENANCY, 'post_code'], 'x'.repeat(61));
    assertOutcome(await api.onboard(items), {
      '3.tenant.0.post_code': ['Ensure this field has no more than 60 characters.'],
    });
  });

  it('array body: errors of several items are all reported at once', async () => {
    const items = fullUsers(3);
    setPath(items[0], ['email'], 'not-an-email');
    setPath(items[2], [...TENANCY, 'rent_due_day'], 32);
    assertOutcome(await api.onboard(items), {
      '0.email': ['Enter a valid email address.'],
      '2.tenant.0.rent_due_day': ['Ensure this value is less than or equal to 31.'],
    });
  });

  it('whitespace-only strings fail required text fields', async () => {
    const response = await onboardFullUser(api, (body) => {
      setPath(body, ['first_name'], '   ');
      setPath(body, [...TENANCY, 'city'], ' \u00a0 ');
    });
    assertOutcome(response, {
      first_name: ['This field may not be blank.'],
      'tenant.0.city': ['This field may not be blank.'],
    });
  });

  it('control characters (a tab, a line break, an escape) are refused in any string, before other rules', async () => {
    const response = await onboardFullUser(api, (body) => {
      setPath(body, ['first_name'], '   ');
      setPath(body, [...TENANCY, 'city'], '\t');
      setPath(body, [...TENANCY, 'recipient_bank_account_name'], 'L\r\n400000,99999999,Mallory,9999.00,X');
      setPath(body, ['last_name'], 'Love\u001b[8mlace');
    });
    const control = ['Control characters (such as line breaks, tabs or escape codes) are not allowed.'];
    assertOutcome(response, {
      'tenant.0.city': control,
      'tenant.0.recipient_bank_account_name': control,
      last_name: control,
    });
  });

  it('text PostgreSQL cannot store (NUL) or that is not Unicode is a field error, not a 500', async () => {
    const response = await onboardFullUser(api, (body) => {
      setPath(body, ['last_name'], 'Love\u0000lace');
      setPath(body, [...TENANCY, 'address_1'], 'Flat \ud800 1');
      setPath(body, ['kyc', 'status'], 'pending\u0000');
    });
    assertOutcome(response, {
      last_name: ['Null characters are not allowed.'],
      'tenant.0.address_1': ['Enter valid Unicode text.'],
      'kyc.status': ['Null characters are not allowed.'],
    });
  });

  it('a paired surrogate (an emoji) is fine', async () => {
    assertOutcome(await onboardFullUser(api, (body) => setPath(body, ['first_name'], 'Ada 🏠')), undefined);
  });
});

describe('onboarding validation: values (dates, amounts, ranges, enums, identifiers, installments)', () => {
  let t: TestApp;
  let api: Api;
  before(async () => ({ t, api } = await startIntegration()));
  after(() => t.close());

  const GREATER_THAN_0 = 'Ensure this value is greater than 0.';
  const AT_LEAST_1 = 'Ensure this value is greater than or equal to 1.';
  const TWO_DECIMALS = 'Ensure this value has at most 2 decimal places.';
  const NOT_AN_AMOUNT = 'Enter the amount as a decimal string, e.g. "1200.00".';
  const NOT_AN_INTEGER = 'A valid integer is required: a whole number without quotes, e.g. 5.';
  const NOT_A_BOOLEAN = 'Must be a valid boolean: true or false, without quotes.';
  const NOT_AN_OBJECT = 'Expected an object.';

  const AMOUNT: Path = [...TENANCY, 'amount'];
  const DUE_DAY: Path = [...TENANCY, 'rent_due_day'];
  const FREQUENCY: Path = [...TENANCY, 'frequency'];
  const TOTAL_AMOUNT: Path = [...PLAN, 'total_amount'];
  const INSTALLMENT_AMOUNT: Path = [...INSTALLMENT, 'amount'];

  interface ValueCase {
    name: string;
    path: Path;
    value: unknown;
    /** undefined: the case passes with 201. */
    errors?: FieldErrors;
  }
  const passes = (name: string, path: Path, value: unknown): ValueCase => ({ name, path, value });
  /** Fails with `message` at `errorPath`, by default the path of the value itself. */
  const fails = (
    name: string,
    path: Path,
    value: unknown,
    message: string,
    errorPath = at(path),
  ): ValueCase => ({
    name,
    path,
    value,
    errors: { [errorPath]: [message] },
  });

  const valueCases: ValueCase[] = [
    // Dates must be real calendar dates.
    ...[
      ['date_of_birth'],
      [...TENANCY, 'start_rent_date'],
      [...TENANCY, 'end_rent_date'],
      [...INSTALLMENT, 'due_date'],
    ].flatMap((path) => [
      fails(`${at(path)} 2026-02-30 fails`, path, '2026-02-30', DATE_MESSAGE),
      fails(`${at(path)} 2026-02-29 fails (2026 is no leap year)`, path, '2026-02-29', DATE_MESSAGE),
      fails(`${at(path)} 2026-13-01 fails`, path, '2026-13-01', DATE_MESSAGE),
      fails(`${at(path)} 0000-01-01 fails (no year 0)`, path, '0000-01-01', DATE_MESSAGE),
      fails(`${at(path)} 2026-1-1 fails (not YYYY-MM-DD)`, path, '2026-1-1', DATE_MESSAGE),
      fails(`${at(path)} 01/02/2026 fails`, path, '01/02/2026', DATE_MESSAGE),
      fails(`${at(path)} a date-time fails`, path, '2026-01-01T00:00:00Z', DATE_MESSAGE),
    ]),
    passes('date_of_birth 2024-02-29 passes (leap year)', ['date_of_birth'], '2024-02-29'),
    passes('start_rent_date 2024-02-29 passes (leap year)', [...TENANCY, 'start_rent_date'], '2024-02-29'),
    passes('installment due_date 2024-02-29 passes (leap year)', [...INSTALLMENT, 'due_date'], '2024-02-29'),
    // end_rent_date >= start_rent_date (start is 2026-01-01).
    fails(
      'end_rent_date before start_rent_date fails',
      [...TENANCY, 'end_rent_date'],
      '2025-12-31',
      'Ensure this date is on or after start_rent_date.',
    ),
    passes('end_rent_date equal to start_rent_date passes', [...TENANCY, 'end_rent_date'], '2026-01-01'),
    // amount: a decimal string > 0 with at most 8 digits before the point and 2 after.
    ...(
      [
        ['0', GREATER_THAN_0],
        ['0.00', GREATER_THAN_0],
        ['0.0', GREATER_THAN_0],
        ['-1', GREATER_THAN_0],
        ['-0.01', GREATER_THAN_0],
        ['1.234', 'Ensure that there are no more than 2 decimal places.'],
        ['123456789.00', 'Ensure that there are no more than 8 digits before the decimal point.'],
        ['123456789', 'Ensure that there are no more than 8 digits before the decimal point.'],
        ['1,200.00', NOT_AN_AMOUNT],
        ['1e3', NOT_AN_AMOUNT],
        [' 1200.00', NOT_AN_AMOUNT],
        ['1200.', NOT_AN_AMOUNT],
        ['£1200', NOT_AN_AMOUNT],
      ] as const
    ).map(([value, message]) => fails(`amount ${JSON.stringify(value)} fails`, AMOUNT, value, message)),
    ...['12345678.99', '0.01', '1200', '1200.5', '1200.50', '00001200.00'].map((value) =>
      passes(`amount ${JSON.stringify(value)} passes`, AMOUNT, value),
    ),
    fails('amount as a JSON number fails', AMOUNT, 1200.5, 'Not a valid string: send the value in quotes.'),
    // rent_due_day 1..31.
    fails('rent_due_day 0 fails', DUE_DAY, 0, AT_LEAST_1),
    fails('rent_due_day 32 fails', DUE_DAY, 32, 'Ensure this value is less than or equal to 31.'),
    fails('rent_due_day 1.5 fails', DUE_DAY, 1.5, NOT_AN_INTEGER),
    passes('rent_due_day 1 passes', DUE_DAY, 1),
    passes('rent_due_day 31 passes', DUE_DAY, 31),
    // frequency: one of the enum.
    ...FREQUENCIES.map((value) => passes(`frequency ${value} passes`, FREQUENCY, value)),
    ...['monthly', 'EVERY_1_MONTH', 'every_6_month'].map((value) =>
      fails(`frequency ${value} fails`, FREQUENCY, value, CHOICE_MESSAGE),
    ),
    // user_id: a positive safe integer.
    fails('user_id 0 fails', ['user_id'], 0, AT_LEAST_1),
    fails('user_id -1 fails', ['user_id'], -1, AT_LEAST_1),
    fails('user_id 1.5 fails', ['user_id'], 1.5, NOT_AN_INTEGER),
    fails('user_id "5" fails', ['user_id'], '5', NOT_AN_INTEGER),
    fails(
      'user_id 2^53 fails',
      ['user_id'],
      2 ** 53,
      `Ensure this value is less than or equal to ${Number.MAX_SAFE_INTEGER}.`,
    ),
    fails('user_id null fails', ['user_id'], null, NOT_AN_INTEGER),
    // is_primary / is_active: JSON booleans only.
    fails('is_active 1 fails', [...TENANCY, 'is_active'], 1, NOT_A_BOOLEAN),
    fails('is_primary null fails', [...TENANCY, 'is_primary'], null, NOT_A_BOOLEAN),
    // tenant: at least one item.
    fails('tenant [] fails', ['tenant'], [], 'This list may not be empty.'),
    fails('tenant [null] fails', ['tenant'], [null], NOT_AN_OBJECT, 'tenant.0'),
    // kyc: the object is required, its members are not.
    passes('kyc {} passes', ['kyc'], {}),
    fails('kyc null fails', ['kyc'], null, NOT_AN_OBJECT),
    // URLs: http(s) only, no credentials.
    ...[
      [...TENANCY, 'agreement'],
      ['kyc', 'pii_front'],
    ].flatMap((path) => [
      fails(`${at(path)} relative URL fails`, path, '/agreement.pdf', 'Enter a valid URL.'),
      fails(`${at(path)} ftp URL fails`, path, 'ftp://docs.example/a.pdf', 'Enter an http or https URL.'),
      fails(
        `${at(path)} URL with credentials fails`,
        path,
        'https://user:secret@docs.example/a.pdf',
        'URLs with credentials are not allowed.',
      ),
      passes(`${at(path)} http URL passes`, path, 'http://docs.example/a.pdf'),
    ]),
    // Installment payment and installments.
    passes('installment_payment {} passes', PLAN, {}),
    passes('installments [] passes', [...PLAN, 'installments'], []),
    fails('installment_payment null fails', PLAN, null, NOT_AN_OBJECT),
    fails('total_amount 0 fails', TOTAL_AMOUNT, 0, GREATER_THAN_0),
    fails('total_amount with 3 decimals fails', TOTAL_AMOUNT, 2400.001, TWO_DECIMALS),
    passes('total_amount 2400.5 passes', TOTAL_AMOUNT, 2400.5),
    fails('installment amount 0 fails', INSTALLMENT_AMOUNT, 0, GREATER_THAN_0),
    fails('installment amount -5 fails', INSTALLMENT_AMOUNT, -5, GREATER_THAN_0),
    fails('installment amount with 3 decimals fails', INSTALLMENT_AMOUNT, 1.234, TWO_DECIMALS),
    fails('installment amount 1e-9 fails (not rounded to zero)', INSTALLMENT_AMOUNT, 1e-9, TWO_DECIMALS),
    fails(
      'installment amount 12.340000001 fails (not rounded to 12.34)',
      INSTALLMENT_AMOUNT,
      12.340000001,
      TWO_DECIMALS,
    ),
    passes('installment amount 0.01 passes', INSTALLMENT_AMOUNT, 0.01),
    fails('installment_number 0 fails', [...INSTALLMENT, 'installment_number'], 0, AT_LEAST_1),
  ];

  for (const c of valueCases) {
    it(c.name, async () => {
      assertOutcome(await onboardFullUser(api, (body) => setPath(body, c.path, c.value)), c.errors);
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
  const INSTALLMENTS = 'tenant.0.installment_payment.installments';
  const expectedNumber = (n: number) => `Installments are numbered 1, 2, 3, … without gaps: expected ${n}.`;
  const notAfter = (previous: number, dueDate: string) =>
    `Due dates must ascend: this one is not after installment ${previous}'s (${dueDate}).`;
  const [JAN, FEB, MAR] = ['2026-01-01', '2026-02-01', '2026-03-01'];
  const FIRST_TWO_RENUMBERED = {
    [`${INSTALLMENTS}.0.installment_number`]: [expectedNumber(1)],
    [`${INSTALLMENTS}.1.installment_number`]: [expectedNumber(2)],
  };
  const installmentCases: { name: string; installments: unknown[]; errors: FieldErrors }[] = [
    {
      name: 'numbering with a gap (1, 3)',
      installments: [installment(1, JAN, 1200), installment(3, FEB, 1200)],
      errors: { [`${INSTALLMENTS}.1.installment_number`]: [expectedNumber(2)] },
    },
    {
      name: 'numbering not starting at 1 (2, 3)',
      installments: [installment(2, JAN, 1200), installment(3, FEB, 1200)],
      errors: FIRST_TWO_RENUMBERED,
    },
    {
      name: 'numbering out of order (2, 1)',
      installments: [installment(2, JAN, 1200), installment(1, FEB, 1200)],
      errors: FIRST_TWO_RENUMBERED,
    },
    {
      name: 'due dates not ascending (equal)',
      installments: [installment(1, JAN, 1200), installment(2, JAN, 1200)],
      errors: { [`${INSTALLMENTS}.1.due_date`]: [notAfter(1, JAN)] },
    },
    {
      name: 'due dates descending',
      installments: [installment(1, JAN, 1200), installment(2, MAR, 1200), installment(3, FEB, 1200)],
      errors: { [`${INSTALLMENTS}.2.due_date`]: [notAfter(2, MAR)] },
    },
    {
      name: 'an amount of 0 in the third installment',
      installments: [installment(1, JAN, 1200), installment(2, FEB, 1200), installment(3, MAR, 0)],
      errors: { [`${INSTALLMENTS}.2.amount`]: [GREATER_THAN_0] },
    },
    {
      name: 'an amount with 3 decimals in the second installment',
      installments: [installment(1, JAN, 1200), installment(2, FEB, 1200.005)],
      errors: { [`${INSTALLMENTS}.1.amount`]: [TWO_DECIMALS] },
    },
  ];
  for (const c of installmentCases) {
    it(`installments: ${c.name} fails`, async () => {
      assertOutcome(
        await onboardFullUser(api, (body) => setPath(body, PLAN, planOf(c.installments))),
        c.errors,
      );
    });
  }

  it('installments: 1..3 with ascending dates and amounts > 0 pass', async () => {
    const installments = [
      installment(1, '2026-01-01', 1200),
      installment(2, '2026-01-02', 1200.5),
      installment(3, '2026-12-31', 0.01),
    ];
    assertOutcome(await onboardFullUser(api, (body) => setPath(body, PLAN, planOf(installments))), undefined);
  });

  it('unknown fields are ignored at every level (201)', async () => {
    const response = await onboardFullUser(api, (body) => {
      body.nickname = 'Ada';
      setPath(body, [...TENANCY, 'floor'], 3);
      setPath(body, [...PLAN, 'currency'], 'GBP');
      setPath(body, [...INSTALLMENT, 'note'], { any: ['thing'] });
      setPath(body, ['kyc', 'selfie_taken_at'], '2026-01-01');
    });
    assertOutcome(response, undefined);
  });

  it('an unknown field is ignored, but not text no field may hold (NUL, lone surrogates, controls)', async () => {
    assertOutcome(await onboardFullUser(api, (body) => setPath(body, ['note'], 'a\u0000b\ud800')), {
      note: ['Null characters are not allowed.'],
    });
  });
});

describe('onboarding validation: uniqueness of email, user_id and payment_reference', () => {
  let t: TestApp;
  let api: Api;
  const user = (user_id: number, email: string, payment_reference: string) =>
    userWithTenancies({ user_id, email }, { payment_reference });
  before(async () => {
    ({ t, api } = await startIntegration());
    await api.onboardOk(user(1, 'Case.Sensitive@Example.com', 'TAKEN-1'));
  });
  after(() => t.close());

  for (const email of [
    'case.sensitive@example.com',
    'CASE.SENSITIVE@EXAMPLE.COM',
    'Case.Sensitive@Example.com',
  ]) {
    it(`another user_id with the same email in any case (${email}) fails on email`, async () => {
      assertOutcome(await api.onboard(user(2, email, 'FREE-2')), { email: [EMAIL_TAKEN] });
    });
  }

  it('the same user_id may change the case of its own email', async () => {
    const response = await api.onboard(user(1, 'case.sensitive@example.com', 'TAKEN-1'));
    assert.equal(response.status, 201, JSON.stringify(response.body));
    assert.equal(response.body.updated, 1);
  });

  it('two users of one request with the same email in different case fail on the second', async () => {
    const response = await api.onboard([
      user(10, 'twin@example.com', 'T-10'),
      user(11, 'TWIN@example.com', 'T-11'),
    ]);
    assertOutcome(response, {
      '1.email': [
        'Another user in this request has this email. Give each user an email of its own (compared ignoring case).',
      ],
    });
  });

  it('the same user_id twice in one request fails on the second', async () => {
    const response = await api.onboard([
      user(12, 'a12@example.com', 'T-12'),
      user(12, 'a12@example.com', 'T-12b'),
    ]);
    assertOutcome(response, {
      '1.user_id': [
        'Duplicate user_id in this request. Send each user once, with all of their tenancies in its tenant list.',
      ],
    });
  });

  it('the same payment_reference twice in one request fails on the second', async () => {
    const response = await api.onboard(
      userWithTenancies(
        { user_id: 13, email: 'a13@example.com' },
        { payment_reference: 'T-13' },
        { payment_reference: 'T-13', address_1: 'Elsewhere' },
      ),
    );
    assertOutcome(response, {
      'tenant.1.payment_reference': [
        'Duplicate payment_reference in this request. Give each tenancy a payment_reference of its own.',
      ],
    });
  });

  it('a new user with a payment_reference already stored fails on that path', async () => {
    const response = await api.onboard(user(14, 'a14@example.com', 'TAKEN-1'));
    assertOutcome(response, { 'tenant.0.payment_reference': [REFERENCE_TAKEN] });
  });
});

describe('onboarding validation: the body as a whole', () => {
  let t: TestApp;
  let api: Api;
  before(async () => ({ t, api } = await startIntegration()));
  after(() => t.close());

  /** POST to onboarding with the integrator's token and only these headers and payload. */
  const postOnboarding = (headers: Record<string, string>, payload?: string) =>
    send(t, {
      method: 'POST',
      url: ONBOARDING,
      headers: { ...tokenHeader(api.serverToken), ...headers },
      payload,
    });

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
    await assertWritesNothing(t.db, async () =>
      assertOutcome(await api.onboard(manyUsers(501, 1, 'over')), {
        non_field_errors: ['Ensure this list has no more than 500 users; send more in further requests.'],
      }),
    );
  });

  it('500 users pass in one request', async () => {
    const added = await rowsAddedBy(t.db, async () =>
      assertAnswer(await api.onboard(manyUsers(500, 1, 'max')), 201, {
        message: 'Onboarded 500 users: 500 created, 0 updated.',
        created: 500,
        updated: 0,
        ignored: [],
      }),
    );
    // One agreement document per tenancy, one fetch job per document.
    assertFields(added, { users: 500, tenancies: 500, documents: 500, jobs: 500 });
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
    assertAnswer(await postOnboarding({}), 400, { non_field_errors: [NOT_A_USER] });
  });

  for (const [name, payload] of [
    ['truncated', '{"user_id": 1,'],
    ['single quotes', "{'user_id': 1}"],
    ['trailing comma', '[{"user_id": 1},]'],
  ] as const) {
    it(`malformed JSON (${name}) gives {"error": "invalid_json", "detail"}`, async () => {
      const response = await postOnboarding({ 'content-type': 'application/json' }, payload);
      assertError(response, 400, 'invalid_json', /not valid JSON/);
    });
  }

  for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml']) {
    it(`a wrong content type (${contentType}) gives {"error": "unsupported_content_type", "detail"}`, async () => {
      const response = await postOnboarding({ 'content-type': contentType }, JSON.stringify(fullUser().body));
      assertError(response, 400, 'unsupported_content_type');
    });
  }

  it('application/json with a charset is accepted', async () => {
    const response = await postOnboarding(
      { 'content-type': 'application/json; charset=utf-8' },
      JSON.stringify(fullUser().body),
    );
    assert.equal(response.status, 201, JSON.stringify(response.body));
  });
});

describe('onboarding validation: a bulk body with one bad item writes nothing', () => {
  let t: TestApp;
  let api: Api;
  const existingUser = userWithTenancies(
    { user_id: 1, email: 'existing@example.com' },
    { payment_reference: 'OLD-1' },
  );
  before(async () => {
    ({ t, api } = await startIntegration());
    await api.onboardOk(existingUser);
  });
  after(() => t.close());

  const bulk = (prefix: string) => manyUsers(5, 1_000, prefix);

  const badItems: { name: string; spoil: (items: Body[]) => void; errors: FieldErrors }[] = [
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
      errors: { '4.tenant.0.payment_reference': [REFERENCE_TAKEN] },
    },
    {
      name: 'a stored email reused by item 2 under another user_id (found only in the database)',
      spoil: (items) => setPath(items[2], ['email'], 'EXISTING@example.com'),
      errors: { '2.email': [EMAIL_TAKEN] },
    },
  ];

  for (const c of badItems) {
    it(`${c.name}: 400 on that item's path, no rows in users, tenancies, documents or jobs`, async () => {
      await assertWritesNothing(t.db, async () => {
        const items = bulk(c.name.replace(/\W+/g, '').slice(0, 12));
        c.spoil(items);
        assertOutcome(await api.onboard(items), c.errors);
      });
    });
  }

  it('the same bulk without the bad item writes all five users', async () => {
    const added = await rowsAddedBy(t.db, async () => {
      const response = await api.onboard(bulk('clean'));
      assert.equal(response.status, 201, JSON.stringify(response.body));
    });
    assertFields(added, { users: 5, tenancies: 5, documents: 5, jobs: 5 });
  });

  it('an update of an existing user in a bulk with a bad item is rolled back too', async () => {
    const items = [
      { ...existingUser, first_name: 'Changed' },
      userWithTenancies({ user_id: 2, email: 'new2@example.com' }, { payment_reference: 'OLD-1' }),
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
