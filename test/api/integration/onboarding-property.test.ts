import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { TENANCY_TEXT_FIELDS } from '../../../src/onboarding/schemas.ts';
import { FREQUENCIES } from '../../../src/shared/vocabulary.ts';
import {
  type Answer,
  type Api,
  countRows,
  deletePath,
  setPath,
  startIntegration,
} from '../../support/api-client.ts';
import { tenancyBody, twoInstallmentPlan, userBody, userWithTenancies } from '../../support/fixtures.ts';
import type { TestApp } from '../../support/helpers.ts';

/** Fixed: a failure reproduces with the same inputs on every machine. */
const SEED = 20_260_301;
const RUNS = 1_000;

// ---------------------------------------------------------------------------------------------------------
// Arbitraries
// ---------------------------------------------------------------------------------------------------------

/** Any UTF-16 code unit, unpaired surrogates and NUL included (and often): text a JSON body can carry. */
const codeUnit = fc.oneof(
  { weight: 6, arbitrary: fc.nat(0xffff).map((c) => String.fromCharCode(c)) },
  { weight: 1, arbitrary: fc.constantFrom('\u0000', '\ud800', '\udc00') },
);
const weirdString = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 30 }),
  fc.string({ unit: codeUnit, minLength: 1, maxLength: 30 }),
  fc.constantFrom('\u0000', 'a\u0000b', '\ud800', 'x\udc00y', '\ud83c\udfe0', ' ', '\t\n', '💷'),
);

/** Values chosen to sit on or next to the rules' edges. */
const edgeValue = fc.constantFrom<unknown>(
  '',
  ' ',
  '0',
  '0.00',
  '-1',
  '1.234',
  '1200',
  '12345678.99',
  '123456789.00',
  '2024-02-29',
  '2026-02-29',
  '2026-02-30',
  '0000-01-01',
  '0001-01-01',
  '9999-12-31',
  '2026-01-01T00:00:00Z',
  0,
  -1,
  1,
  1.5,
  1e-9,
  0.01,
  31,
  32,
  2 ** 53,
  Number.MAX_SAFE_INTEGER,
  99_999_999.99,
  1e300,
  true,
  false,
  null,
  [],
  {},
  'https://docs.example/a.pdf',
  'http://user:pw@docs.example/a.pdf',
  'ftp://docs.example/a.pdf',
  'javascript:alert(1)',
  'every_year',
  'x'.repeat(255),
  `${'a'.repeat(64)}@example.com`,
  ...FREQUENCIES,
);

