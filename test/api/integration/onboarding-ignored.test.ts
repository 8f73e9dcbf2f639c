/**
 * Onboarding tells what it ignored: the 201 lists, by dotted path and in request order, the fields sent for an
 * existing tenancy that differ from the stored ones but may not change. Over real HTTP, with the stored rows
 * checked in the database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import type { Db, Queryable } from '../../../src/platform/db/db.ts';
import { FREQUENCIES } from '../../../src/shared/vocabulary.ts';
import { UNLIMITED } from '../../support/api-client.ts';
import {
  DEFAULT_BANK_ACCOUNT,
  installment,
  tenancyBody,
  twoInstallmentPlan,
  userBody,
  userWithTenancies,
} from '../../support/fixtures.ts';
import {
  createTestDatabase,
  startTestApp,
  type TestApp,
  type TestDatabase,
  tokenHeader,
} from '../../support/helpers.ts';

interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: a JSON answer, asserted on field by field
  body: any;
}

/**
 * A JSON number written exactly as `text` (e.g. "1.2e3", where JSON.stringify would write 1200), for a body that
 * goes through bodyText.
 */
const number = (text: string) => `@number:${text}@`;
const bodyText = (body: unknown) => JSON.stringify(body).replace(/"@number:([^@"]+)@"/g, '$1');

