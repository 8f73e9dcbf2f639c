/**
 * Landlord payouts through the Operator API and the `rentpay payouts` CLI: runs over settled rent (one payout per
 * tenancy), accounts held out, the bank CSV, racing runs, cancel and confirm with payout_paid, refunds after payout
 * carried as negatives, the tenancy's payouts and ledger, and `reconcile` catching a tampered payment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Api,
  integrationApi,
  operatorCliEnv,
  operatorRequest,
  send,
  UNLIMITED,
} from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { OPERATOR_TOKEN, runCli, startTestApp, type TestApp } from '../../support/helpers.ts';
import { cardToken, clientOf, PAN } from '../../support/payment-client.ts';

describe('payouts', () => {
  let t: TestApp;
  let api: Api;
  let env: Record<string, string>;
  const operator = (method: 'GET' | 'POST', url: string, payload?: object) =>
    operatorRequest(t, method, url, payload);
  const integration = (url: string) =>
    send(t, {
      method: 'GET',
      url: `/api/third-party${url}`,
      headers: { authorization: `Token ${api.serverToken}` },
    });
  const pay = async (email: string, reference: string, amount = '1200.00') => {
    const session = await api.loginOk(email, reference);
    const paid = await clientOf(t, session.token).pay({
      pure_amount: amount,
      card_token: await cardToken(t, PAN.visa),
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    return paid.body.payment_id as string;
  };
  const payments: Record<string, string> = {};

  before(async () => {
    t = await startTestApp();
    api = integrationApi(
      t,
      await t.createIntegrator({ ...UNLIMITED, fees: { card: { percent: '1.45', fixed: '0.00' } } }),
    );
    await api.onboardOk([
      userBody({
        user_id: 1,
        email: 'one@example.com',
        tenant: [tenancyBody({ payment_reference: 'PO-ONE' })],
      }),
      userBody({
        user_id: 2,
        email: 'two@example.com',
        tenant: [
          tenancyBody({
            payment_reference: 'po-two/flat 2 “east”',
            recipient_bank_sort_code: '654321',
            recipient_bank_account_number: '7654321',
            recipient_bank_account_name: '=HYPERLINK("http://evil.example")',
          }),
        ],
      }),
      userBody({
        user_id: 3,
        email: 'three@example.com',
        tenant: [
          tenancyBody({
            payment_reference: 'PO-ABROAD',
            recipient_bank_sort_code: 'DEUTDEFF',
            recipient_bank_account_number: 'DE89370400440532013000',
          }),
        ],
      }),
    ]);
    payments.one = await pay('one@example.com', 'PO-ONE');
    payments.two = await pay('two@example.com', 'po-two/flat 2 “east”');
    payments.abroad = await pay('three@example.com', 'PO-ABROAD');
    env = await operatorCliEnv(t);
  });
  after(() => t?.close());

  let firstRun: string;

  it('a run pays each tenancy’s rent (not the fee) to a UK account; others are held with the reason', async () => {
    const held = await operator('GET', '/payouts/held');
    assert.deepEqual(
      held.body.data.map((h: { payment_reference: string }) => h.payment_reference),
      ['PO-ABROAD'],
    );
    assert.match(held.body.data[0].reason, /not a UK sort code.*not a UK account number/);
    assert.equal(held.body.data[0].amount, '1200.00');
    const view = await api.view('three@example.com', 'PO-ABROAD');
    assert.equal(view.bank_account.payout_ready, false);
    assert.equal(view.bank_account.payout_hold_reason, held.body.data[0].reason);
    assert.equal((await api.view('two@example.com', 'po-two/flat 2 “east”')).bank_account.payout_ready, true);
    const cli = await runCli(['payouts', 'list', '--held'], env);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /PO-ABROAD\s+1200\.00\s+recipient_bank_sort_code is not a UK sort code/);

    const run = await operator('POST', '/payouts/runs', {});
    assert.equal(run.status, 201, JSON.stringify(run.body));
    firstRun = run.body.payout_run_id;
    assert.match(firstRun, /^prun_/);
    assert.equal(run.body.status, 'created');
    assert.equal(run.body.as_of, '2026-03-01');
    assert.equal(run.body.total, '2400.00');
    assert.deepEqual(
      run.body.items.map((p: Record<string, unknown>) => [
        p.payment_reference,
        p.sort_code,
        p.account_number,
        p.amount,
        p.payment_ids,
        p.status,
        p.paid_at,
      ]),
      [
        ['PO-ONE', '123456', '12345678', '1200.00', [payments.one], 'created', null],
        ['po-two/flat 2 “east”', '654321', '07654321', '1200.00', [payments.two], 'created', null],
      ],
    );
  });

  it('the bank file: a header, one line per payout, cells quoted, names in the bank’s characters, totals agree', async () => {
    const file = await send(t, {
      method: 'GET',
      url: `/api/operator/payouts/runs/${firstRun}/file?format=csv`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });
    assert.equal(file.status, 200);
    assert.match(String(file.headers['content-type']), /^text\/csv/);
    const lines = String(file.body).split('\r\n');
    assert.deepEqual(lines, [
      '"sort_code","account_number","account_name","amount","reference"',
      '"123456","12345678","LANDLORD LTD","1200.00","PO-ONE"',
      '"654321","07654321","HYPERLINK HTTP //EVIL.EXAMPLE","1200.00","PO-TWO/FLAT 2 EAST"',
      '',
    ]);
    const total = lines
      .slice(1, -1)
      .reduce((sum, line) => sum + Math.round(Number(line.split('","')[3]) * 100), 0);
    assert.equal(total, 240_000);
    const cli = await runCli(['payouts', 'file', firstRun], env);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout, String(file.body));
  });

  it('nothing is paid twice: a second run is empty, and two runs racing share no payment', async () => {
    const empty = await operator('POST', '/payouts/runs');
    assert.equal(empty.status, 201, `no body is an empty one: ${JSON.stringify(empty.body)}`);
    assert.deepEqual([empty.body.total, empty.body.items], ['0.00', []]);
    payments.oneAgain = await pay('one@example.com', 'PO-ONE', '600.00');
    const racing = await Promise.all([
      operator('POST', '/payouts/runs', {}),
      operator('POST', '/payouts/runs', {}),
    ]);
    assert.deepEqual(
      racing.map((r) => r.status),
      [201, 201],
    );
    const withItems = racing.filter((r) => r.body.items.length > 0);
    assert.equal(withItems.length, 1, 'one run took the new payment, the other found nothing');
    assert.deepEqual(withItems[0]!.body.items[0].payment_ids, [payments.oneAgain]);

    const canceled = await operator('POST', `/payouts/runs/${withItems[0]!.body.payout_run_id}/cancel`);
    assert.equal(canceled.body.status, 'canceled');
    assert.deepEqual(
      canceled.body.items.map((p: { status: string }) => p.status),
      ['canceled'],
    );
    const again = await runCli(['payouts', 'run', '--json'], env);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout).items[0].payment_ids, [payments.oneAgain], 'payable again');
  });

  it('confirm: payouts paid, payout_paid events, the ledger and the tenancy’s payouts show them; 409 after', async () => {
    const confirmed = await runCli(['payouts', 'confirm', firstRun], env);
    assert.equal(confirmed.code, 0, confirmed.stderr);
    assert.match(confirmed.stdout, new RegExp(`${firstRun}  confirmed`));
    const run = (await operator('GET', `/payouts/runs/${firstRun}`)).body;
    assert.deepEqual(
      run.items.map((p: { status: string }) => p.status),
      ['paid', 'paid'],
    );
    assert.equal(run.items[0].paid_at, '2026-03-01T09:00:00.000Z');
    assert.equal(
      (await operator('POST', `/payouts/runs/${firstRun}/confirm`)).status,
      200,
      'again: unchanged',
    );
    const cancel = await operator('POST', `/payouts/runs/${firstRun}/cancel`);
    assert.equal(cancel.status, 409);
    assert.equal(cancel.body.error, 'conflict');

    const events = await integration('/events/?type=payout_paid');
    assert.equal(events.status, 200, JSON.stringify(events.body));
    assert.equal(events.body.data.length, 2);
    const [po] = (await integration('/payouts/?payment_reference=PO-ONE')).body.data.filter(
      (p: { status: string }) => p.status === 'paid',
    );
    assert.equal(po.amount, '1200.00');
    const ledger = await integration('/ledger/?payment_reference=PO-ONE');
    const payout = ledger.body.entries.find((e: { type: string }) => e.type === 'payout');
    const before = ledger.body.entries[ledger.body.entries.indexOf(payout) - 1];
    assert.deepEqual(payout, {
      date: '2026-03-01',
      type: 'payout',
      amount: '1200.00',
      payout_id: po.payout_id,
      balance: before.balance,
    });
  });

  it('paid out: the integrator’s refund is 409 paid_out and changes nothing; the operator’s still refunds', async () => {
    t.clock.advance(86_400_000);
    const refundsBefore = await t.db.query('SELECT id FROM refunds WHERE payment_id = $1', [payments.two]);
    const refused = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${payments.two}/refunds/`,
      headers: { authorization: `Token ${api.serverToken}`, 'idempotency-key': 'po-refund' },
      payload: { amount: '300.00' },
    });
    assert.equal(refused.status, 409, JSON.stringify(refused.body));
    assert.equal(refused.body.error, 'paid_out');
    assert.match(refused.body.detail, /paid out to the landlord in a confirmed payout/);
    assert.match(refused.body.detail, /operator/);
    const full = await send(t, {
      method: 'POST',
      url: `/api/third-party/payments/${payments.two}/refunds/`,
      headers: { authorization: `Token ${api.serverToken}` },
    });
    assert.equal(full.body.error, 'paid_out', 'a refund of everything left alike');
    assert.deepEqual(
      await t.db.query('SELECT id FROM refunds WHERE payment_id = $1', [payments.two]),
      refundsBefore,
      'no refund row written',
    );
    const events = await integration('/events/?type=payment_refunded');
    assert.equal(events.body.data.length, 0, 'no payment_refunded');
  });

  it('a refund after payout (by the operator) is carried as a negative into the tenancy’s next payout', async () => {
    const refund = await send(t, {
      method: 'POST',
      url: `/api/operator/payments/${payments.two}/refunds`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'idempotency-key': 'po-refund' },
      payload: { amount: '300.00' },
    });
    assert.equal(refund.status, 201, JSON.stringify(refund.body));
    const nothing = await operator('POST', '/payouts/runs', {});
    assert.equal(
      nothing.body.items.some((p: { payment_reference: string }) => p.payment_reference.startsWith('po-two')),
      false,
      'refunds alone make nothing to pay: the negative waits',
    );
    await pay('two@example.com', 'po-two/flat 2 “east”', '1000.00');
    const next = await operator('POST', '/payouts/runs', {});
    const item = next.body.items.find((p: { payment_reference: string }) =>
      p.payment_reference.startsWith('po-two'),
    );
    assert.equal(item.amount, '700.00', '1000.00 of new rent less the 300.00 refunded after the payout');
  });

  it('reconcile: clean, then a tampered payment makes it exit 1 naming the payment', async () => {
    const clean = await runCli(['payouts', 'reconcile'], env);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    assert.match(clean.stdout, /^Reconciled: \d+ succeeded payments, \d+ payouts, \d+ runs\.$/m);
    await t.db.query("UPDATE payments SET status = 'failed' WHERE id = $1", [payments.one]);
    try {
      const tampered = await runCli(['payouts', 'reconcile'], env);
      assert.equal(tampered.code, 1, tampered.stdout + tampered.stderr);
      assert.match(
        tampered.stdout,
        new RegExp(`MISMATCH payment ${payments.one} is failed but payout po_\\w+ pays out its rent`),
      );
    } finally {
      await t.db.query("UPDATE payments SET status = 'succeeded' WHERE id = $1", [payments.one]);
    }
  });

  it('refuses bad input with 400 and unknown runs with 404, changing nothing', async () => {
    const before = (await operator('GET', '/payouts/runs')).body.data.length;
    assert.equal((await operator('POST', '/payouts/runs', { as_of: '2026-02-30' })).status, 400);
    assert.equal((await operator('POST', '/payouts/runs', { asof: '2026-03-01' })).status, 400);
    assert.equal((await operator('GET', '/payouts/runs/prun_nope')).status, 404);
    assert.equal((await operator('POST', '/payouts/runs/prun_nope/confirm')).status, 404);
    assert.equal(
      (await operator('POST', '/payouts/approvals', { sort_code: '1', account_number: '2' })).status,
      400,
    );
    assert.equal((await operator('GET', '/payouts/runs')).body.data.length, before);
    assert.equal((await integration('/payouts/?payment_reference=NOPE')).status, 404);
    const anonymous = await send(t, { method: 'GET', url: '/api/operator/payouts/runs' });
    assert.equal(anonymous.status, 401);
  });
});