const replacement = fc.oneof(
  { weight: 3, arbitrary: edgeValue },
  { weight: 2, arbitrary: weirdString },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const TENANCY = ['tenant', 0] as const;
const PLAN = [...TENANCY, 'installment_payment'] as const;
const INSTALLMENT = [...PLAN, 'installments', 0] as const;
const PATHS: readonly (readonly (string | number)[])[] = [
  [],
  ['user_id'],
  ['email'],
  ['first_name'],
  ['last_name'],
  ['phone_number'],
  ['date_of_birth'],
  ['tenant'],
  ['kyc'],
  ['kyc', 'pii_front'],
  ['kyc', 'pii_back'],
  ['kyc', 'photo'],
  ['kyc', 'status'],
  TENANCY,
  ...[
    'post_code',
    'address_1',
    'city',
    'country',
    'is_primary',
    'start_rent_date',
    'end_rent_date',
    'rent_due_day',
    'amount',
    'frequency',
    'is_active',
    'payment_reference',
    'recipient_bank_sort_code',
    'recipient_bank_account_number',
    'recipient_bank_account_name',
    'agreement',
    'installment_payment',
  ].map((field) => [...TENANCY, field]),
  [...PLAN, 'total_amount'],
  [...PLAN, 'installments'],
  INSTALLMENT,
  [...INSTALLMENT, 'installment_number'],
  [...INSTALLMENT, 'due_date'],
  [...INSTALLMENT, 'amount'],
  ['unknown_field'],
  [...TENANCY, 'unknown_field'],
];

interface Mutation {
  path: readonly (string | number)[];
  op: { kind: 'delete' } | { kind: 'set'; value: unknown };
}

const mutation: fc.Arbitrary<Mutation> = fc.record({
  path: fc.constantFrom(...PATHS.filter((p) => p.length > 0)),
  op: fc.oneof(
    fc.constant({ kind: 'delete' as const }),
    replacement.map((value) => ({ kind: 'set' as const, value })),
  ),
});

/** One stored text field replaced by odd text: the rest of the user stays valid, so the text reaches the database. */
const TEXT_PATHS: readonly (readonly (string | number)[])[] = [
  ['first_name'],
  ['last_name'],
  ['phone_number'],
  ['kyc', 'status'],
  ...TENANCY_TEXT_FIELDS.map((field) => [...TENANCY, field]),
];
const textMutation: fc.Arbitrary<Mutation> = fc.record({
  path: fc.constantFrom(...TEXT_PATHS),
  op: weirdString.map((value) => ({ kind: 'set' as const, value: value.slice(0, 20) })),
});

/** One date replaced by a date at the edges of the calendar. */
const DATE_PATHS = [
  ['date_of_birth'],
  [...TENANCY, 'start_rent_date'],
  [...TENANCY, 'end_rent_date'],
  [...INSTALLMENT, 'due_date'],
];
const dateMutation: fc.Arbitrary<Mutation> = fc.record({
  path: fc.constantFrom(...DATE_PATHS),
  op: fc
    .constantFrom('0000-01-01', '0000-02-29', '0001-01-01', '1900-02-28', '2000-02-29', '9999-12-31')
    .map((value) => ({ kind: 'set' as const, value })),
});

/**
 * A valid user: its email and references mostly its own (in varying case), sometimes borrowed from a small
 * shared pool, so that runs create, update, collide on email and reuse references; two addresses and start
 * dates, so a re-sent tenancy is sometimes the same one and sometimes new. Then, in most runs: one stored text
 * field replaced by odd text, one date by an edge date, or one to three fields replaced by edge values, odd
 * text or any JSON, or deleted.
 */
const userSeed = fc.record({
  userId: fc.integer({ min: 1, max: 40 }),
  upperCaseEmail: fc.boolean(),
  sharedEmail: fc.oneof(
    { weight: 8, arbitrary: fc.constant(null) },
    { weight: 1, arbitrary: fc.constantFrom('shared@example.com', 'SHARED@example.com') },
  ),
  reference: fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('own-1', 'own-2') },
    { weight: 1, arbitrary: fc.constantFrom('SHARED-1', 'SHARED-2') },
  ),
  address: fc.constantFrom('1 High Street', '2 High Street'),
  start: fc.constantFrom('2026-01-01', '2026-02-01'),
  withPlan: fc.boolean(),
  kyc: fc.constantFrom<Record<string, unknown>>(
    {},
    { pii_front: 'https://docs.example/f1.jpg' },
    { pii_front: 'https://docs.example/f2.jpg', photo: null },
    { pii_front: null, status: 'verified' },
  ),
  mutations: fc.oneof(
    { weight: 2, arbitrary: fc.constant<Mutation[]>([]) },
    { weight: 2, arbitrary: textMutation.map((m) => [m]) },
    { weight: 1, arbitrary: dateMutation.map((m) => [m]) },
    { weight: 2, arbitrary: fc.array(mutation, { minLength: 1, maxLength: 3 }) },
  ),
});

function toBody(seed: typeof userSeed extends fc.Arbitrary<infer T> ? T : never): Record<string, unknown> {
  const { userId, upperCaseEmail, sharedEmail, reference, address, start, withPlan, kyc, mutations } = seed;
  const ownEmail = `user-${userId}@example.com`;
  const body: Record<string, unknown> = userBody({
    user_id: userId,
    email: sharedEmail ?? (upperCaseEmail ? ownEmail.toUpperCase() : ownEmail),
    // Copies throughout: fast-check hands out the same constant objects run after run, and the mutations
    // below must not change them for later runs.
    kyc: structuredClone(kyc),
    tenant: [
      tenancyBody({
        payment_reference: reference.startsWith('own') ? `U${userId}-${reference}` : reference,
        address_1: address,
        start_rent_date: start,
        ...(withPlan ? { installment_payment: twoInstallmentPlan() } : {}),
      }),
    ],
  });
  for (const { path, op } of mutations) {
    try {
      if (op.kind === 'delete') deletePath(body, path);
      else setPath(body, path, structuredClone(op.value));
    } catch {
      // An earlier mutation removed or replaced the parent: nothing to change.
    }
  }
  return body;
}

const onboardingBody = fc.oneof(
  { weight: 3, arbitrary: userSeed.map(toBody) },
  {
    weight: 3,
    arbitrary: fc
      .uniqueArray(userSeed, { selector: (seed) => seed.userId, minLength: 1, maxLength: 4 })
      .map((seeds) => seeds.map(toBody)),
  },
);

// ---------------------------------------------------------------------------------------------------------
// The property: never a 5xx; a 4xx writes nothing and answers in one of the two documented error shapes
// (`{error, detail}`, or field errors).
// ---------------------------------------------------------------------------------------------------------

