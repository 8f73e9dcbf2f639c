/**
 * A tenancy through 14 months over real HTTP with the sandbox clock: recurring rent charged each month, one month
 * missed (the schedule paused) and paid late by hand, rent_due_soon and rent_overdue webhooks received and verified,
 * two payout runs with their CSV files, the ledger at the end, `rentpay payouts reconcile` clean, then a tampered
 * payout line makes it exit 1 naming the payment.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { OPERATOR_TOKEN, runCli, runJobs, startTestApp, type TestApp } from '../support/helpers.ts';
import { Receiver, verify } from '../support/webhook-receiver.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any;

const addDays = (date: string, days: number) =>
  new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const MONTHS = Array.from({ length: 14 }, (_, i) => {
  const at = new Date(Date.UTC(2026, i, 1));
  return at.toISOString().slice(0, 10);
});
const MISSED = '2026-06-01';

describe('rent ledger over 14 months', () => {
  let t: TestApp;
  let base: string;
  let receiver: Receiver;
  let integrator: { id: string; token: string; webhookSecret: string };
  let env: Record<string, string>;
  const hooks: Json[] = [];

  const http = async (method: string, path: string, auth?: string, body?: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: {
        ...(auth ? { authorization: auth } : {}),
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    let json: Json = text;
    try {
      json = JSON.parse(text);
    } catch {}
    return { status: response.status, body: json, text };
  };
  const server = (method: string, path: string, body?: unknown) =>
    http(method, `/api/third-party${path}`, `Token ${integrator.token}`, body);
  const operator = (method: string, path: string, body?: unknown) =>
    http(method, `/api/operator${path}`, `Bearer ${OPERATOR_TOKEN}`, body);
  const at = (date: string) => t.clock.set(`${date}T09:00:00.000Z`);
  /** Delivers what is pending; the new webhooks, each verified, are added to `hooks` and returned. */
  const deliver = async () => {
    const from = receiver.received.length;
    await runJobs(t);
    const fresh = receiver.received.slice(from).map((received) => {
      verify(integrator.webhookSecret, received, t.clock.now());
      return JSON.parse(received.body);
    });
    hooks.push(...fresh);
    return fresh;
  };
  const reminders = async (asOf: string) => {
    const answer = await server('POST', '/sandbox/run-reminders/', { as_of: asOf });
    assert.equal(answer.status, 200, answer.text);
    await deliver();
    return answer.body.sent as number;
  };
  const cardToken = async () => {
    const card = await http('POST', '/sandbox/tokens', undefined, {
      number: '4242424242424242',
      exp_month: 12,
      exp_year: 2030,
      cvc: '123',
    });
    assert.equal(card.status, 201, card.text);
    return card.body.token as string;
  };

  before(async () => {
    receiver = await Receiver.start();
    t = await startTestApp({ config: { allowPrivateWebhookHosts: true } });
    at('2026-01-01');
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    const address = t.app.server.address();
    base = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    env = { RENTPAY_URL: base, RENTPAY_OPERATOR_TOKEN: OPERATOR_TOKEN };
    const created = await operator('POST', '/integrators', {
      name: 'Ledger platform',
      webhook_url: receiver.url,
      reminder_days_before: 3,
      rate_limit_per_second: 100_000,
      rate_limit_burst: 1_000_000,
    });
    assert.equal(created.status, 201, created.text);
    integrator = {
      id: created.body.integrator_id,
      token: created.body.server_token,
      webhookSecret: created.body.webhook_secret,
    };
  });
  after(async () => {
    await t?.close();
    await receiver?.close();
  });

  it('14 months: charged, one missed and paid late, reminded, paid out twice, reconciled; a tamper is caught', async () => {
    const onboarded = await server(
      'POST',
      '/onboarding/',
      userBody({
        user_id: 9001,
        email: 'year@example.com',
        tenant: [
          tenancyBody({
            payment_reference: 'YEAR-1',
            start_rent_date: '2026-01-01',
            end_rent_date: '2027-02-28',
            rent_due_day: 1,
          }),
        ],
      }),
    );
    assert.equal(onboarded.status, 201, onboarded.text);

    // Recurring rent with a saved card, set up through the Client API on 1 January.
    const login = await server('POST', '/user-login/', { email: 'year@example.com' });
    const user = `Bearer ${login.body.token}`;
    const saved = await http('POST', '/api/client/cards', user, { card_token: await cardToken() });
    assert.equal(saved.status, 201, saved.text);
    const preview = await http('POST', '/api/client/schedules/preview', user, {
      saved_card_id: saved.body.card_id,
    });
    assert.equal(preview.status, 200, preview.text);
    const schedule = await http('POST', '/api/client/schedules', user, {
      saved_card_id: saved.body.card_id,
      authorization_text: preview.body.authorization.text,
    });
    assert.equal(schedule.status, 201, schedule.text);
    const scheduleId = schedule.body.schedule_id;

    for (const due of MONTHS) {
      if (due !== MONTHS[0]) {
        at(addDays(due, -3));
        assert.equal(await reminders(addDays(due, -3)), 1, `rent_due_soon for ${due}`);
      }
      if (due === MISSED) {
        const paused = await server('POST', `/schedules/${scheduleId}/pause/`);
        assert.equal(paused.status, 200, paused.text);
      }
      at(due);
      const run = await server('POST', '/sandbox/run-schedules/', { as_of: due });
      assert.equal(run.status, 200, run.text);
      assert.deepEqual(run.body, { charged: due === MISSED ? 0 : 1, failed: 0, waiting: 0 }, due);
      await deliver();
      if (due === MISSED) {
        for (const days of [1, 7]) {
          at(addDays(due, days));
          assert.equal(await reminders(addDays(due, days)), 1, `rent_overdue ${days} for ${due}`);
        }
        const late = await server('GET', `/ledger/?payment_reference=YEAR-1`);
        assert.deepEqual([late.body.arrears, late.body.days_overdue], ['1200.00', 7]);
        // Paid by hand on day 8, then the schedule resumes.
        at(addDays(due, 8));
        const session = await server('POST', '/user-login/', { email: 'year@example.com' });
        const paid = await http('POST', '/api/client/payments', `Bearer ${session.body.token}`, {
          pure_amount: '1200.00',
          method: 'card',
          idempotency_key: 'late-june',
          card_token: await cardToken(),
        });
        assert.equal(paid.status, 201, paid.text);
        assert.equal((await server('POST', `/schedules/${scheduleId}/resume/`)).status, 200);
        assert.equal(await reminders(addDays(due, 9)), 0, 'paid: no more reminders for June');
        await deliver();
      }
      if (due === '2026-07-01') {
        at('2026-07-05');
        const first = await operator('POST', '/payouts/runs', {});
        assert.equal(first.status, 201, first.text);
        assert.equal(first.body.total, '8400.00', 'January to July: seven months of rent');
        assert.equal(first.body.items[0].payment_ids.length, 7);
        const file = await http(
          'GET',
          `/api/operator/payouts/runs/${first.body.payout_run_id}/file?format=csv`,
          `Bearer ${OPERATOR_TOKEN}`,
        );
        assert.deepEqual(file.text.split('\r\n'), [
          '"sort_code","account_number","account_name","amount","reference"',
          '"123456","12345678","LANDLORD LTD","8400.00","YEAR-1"',
          '',
        ]);
        assert.equal(
          (await operator('POST', `/payouts/runs/${first.body.payout_run_id}/confirm`)).status,
          200,
        );
        await deliver();
      }
    }

    at('2027-02-05');
    const second = await operator('POST', '/payouts/runs', {});
    assert.equal(second.body.total, '8400.00', 'August to February: seven more months');
    const file = await runCli(['payouts', 'file', second.body.payout_run_id], env);
    assert.equal(file.code, 0, file.stderr);
    const rows = file.stdout.split('\r\n').slice(1, -1);
    assert.equal(rows.length, 1);
    assert.equal(rows[0], '"123456","12345678","LANDLORD LTD","8400.00","YEAR-1"');
    const confirmed = await runCli(['payouts', 'confirm', second.body.payout_run_id], env);
    assert.equal(confirmed.code, 0, confirmed.stderr);
    await deliver();

    const count = (type: string) => hooks.filter((h) => h.type === type).length;
    assert.equal(count('payment_success'), 14, 'thirteen charges and the late June payment');
    assert.equal(count('rent_due_soon'), 13);
    assert.deepEqual(
      hooks.filter((h) => h.type === 'rent_overdue').map((h) => [h.data.due_date, h.data.days_after_due]),
      [
        [MISSED, 1],
        [MISSED, 7],
      ],
    );
    assert.equal(count('payout_paid'), 2);

    const ledger = await server('GET', '/ledger/?payment_reference=YEAR-1');
    const types = ledger.body.entries.map((e: Json) => e.type);
    assert.deepEqual(
      [
        types.filter((x: string) => x === 'rent_due').length,
        types.filter((x: string) => x === 'payment').length,
      ],
      [14, 14],
    );
    assert.equal(types.filter((x: string) => x === 'payout').length, 2);
    assert.deepEqual(
      [ledger.body.arrears, ledger.body.days_overdue, ledger.body.next_due],
      ['0.00', 0, null],
    );
    assert.equal(ledger.body.entries.at(-1).balance, '0.00');

    const clean = await runCli(['payouts', 'reconcile'], env);
    assert.equal(clean.code, 0, clean.stdout + clean.stderr);
    const [line] = await t.db.query<{ payment_id: string }>(
      "SELECT payment_id FROM payout_lines WHERE kind = 'payment' ORDER BY payment_id LIMIT 1",
    );
    await t.db.query('UPDATE payout_lines SET amount_pence = amount_pence - 100 WHERE payment_id = $1', [
      line!.payment_id,
    ]);
    const tampered = await runCli(['payouts', 'reconcile'], env);
    assert.equal(tampered.code, 1, tampered.stdout + tampered.stderr);
    assert.match(
      tampered.stdout,
      new RegExp(
        `MISMATCH payment ${line!.payment_id}: payout po_\\w+ pays out £1199\\.00 but its rent is £1200\\.00`,
      ),
    );
  });
});