/** `db` with every statement sent through it (or a transaction of it) recorded in `statements`. */
function recording<Q extends Queryable>(db: Q, statements: string[]): Q {
  return new Proxy(db, {
    get(target, property) {
      if (property === 'query') {
        return (...args: Parameters<Queryable['query']>) => {
          statements.push(args[0]);
          return target.query(...args);
        };
      }
      if (property === 'transaction') {
        return (fn: (tx: Queryable) => Promise<unknown>) =>
          (target as unknown as Db).transaction((tx) => fn(recording(tx, statements)));
      }
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/** The columns an existing tenancy's update may change; every other one must stay as stored. */
const CHANGEABLE_COLUMNS = ['end_rent_date', 'amount_pence', 'frequency', 'updated_at'];

describe('onboarding: the 201 lists what it ignored', () => {
  let database: TestDatabase;
  let db: Db;
  let t: TestApp;
  let baseUrl: string;
  let headers: Record<string, string>;
  const statements: string[] = [];
  let users = 0;

  before(async () => {
    database = await createTestDatabase();
    db = await database.open();
    t = await startTestApp({ database, db: recording(db, statements) });
    baseUrl = await t.app.listen({ port: 0, host: '127.0.0.1' });
    const { token } = await t.createIntegrator(UNLIMITED);
    headers = { ...tokenHeader(token), 'content-type': 'application/json' };
  });
  after(async () => {
    await t.close();
    await db.close();
    await database.drop();
  });

  async function request(method: string, path: string, body?: unknown): Promise<Answer> {
    const response = await fetch(`${baseUrl}/api/third-party${path}`, {
      method,
      headers,
      ...(body === undefined ? {} : { body: bodyText(body) }),
    });
    return { status: response.status, body: await response.json() };
  }

  /** Onboards `body`, asserts a 201 and returns its `ignored`. */
  async function ignoredBy(body: unknown): Promise<string[]> {
    const answer = await request('POST', '/onboarding/', body);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body), ['message', 'created', 'updated', 'ignored']);
    return answer.body.ignored;
  }

  /** user-login then the session query, over HTTP: the tenancy and bank account the session shows. */
  async function sessionView(email: string, paymentReference: string) {
    const login = await request('POST', '/user-login/', { email, payment_reference: paymentReference });
    assert.equal(login.status, 200, JSON.stringify(login.body));
    const session = await request('GET', `/session/${login.body.session_id}/`);
    assert.equal(session.status, 200, JSON.stringify(session.body));
    return session.body;
  }

  /** A stored tenancy row as JSON, without the columns an update may change. */
  async function fixedColumns(paymentReference: string): Promise<Record<string, unknown>> {
    const [row] = await db.query<{ fixed: Record<string, unknown> }>(
      `SELECT to_jsonb(t) - ARRAY(SELECT jsonb_array_elements_text($2::jsonb)) AS fixed
         FROM tenancies t WHERE payment_reference = $1`,
      [paymentReference, CHANGEABLE_COLUMNS],
    );
    assert.ok(row, `tenancy ${paymentReference}`);
    return row.fixed;
  }

  /** The body of a user not onboarded yet, with one tenancy. */
  function newUser(): Record<string, unknown> {
    const userId = 9000 + ++users;
    return userWithTenancies(
      { user_id: userId, email: `ignored-${userId}@example.com` },
      { payment_reference: `IGN-${userId}` },
    );
  }

  /**
   * A new user onboarded with one tenancy (tenancyBody() with `tenancy` over it; nothing ignored), and builders of
   * later bodies of the same user.
   */
  async function existingUser(tenancy: Record<string, unknown> = {}) {
    const userId = 9000 + ++users;
    const reference = `IGN-${userId}`;
    const email = `ignored-${userId}@example.com`;
    const stored = tenancyBody({ payment_reference: reference, ...tenancy });
    const body = (...tenancies: Record<string, unknown>[]) =>
      userBody({ user_id: userId, email, tenant: tenancies });
    assert.deepEqual(await ignoredBy(body(stored)), [], 'a new user and tenancy ignore nothing');
    return {
      email,
      reference,
      stored,
      body,
      /** The stored tenancy with `changes` over it, its fields in stored order. */
      sent: (changes: Record<string, unknown>) => ({ ...stored, ...changes }),
    };
  }

  /** Runs `action` and asserts it left `reference`'s tenancy as stored, except what an update may change. */
  async function assertFixedColumnsKept(reference: string, action: () => Promise<unknown>) {
    const before = await fixedColumns(reference);
    await action();
    assert.deepEqual(await fixedColumns(reference), before);
  }

  it('new users and new tenancies list nothing: ignored is [] in a single and in an array body', async () => {
    const user = await existingUser();
    const second = tenancyBody({ payment_reference: `${user.reference}-2`, start_rent_date: '2026-05-01' });
    assert.deepEqual(await ignoredBy(user.body(user.stored, second)), [], 'an existing user’s new tenancy');
    assert.deepEqual(await ignoredBy([newUser(), newUser()]), []);
  });

  it('lists a changed is_active, address fields, bank fields and rent_due_day; the tenancy keeps them', async () => {
    const user = await existingUser();
    const changes = {
      post_code: 'M1 1AA',
      city: 'Manchester',
      country: 'France',
      rent_due_day: 15,
      is_active: false,
      recipient_bank_sort_code: '99-99-99',
      recipient_bank_account_number: '99999999',
      recipient_bank_account_name: 'Someone Else',
    };
    await assertFixedColumnsKept(user.reference, async () => {
      assert.deepEqual(await ignoredBy(user.body(user.sent(changes))), [
        'tenant.0.post_code',
        'tenant.0.city',
        'tenant.0.country',
        'tenant.0.rent_due_day',
        'tenant.0.is_active',
        'tenant.0.recipient_bank_sort_code',
        'tenant.0.recipient_bank_account_number',
        'tenant.0.recipient_bank_account_name',
      ]);
    });
    const view = await sessionView(user.email, user.reference);
    for (const field of ['post_code', 'city', 'country', 'rent_due_day', 'is_active'] as const) {
      assert.equal(view.tenancy[field], user.stored[field], field);
    }
    assert.deepEqual(view.bank_account, DEFAULT_BANK_ACCOUNT);
  });

  it('lists is_primary and the agreement URL too (a new agreement URL is not fetched)', async () => {
    const user = await existingUser();
    await assertFixedColumnsKept(user.reference, async () => {
      const sent = user.sent({ is_primary: false, agreement: 'https://docs.example/v2.pdf' });
      assert.deepEqual(await ignoredBy(user.body(sent)), ['tenant.0.is_primary', 'tenant.0.agreement']);
    });
  });

  it('never lists end_rent_date, amount or frequency, which change', async () => {
    const user = await existingUser();
    const allowed = { end_rent_date: '2027-06-30', amount: '1350.50', frequency: 'every_3_month' };
    await assertFixedColumnsKept(user.reference, async () => {
      assert.deepEqual(await ignoredBy(user.body(user.sent({ ...allowed, city: 'Leeds' }))), [
        'tenant.0.city',
      ]);
    });
    const view = await sessionView(user.email, user.reference);
    assert.deepEqual(
      {
        end_rent_date: view.tenancy.end_rent_date,
        amount: view.tenancy.amount,
        frequency: view.tenancy.frequency,
      },
      allowed,
    );
  });

  it('the same values in another form are equal: numbers as written differently, the same amount', async () => {
    const user = await existingUser({ installment_payment: twoInstallmentPlan(1200) });
    const sameInOtherForms = user.body(
      user.sent({
        amount: '1200',
        rent_due_day: number('1.0'),
        installment_payment: {
          total_amount: number('2.4e3'),
          installments: [
            { installment_number: 1, due_date: '2026-01-01', amount: number('1200.00') },
            { installment_number: number('2.0'), due_date: '2026-07-01', amount: number('1.2E+3') },
          ],
        },
      }),
    );
    assert.match(bodyText(sameInOtherForms), /"total_amount":2\.4e3/);
    await assertFixedColumnsKept(user.reference, async () => {
      assert.deepEqual(await ignoredBy(sameInOtherForms), []);
    });
  });

  it('text is compared as stored, case included: "LONDON" for "London" is listed', async () => {
    const user = await existingUser();
    assert.deepEqual(await ignoredBy(user.body(user.sent({ city: 'LONDON', country: 'united kingdom' }))), [
      'tenant.0.city',
      'tenant.0.country',
    ]);
    assert.equal((await sessionView(user.email, user.reference)).tenancy.city, 'London');
  });

  it('unknown fields are never listed, at any depth, whatever their name', async () => {
    const user = await existingUser({ installment_payment: twoInstallmentPlan(1200) });
    const plan = twoInstallmentPlan(1200);
    const sent = {
      nickname: 'not a field',
      constructor: 'x',
      toString: 1,
      hasOwnProperty: true,
      ...user.stored,
      valueOf: 2,
      installment_payment: {
        currency: 'GBP',
        constructor: 'x',
        ...plan,
        installments: [{ ...plan.installments[0], note: 'first', toString: 'x' }, plan.installments[1]],
      },
    };
    const body = { ...user.body(sent), nickname: 'user-level', hasOwnProperty: 1 };
    assert.deepEqual(await ignoredBy(body), []);
  });

  it('follows the request order: the fields as sent, then the next tenancy, then the next user', async () => {
    const a = await existingUser({ installment_payment: twoInstallmentPlan(1200) });
    const b = await existingUser();
    const { is_active: _active, city: _city, installment_payment: storedPlan, ...rest } = a.stored;
    const aSent = {
      is_active: false,
      installment_payment: {
        installments: [installment(1, '2026-01-01', 999), installment(2, '2026-07-01', 1200)],
        total_amount: 1,
      },
      ...rest,
      rent_due_day: 20,
      city: 'Leeds',
    };
    assert.ok(storedPlan);
    const bNew = tenancyBody({ payment_reference: `${b.reference}-NEW`, start_rent_date: '2026-09-01' });
    const answer = await ignoredBy([
      b.body(bNew, b.sent({ recipient_bank_account_name: 'Z', post_code: 'A1' })),
      a.body(aSent),
    ]);
    assert.deepEqual(answer, [
      '0.tenant.1.post_code',
      '0.tenant.1.recipient_bank_account_name',
      '1.tenant.0.is_active',
      '1.tenant.0.installment_payment.installments.0.amount',
      '1.tenant.0.installment_payment.total_amount',
      '1.tenant.0.rent_due_day',
      '1.tenant.0.city',
    ]);
  });

  it('an array body prefixes the user’s index; new users and tenancies beside existing ones add nothing', async () => {
    const a = await existingUser();
    const b = await existingUser();
    const answer = await request('POST', '/onboarding/', [
      newUser(),
      a.body(a.sent({ is_active: false })),
      b.body(tenancyBody({ payment_reference: `${b.reference}-2`, start_rent_date: '2026-03-01' }), b.stored),
    ]);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      message: 'Onboarded 3 users: 1 created, 2 updated.',
      created: 1,
      updated: 2,
      ignored: ['1.tenant.0.is_active'],
    });
  });

  describe('installment plans: an existing tenancy’s plan may not change', () => {
    it('lists each sent leaf that differs from the stored installment at the same position', async () => {
      const user = await existingUser({ installment_payment: twoInstallmentPlan(1200) });
      const plan = {
        total_amount: 2400,
        installments: [installment(1, '2026-02-01', 1200), installment(2, '2026-07-01', 1250.5)],
      };
      await assertFixedColumnsKept(user.reference, async () => {
        assert.deepEqual(await ignoredBy(user.body(user.sent({ installment_payment: plan }))), [
          'tenant.0.installment_payment.installments.0.due_date',
          'tenant.0.installment_payment.installments.1.amount',
        ]);
      });
      const view = await sessionView(user.email, user.reference);
      assert.deepEqual(view.tenancy.installment_payment, twoInstallmentPlan(1200));
    });

    it('an installment beyond the stored ones lists each of its leaves', async () => {
      const user = await existingUser({ installment_payment: twoInstallmentPlan(1200) });
      const plan = {
        total_amount: 3600,
        installments: [...twoInstallmentPlan(1200).installments, installment(3, '2026-12-01', 1200)],
      };
      await assertFixedColumnsKept(user.reference, async () => {
        assert.deepEqual(await ignoredBy(user.body(user.sent({ installment_payment: plan }))), [
          'tenant.0.installment_payment.total_amount',
          'tenant.0.installment_payment.installments.2.installment_number',
          'tenant.0.installment_payment.installments.2.due_date',
          'tenant.0.installment_payment.installments.2.amount',
        ]);
      });
    });

    it('a plan sent where none is stored lists every leaf sent; none is stored', async () => {
      const user = await existingUser();
      const plan = { installments: [installment(1, '2026-03-01', 600)], total_amount: 600 };
      await assertFixedColumnsKept(user.reference, async () => {
        assert.deepEqual(await ignoredBy(user.body(user.sent({ installment_payment: plan }))), [
          'tenant.0.installment_payment.installments.0.installment_number',
          'tenant.0.installment_payment.installments.0.due_date',
          'tenant.0.installment_payment.installments.0.amount',
          'tenant.0.installment_payment.total_amount',
        ]);
      });
      assert.equal((await sessionView(user.email, user.reference)).tenancy.installment_payment, undefined);
    });

    it('a total_amount sent where the stored plan has none is listed', async () => {
      const { installments } = twoInstallmentPlan(1200);
      const user = await existingUser({ installment_payment: { installments } });
      const sent = user.sent({ installment_payment: { total_amount: 2400, installments } });
      assert.deepEqual(await ignoredBy(user.body(sent)), ['tenant.0.installment_payment.total_amount']);
    });

    it('what is not sent is not listed: no total_amount, fewer installments, an empty plan, no plan', async () => {
      const user = await existingUser({ installment_payment: twoInstallmentPlan(1200) });
      const [first] = twoInstallmentPlan(1200).installments;
      const { installment_payment: _plan, ...withoutPlan } = user.stored;
      await assertFixedColumnsKept(user.reference, async () => {
        for (const plan of [{ installments: [first] }, { installments: [] }, {}]) {
          assert.deepEqual(
            await ignoredBy(user.body(user.sent({ installment_payment: plan }))),
            [],
            JSON.stringify(plan),
          );
        }
        assert.deepEqual(await ignoredBy(user.body(withoutPlan)), [], 'no installment_payment');
      });
      const view = await sessionView(user.email, user.reference);
      assert.deepEqual(view.tenancy.installment_payment, twoInstallmentPlan(1200));
    });
  });

  it('property: exactly the sent fields that differ from the stored ones and may not change, in sent order', async () => {
    const user = await existingUser({ installment_payment: twoInstallmentPlan(1200) });
    const stored: Record<string, unknown> = user.stored;
    const text = (field: string) => fc.constantFrom(stored[field], `${stored[field]}`.toUpperCase(), 'Other');
    /** Per field: values to send, the stored one among them. Identity fields stay; the changeable ones vary. */
    const values: Record<string, fc.Arbitrary<unknown>> = {
      address_1: fc.constant(stored.address_1),
      start_rent_date: fc.constant(stored.start_rent_date),
      payment_reference: fc.constant(stored.payment_reference),
      post_code: text('post_code'),
      city: text('city'),
      country: text('country'),
      recipient_bank_sort_code: text('recipient_bank_sort_code'),
      recipient_bank_account_number: text('recipient_bank_account_number'),
      recipient_bank_account_name: text('recipient_bank_account_name'),
      is_primary: fc.boolean(),
      is_active: fc.boolean(),
      rent_due_day: fc.integer({ min: 1, max: 31 }),
      agreement: fc.constantFrom(stored.agreement, 'https://docs.example/other.pdf'),
      end_rent_date: fc.constantFrom('2026-12-31', '2027-06-30'),
      amount: fc.constantFrom('1200', '1200.00', '1300.50'),
      frequency: fc.constantFrom(...FREQUENCIES),
      nickname: fc.string(),
    };
    const [first, second] = twoInstallmentPlan(1200).installments;
    // Due dates ascend whichever is picked; a third installment is beyond the stored two.
    const dueDates = [
      [first!.due_date, '2026-02-01'],
      [second!.due_date, '2026-08-01'],
      ['2026-12-01', '2026-12-02'],
    ] as const;
    const plan = fc.record(
      {
        total_amount: fc.constantFrom(2400, 2500),
        installments: fc
          .tuple(...dueDates.map((dates) => fc.tuple(fc.constantFrom(...dates), fc.constantFrom(1200, 1300))))
          .chain((all) => fc.integer({ min: 0, max: 3 }).map((n) => all.slice(0, n))),
      },
      { requiredKeys: [] },
    );
    const tenancy = fc
      .record({ ...values, installment_payment: fc.option(plan, { nil: undefined }) })
      .chain((record) => {
        const keys = Object.keys(record).filter((key) => record[key as keyof typeof record] !== undefined);
        return fc
          .shuffledSubarray(keys, { minLength: keys.length })
          .map((order) => Object.fromEntries(order.map((key) => [key, record[key as keyof typeof record]])));
      });

    await assertFixedColumnsKept(user.reference, async () => {
      await fc.assert(
        fc.asyncProperty(tenancy, async (generated) => {
          const expected: string[] = [];
          const sent: Record<string, unknown> = {};
          for (const [field, value] of Object.entries(generated)) {
            if (field !== 'installment_payment') {
              sent[field] = value;
              const fixed = field in stored && !['end_rent_date', 'amount', 'frequency'].includes(field);
              if (fixed && value !== stored[field]) expected.push(`tenant.0.${field}`);
              continue;
            }
            const { total_amount, installments } = value as {
              total_amount?: number;
              installments?: [string, number][];
            };
            const path = 'tenant.0.installment_payment';
            sent[field] = {
              ...(total_amount === undefined ? {} : { total_amount }),
              ...(installments
                ? { installments: installments.map(([due, amount], i) => installment(i + 1, due, amount)) }
                : {}),
            };
            if (total_amount !== undefined && total_amount !== 2400) expected.push(`${path}.total_amount`);
            installments?.forEach(([due, amount], i) => {
              const at = `${path}.installments.${i}`;
              if (i >= 2) expected.push(`${at}.installment_number`);
              if (i >= 2 || due !== dueDates[i]![0]) expected.push(`${at}.due_date`);
              if (i >= 2 || amount !== 1200) expected.push(`${at}.amount`);
            });
          }
          assert.deepEqual(await ignoredBy(user.body(sent)), expected);
        }),
        { seed: 20_261_124, numRuns: 150 },
      );
    });
  });

  it('reads the stored tenancies in the lookup onboarding already does, however many users are sent', async () => {
    const tenancyStatements = async (count: number) => {
      const existing = [];
      for (let i = 0; i < count; i++)
        existing.push(await existingUser({ installment_payment: twoInstallmentPlan(1200) }));
      const changed = existing.map((user) =>
        user.body(user.sent({ is_active: false, installment_payment: twoInstallmentPlan(1300) })),
      );
      const from = statements.length;
      const ignored = await ignoredBy(changed);
      assert.equal(ignored.length, count * 4);
      return statements.slice(from).filter((sql) => /\btenancies\b/.test(sql));
    };
    const one = await tenancyStatements(1);
    const many = await tenancyStatements(25);
    assert.equal(many.length, one.length, many.join('\n---\n'));
    assert.equal(one.filter((sql) => /^\s*SELECT\b[\s\S]*\bFROM tenancies\b/.test(sql)).length, 1);
  });

  it('is described in the OpenAPI document', async () => {
    const doc = await (await fetch(`${baseUrl}/api/third-party/openapi.json`)).json();
    const schema =
      doc.paths['/api/third-party/onboarding/'].post.responses['201'].content['application/json'].schema;
    assert.ok(schema.required.includes('ignored'));
    assert.equal(schema.properties.ignored.type, 'array');
    assert.match(schema.properties.ignored.description, /existing tenancy/);
  });
});