function assertErrorShape(response: Answer) {
  const body = response.body;
  assert.ok(body !== null && typeof body === 'object' && !Array.isArray(body), JSON.stringify(body));
  const keys = Object.keys(body);
  assert.ok(keys.length > 0, 'an error names at least one problem');
  const isErrorDetail =
    keys.length === 2 && typeof body.error === 'string' && typeof body.detail === 'string';
  const isFieldErrors = Object.values(body).every(
    (messages) =>
      Array.isArray(messages) &&
      messages.length > 0 &&
      messages.every((m) => typeof m === 'string' && m !== ''),
  );
  assert.ok(isErrorDetail || isFieldErrors, `not a documented error shape: ${JSON.stringify(body)}`);
}

async function checkRequest(
  t: TestApp,
  send: () => Promise<Answer>,
  statuses: Map<number, number>,
): Promise<void> {
  const before = await countRows(t.db);
  const response = await send();
  statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
  assert.ok(response.status < 500, `${response.status} ${JSON.stringify(response.body)}`);
  if (response.status >= 400) {
    assertErrorShape(response);
    assert.deepEqual(await countRows(t.db), before, `a ${response.status} changed the database`);
  }
}

/** Checks the property for RUNS bodies drawn from `bodies`; returns how many times each status was answered. */
async function checkProperty(
  t: TestApp,
  bodies: fc.Arbitrary<unknown>,
  send: (body: unknown) => Promise<Answer>,
): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  await fc.assert(
    fc.asyncProperty(bodies, (body) => checkRequest(t, () => send(body), statuses)),
    { seed: SEED, numRuns: RUNS },
  );
  return statuses;
}

const summary = (statuses: Map<number, number>) => JSON.stringify(Object.fromEntries(statuses));

describe('property: onboarding never answers 5xx, and a 4xx writes nothing', () => {
  let t: TestApp;
  let api: Api;
  before(async () => ({ t, api } = await startIntegration()));
  after(() => t.close());

  it(`arbitrary JSON bodies (${RUNS} runs, seed ${SEED})`, async () => {
    const anyJson = fc.oneof(fc.jsonValue(), fc.jsonValue({ stringUnit: 'binary' }));
    const statuses = await checkProperty(t, anyJson, (body) => api.onboard(body));
    assert.equal([...statuses.values()].reduce((a, b) => a + b, 0) >= RUNS, true);
  });

  it(`valid users with fields replaced or deleted, alone or in arrays (${RUNS} runs, seed ${SEED})`, async () => {
    const statuses = await checkProperty(t, onboardingBody, (body) => api.onboard(body));
    // Not vacuous: plenty of requests passed (creating and updating) and plenty failed.
    assert.ok((statuses.get(201) ?? 0) >= 100, summary(statuses));
    assert.ok((statuses.get(400) ?? 0) >= 100, summary(statuses));
  });
});

describe('property: user-login never answers 5xx, and a 4xx writes nothing', () => {
  let t: TestApp;
  let api: Api;
  const emails = ['one@example.com', 'ONE@example.com', 'two@example.com', 'nobody@example.com'];
  const references = ['L-1', 'L-2', 'L-3', 'l-1', 'NONE'];
  before(async () => {
    ({ t, api } = await startIntegration());
    await api.onboardOk([
      userWithTenancies(
        { user_id: 1, email: 'one@example.com' },
        { payment_reference: 'L-1' },
        { payment_reference: 'L-2', address_1: 'Old Road', is_active: false },
      ),
      userWithTenancies(
        { user_id: 2, email: 'two@example.com' },
        { payment_reference: 'L-3', is_active: false },
      ),
    ]);
  });
  after(() => t.close());

  const loginBody = fc.oneof(
    { weight: 1, arbitrary: fc.jsonValue() },
    { weight: 1, arbitrary: fc.jsonValue({ stringUnit: 'binary' }) },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          email: fc.oneof(
            { weight: 6, arbitrary: fc.constantFrom(...emails) },
            { weight: 1, arbitrary: weirdString },
            { weight: 1, arbitrary: replacement },
          ),
          payment_reference: fc.oneof(
            { weight: 6, arbitrary: fc.constantFrom(...references) },
            { weight: 1, arbitrary: weirdString },
            { weight: 1, arbitrary: replacement },
          ),
          other: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      ),
    },
  );

  it(`arbitrary and near-valid bodies (${RUNS} runs, seed ${SEED})`, async () => {
    const statuses = await checkProperty(t, loginBody, (body) => api.login(body));
    for (const status of [200, 400, 404]) assert.ok((statuses.get(status) ?? 0) >= 20, summary(statuses));
  });
});
