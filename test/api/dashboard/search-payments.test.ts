import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Answer, assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  anotherPlatform,
  onboardTenants,
  operatorStaff,
  type PaymentsDashboard,
  seedPayments,
  signInEveryoneAgain,
  startPaymentsDashboard,
} from '../../support/dashboard-payments.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import { newTenant, PAN, type Tenant, walletToken } from '../../support/payment-client.ts';

describe('GET /api/dashboard/payments/ (searchPayments)', () => {
  let d: PaymentsDashboard;
  let ann: Tenant;
  let bob: Tenant;
  /** Payment ids: Ann's visa, Bob's declined card, Ann's Apple Pay, Bob's Alipay (waiting), Cat's at 00:30 in London. */
  const made: Record<string, string> = {};
  before(async () => {
    d = await startPaymentsDashboard();
    ann = await newTenant(d.t, d.api);
    bob = await newTenant(d.t, d.api);
    made.visa = (await cardPayment(d.t, ann.client)).payment_id;
    d.t.clock.advance(1000);
    made.declined = (await cardPayment(d.t, bob.client, '4000000000000002')).payment_id;
    d.t.clock.advance(1000);
    const wallet = await (await ann.login()).pay({
      method: 'apple_pay',
      wallet_token: await walletToken(d.t, 'apple_pay'),
    });
    assert.equal(wallet.status, 201, JSON.stringify(wallet.body));
    made.wallet = wallet.body.payment_id;
    d.t.clock.advance(1000);
    const apm = await bob.client.pay({ method: 'alipay', reference: 'ROOM-7 MARCH' });
    assert.equal(apm.body.status, 'requires_action', JSON.stringify(apm.body));
    made.apm = apm.body.payment_id;
    // 23:30 UTC on 1 July is 00:30 on 2 July in London (BST).
    d.t.clock.set(new Date('2026-07-01T23:30:00.000Z'));
    const cat = await newTenant(d.t, d.api);
    made.late = (await cardPayment(d.t, cat.client, PAN.mastercard)).payment_id;
    await signInEveryoneAgain(d);
  });
  after(() => d.t.close());

  const search = (query = '', who = d.support): Promise<Answer> => who.get(`/payments/${query}`);
  const ids = async (query: string): Promise<string[]> => {
    const answer = await search(query);
    assert.equal(answer.status, 200, `${query}: ${JSON.stringify(answer.body)}`);
    return answer.body.data.map((p: { payment_id: string }) => p.payment_id);
  };

  it('200: the platform’s payments newest first, each with its tenant, tenancy and refunded', async () => {
    const answer = await search();
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(
      answer.body.data.map((p: { payment_id: string }) => p.payment_id),
      [made.late, made.apm, made.wallet, made.declined, made.visa],
    );
    assert.equal(answer.body.has_more, false);
    const visa = answer.body.data[4];
    assert.deepEqual(
      {
        email: visa.email,
        name: visa.name,
        user_id: visa.user_id,
        payment_reference: visa.payment_reference,
        amount: visa.amount,
        pure_amount: visa.pure_amount,
        refunded: visa.refunded,
        card: visa.card,
      },
      {
        email: ann.email,
        name: 'Ada Lovelace',
        user_id: ann.userId,
        payment_reference: `PAY-${ann.userId}`,
        amount: '1217.40',
        pure_amount: '1200.00',
        refunded: '0.00',
        card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
      },
    );
  });

  it('email: the whole address or its beginning, in any case; % and _ are only themselves', async () => {
    assert.deepEqual(await ids(`?email=${ann.email.toUpperCase()}`), [made.wallet, made.visa]);
    assert.deepEqual(await ids(`?email=${ann.email.slice(0, 9)}`), [made.wallet, made.visa]);
    assert.deepEqual(await ids('?email=tenant-'), [
      made.late,
      made.apm,
      made.wallet,
      made.declined,
      made.visa,
    ]);
    assert.deepEqual(await ids('?email=%25'), []);
    assert.deepEqual(await ids('?email=tenant_'), []);
    assert.deepEqual(await ids('?email=nobody@example.com'), []);
  });

  it('payment_reference: the payment’s own reference or its tenancy’s, exactly', async () => {
    assert.deepEqual(await ids(`?payment_reference=PAY-${bob.userId}`), [made.apm, made.declined]);
    assert.deepEqual(await ids('?payment_reference=ROOM-7%20MARCH'), [made.apm]);
    assert.deepEqual(await ids(`?payment_reference=PAY-${bob.userId}0`), []);
  });

  it('last4, amount (charged or rent), status, method; every filter given must match', async () => {
    assert.deepEqual(await ids('?last4=4444'), [made.late]);
    assert.deepEqual(await ids('?amount=1217.40'), [made.late, made.declined, made.visa]);
    assert.deepEqual(await ids('?amount=1200'), [made.late, made.apm, made.wallet, made.declined, made.visa]);
    assert.deepEqual(await ids('?status=failed'), [made.declined]);
    assert.deepEqual(await ids('?status=requires_action'), [made.apm]);
    assert.deepEqual(await ids('?method=apple_pay'), [made.wallet]);
    assert.deepEqual(await ids(`?method=card&email=${encodeURIComponent(bob.email)}`), [made.declined]);
    assert.deepEqual(await ids('?method=card&status=succeeded&last4=0002'), []);
  });

  it('from and to: UK days, both included (00:30 in London on 2 July is 2 July)', async () => {
    assert.deepEqual(await ids('?from=2026-07-02&to=2026-07-02'), [made.late]);
    assert.deepEqual(await ids('?to=2026-07-01'), [made.apm, made.wallet, made.declined, made.visa]);
    assert.deepEqual(await ids('?from=2026-03-01&to=2026-03-01'), [
      made.apm,
      made.wallet,
      made.declined,
      made.visa,
    ]);
    assert.deepEqual(await ids('?from=2026-03-02&to=2026-07-01'), []);
  });

  it('cursor paging through payments with equal timestamps: no duplicates, no gaps', async () => {
    const other = await anotherPlatform(d, 'Paging');
    await onboardTenants(other.api, 30, 'PAGE');
    // 30 tenancies × 7 payments, each tenancy's k-th at the same instant: ties broken by id.
    const seeded = await seedPayments(d.t, other.integrator.id, {
      prefix: 'PAGE',
      perTenancy: 7,
      first: new Date('2026-02-01T09:00:00Z'),
      stepMs: 86_400_000,
    });
    assert.equal(seeded, 210);
    const seen: string[] = [];
    let cursor = '';
    for (let pages = 0; ; pages++) {
      assert.ok(pages < 100, 'paging ends');
      const answer = await other.admin.get(`/payments/?limit=13${cursor}`);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      const page = answer.body.data as { payment_id: string }[];
      seen.push(...page.map((p) => p.payment_id));
      if (!answer.body.has_more) break;
      cursor = `&starting_after=${page.at(-1)!.payment_id}`;
    }
    assert.equal(new Set(seen).size, seeded, 'no payment twice, none missing');
    const all = await d.t.db.query<{ id: string }>(
      'SELECT id FROM payments WHERE integrator_id = $1 ORDER BY created_at DESC, id DESC',
      [other.integrator.id],
    );
    assert.deepEqual(
      seen,
      all.map((row) => row.id),
      'newest first, ties by id',
    );
    const failed = await other.admin.get('/payments/?status=failed&email=page-&limit=100');
    assert.equal(failed.body.data.length, 30, 'every fifth failed: one per tenancy');
  });

  it('400: a limit out of range, a malformed filter, from after to, an unknown parameter', async () => {
    assert.equal((await search('?limit=101')).status, 400);
    assert.equal((await search('?limit=0')).status, 400);
    assertError(await search('?last4=42'), 400, 'invalid_request', /last 4 digits/);
    assertError(await search('?amount=12.345'), 400, 'invalid_request', /two decimal places/);
    assert.equal((await search('?status=lost')).status, 400);
    assert.equal((await search('?method=cheque')).status, 400);
    assert.equal((await search('?from=2026-02-30')).status, 400);
    assertError(await search('?from=2026-03-02&to=2026-03-01'), 400, 'invalid_request', /on or after from/);
    assert.equal((await search('?colour=red')).status, 400);
    assertError(
      await search('?starting_after=pay_unknown'),
      400,
      'invalid_request',
      /No payment pay_unknown/,
    );
  });

  it('another platform sees none of these payments, and their cursor is unknown to it', async () => {
    const stranger = (await anotherPlatform(d, 'Other')).admin;
    assert.deepEqual((await stranger.get('/payments/')).body.data, []);
    assert.deepEqual((await stranger.get(`/payments/?email=${encodeURIComponent(ann.email)}`)).body.data, []);
    assertError(await stranger.get(`/payments/?starting_after=${made.visa}`), 400, 'invalid_request');
  });

  it('403 for the operator’s staff: a platform’s payments are its own team’s pages', async () => {
    const staff = await operatorStaff(d);
    assertError(await staff.get('/payments/'), 403, 'forbidden', /operator console/);
  });

  itRefusesWithoutASession(() => d, 'GET', '/payments/');
});
