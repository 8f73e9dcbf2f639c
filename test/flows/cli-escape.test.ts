/**
 * The operator's terminal never receives terminal controls from data: text a tenant, a platform or a webhook
 * receiver chose (a payment reference, a landlord's account name, an integrator's name, a webhook URL, an error's
 * detail) is printed by the `rentpay` CLI with its control and bidi characters escaped as visible text (`\x1b`,
 * `\r`, `\u202e`), so an escape sequence cannot hide or rewrite a row the operator is reviewing.
 *
 * The hostile text is written straight into the rows with SQL after the records were made normally: the API may
 * refuse such input, but what is stored already (or arrives another way) must still print safely.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { type Api, integrationApi, operatorCliEnv, UNLIMITED } from '../support/api-client.ts';
import { tenancyBody, userBody } from '../support/fixtures.ts';
import { runCli, startTestApp, type TestApp } from '../support/helpers.ts';
import { cardToken, clientOf, PAN } from '../support/payment-client.ts';

/** Hides what follows (SGR 8), rewinds the line, rings the bell, an 8-bit CSI, DEL, and bidi reordering. */
const HOSTILE = 'A\x1b[8mB\x1b[0m\r\n\t\x07\x7f\x9b2J\u202eC\u2066D\u2069';
/** HOSTILE as the CLI shows it. */
const SHOWN = String.raw`A\x1b[8mB\x1b[0m\r\n\t\x07\x7f\x9b2J\u202eC\u2066D\u2069`;

/** A byte no terminal output of the CLI may carry raw: C0 but tab and newline, DEL, C1, bidi controls. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is the point
const RAW_CONTROL = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/u;

function assertPrintable(output: { code: number; stdout: string; stderr: string }, shown = SHOWN): void {
  for (const stream of ['stdout', 'stderr'] as const) {
    const match = RAW_CONTROL.exec(output[stream]);
    assert.equal(
      match,
      null,
      `raw U+${match?.[0].codePointAt(0)?.toString(16).padStart(4, '0')} on ${stream}: ${JSON.stringify(output[stream])}`,
    );
  }
  if (shown) assert.ok(`${output.stdout}${output.stderr}`.includes(shown), JSON.stringify(output));
}

describe('rentpay CLI: data cannot reach the terminal as control characters', () => {
  let t: TestApp;
  let api: Api;
  let env: Record<string, string>;
  let paymentId: string;
  let eventId: string;
  let runId: string;

  const pay = async (email: string, reference: string) => {
    const session = await api.loginOk(email, reference);
    const paid = await clientOf(t, session.token).pay({
      pure_amount: '1200.00',
      card_token: await cardToken(t, PAN.visa),
    });
    assert.equal(paid.status, 201, JSON.stringify(paid.body));
    return paid.body.payment_id as string;
  };

  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Escape Lettings' }));
    await api.onboardOk([
      userBody({
        user_id: 1,
        email: 'paid@example.com',
        tenant: [tenancyBody({ payment_reference: 'ESC-PAID' })],
      }),
      userBody({
        user_id: 2,
        email: 'held@example.com',
        tenant: [
          tenancyBody({
            payment_reference: 'ESC-HELD',
            recipient_bank_sort_code: 'DEUTDEFF',
            recipient_bank_account_number: 'DE89370400440532013000',
          }),
        ],
      }),
    ]);
    paymentId = await pay('paid@example.com', 'ESC-PAID');
    await pay('held@example.com', 'ESC-HELD');

    // What the API may refuse from now on, stored all the same.
    await t.db.query(
      `UPDATE payments SET reference = $2, failure_code = 'odd', failure_message = $3 WHERE id = $1`,
      [paymentId, `ref ${HOSTILE}`, `message ${HOSTILE}`],
    );
    await t.db.query(
      `UPDATE tenancies SET payment_reference = $2, recipient_bank_account_name = $3 WHERE payment_reference = $1`,
      ['ESC-PAID', `paid ${HOSTILE}`, `Landlord ${HOSTILE}`],
    );
    await t.db.query(`UPDATE tenancies SET payment_reference = $2 WHERE payment_reference = $1`, [
      'ESC-HELD',
      `held ${HOSTILE}`,
    ]);
    const hook = `https://hooks.example/${HOSTILE}`;
    await t.db.query(`UPDATE integrators SET name = $2, webhook_url = $3 WHERE id = $1`, [
      api.integratorId,
      `Platform ${HOSTILE}`,
      hook,
    ]);
    await t.db.query(
      `INSERT INTO webhook_endpoints (integrator_id, disabled_url, disabled_at, disabled_reason, updated_at)
       VALUES ($1, $2, $3, $4, $3)`,
      [api.integratorId, hook, t.clock.now(), `410 Gone ${HOSTILE}`],
    );
    const [event] = await t.db.query<{ id: string }>(
      'SELECT id FROM events WHERE integrator_id = $1 ORDER BY created_at DESC, id DESC LIMIT 1',
      [api.integratorId],
    );
    eventId = event!.id;
    await t.db.query('UPDATE events SET type = $2 WHERE id = $1', [eventId, `type ${HOSTILE}`]);
    await t.db.query(
      `INSERT INTO webhook_deliveries (event_id, integrator_id, status, attempts, round_attempts, last_attempt_at,
                                       last_status_code, last_error, failed_at, created_at, updated_at)
       VALUES ($1, $2, 'failed', 1, 1, $3, 500, $4, $3, $3, $3)`,
      [eventId, api.integratorId, t.clock.now(), `error ${HOSTILE}`],
    );
    await t.db.query(
      `INSERT INTO webhook_attempts (event_id, number, url, attempted_at, latency_ms, status_code, outcome, error,
                                     response_body)
       VALUES ($1, 1, $2, $3, 12, 500, 'failed', $4, $5)`,
      [eventId, hook, t.clock.now(), `attempt ${HOSTILE}`, `body ${HOSTILE}`],
    );
    env = await operatorCliEnv(t);
  });
  after(() => t?.close());

  it('payments show: the reference and failure message are escaped, the layout lines kept', async () => {
    const shown = await runCli(['payments', 'show', paymentId], env);
    assert.equal(shown.code, 0, shown.stderr);
    assertPrintable(shown, `reference              ref ${SHOWN}\n`);
    assert.ok(shown.stdout.includes(`failure                odd: message ${SHOWN}\n`), shown.stdout);
    assert.match(shown.stdout, /^payment_id {13}pay_\S+\nstatus {17}succeeded\n/);
  });

  it('payments show --json: still JSON with the same value, no raw C1 or bidi control', async () => {
    const json = await runCli(['payments', 'show', paymentId, '--json'], env);
    assert.equal(json.code, 0, json.stderr);
    assertPrintable(json, '');
    assert.equal(JSON.parse(json.stdout).reference, `ref ${HOSTILE}`);
  });

  it('payments list: one line per payment', async () => {
    const listed = await runCli(['payments', 'list'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assertPrintable(listed, '');
    assert.equal(listed.stdout.trimEnd().split('\n').length, 3);
  });

  it('an error answered for what the operator typed: nothing raw on stderr', async () => {
    const missing = await runCli(['payments', 'show', `pay_${HOSTILE}`], env);
    assert.equal(missing.code, 2);
    // A server that repeats the id in its 404 shows it escaped; one that refuses such ids says why (400).
    assertPrintable(missing, missing.stderr.startsWith('rentpay: 404') ? `No payment pay_${SHOWN}.` : '');
    assert.match(missing.stderr, /^rentpay: (404 not_found|400 \w+): /);
  });

  it('whatever a deployment answers (error details, field errors, not JSON, lone surrogates): escaped', async () => {
    // A stand-in Operator API: the real one may refuse or never store these, but the CLI must not trust that.
    const answers: Record<string, [number, string, string]> = {
      '/api/operator/payments/pay_detail': [
        404,
        'application/json',
        JSON.stringify({ error: 'not_found', detail: `No payment ${HOSTILE}.` }),
      ],
      '/api/operator/payments/pay_fields': [
        400,
        'application/json',
        JSON.stringify({ [`field ${HOSTILE}`]: [`message ${HOSTILE}`, 'another'] }),
      ],
      '/api/operator/payments/pay_html': [502, 'text/html', `<h1>Bad gateway ${HOSTILE}</h1>`],
      '/api/operator/integrators': [
        200,
        'application/json',
        '{"data":[{"integrator_id":"int_1","name":"lone \\ud800 high \\udfff low","webhook_url":null}]}',
      ],
    };
    const stub = http.createServer((request, response) => {
      const [status, type, body] = answers[request.url ?? ''] ?? [404, 'text/plain', 'no'];
      response.writeHead(status, { 'content-type': type }).end(body);
    });
    await new Promise<void>((resolve) => stub.listen(0, '127.0.0.1', resolve));
    const address = stub.address() as AddressInfo;
    const stubEnv = { ...env, RENTPAY_URL: `http://127.0.0.1:${address.port}` };
    try {
      const detail = await runCli(['payments', 'show', 'pay_detail'], stubEnv);
      assert.equal(detail.code, 2);
      assertPrintable(detail, `rentpay: 404 not_found: No payment ${SHOWN}.\n`);
      const fields = await runCli(['payments', 'show', 'pay_fields'], stubEnv);
      assert.equal(fields.code, 2);
      assertPrintable(fields, `rentpay: 400 invalid request:\n  field ${SHOWN}: message ${SHOWN} another\n`);
      const html = await runCli(['payments', 'show', 'pay_html'], stubEnv);
      assert.equal(html.code, 2);
      assertPrintable(html, `not JSON: <h1>Bad gateway ${SHOWN}</h1>\n`);
      const lone = await runCli(['integrator', 'list'], stubEnv);
      assert.equal(lone.code, 0, lone.stderr);
      assertPrintable(lone, String.raw`int_1  lone \ud800 high \udfff low  (no webhook)`);
      assert.doesNotMatch(lone.stdout, /\ufffd/);
    } finally {
      await new Promise((resolve) => stub.close(resolve));
    }
  });

  it('errors about the operator’s own input: escaped on stderr', async () => {
    const status = await runCli(['payments', 'list', '--status', HOSTILE], env);
    assert.equal(status.code, 2);
    assertPrintable(status);
    // Commander's own message: escaped line by line (a newline typed into an option name stays a line break).
    const option = await runCli(['payments', 'list', `--x${HOSTILE}`], env);
    assert.notEqual(option.code, 0);
    assertPrintable(option, String.raw`--xA\x1b[8mB\x1b[0m\r`);
    assert.ok(option.stderr.includes(String.raw`\t\x07\x7f\x9b2J\u202eC\u2066D\u2069`), option.stderr);
  });

  it('payouts run: the reference and account name are escaped and the columns still line up', async () => {
    const run = await runCli(['payouts', 'run'], env);
    assert.equal(run.code, 0, run.stderr);
    assertPrintable(run, `paid ${SHOWN}`);
    assert.ok(run.stdout.includes(`Landlord ${SHOWN}`), run.stdout);
    const lines = run.stdout.trimEnd().split('\n');
    assert.equal(lines.length, 3, run.stdout);
    runId = /^(prun_\S+)/.exec(lines[0]!)![1]!;
    const [header, row] = [lines[1]!, lines[2]!];
    for (const [title, value] of [
      ['name', `Landlord ${SHOWN}`],
      ['amount', '1200.00'],
    ]) {
      assert.equal(row.indexOf(value!), header.indexOf(title!), `${title} column\n${header}\n${row}`);
    }
  });

  it('payouts list: the run and the held rent are escaped', async () => {
    const run = await runCli(['payouts', 'list', runId], env);
    assert.equal(run.code, 0, run.stderr);
    assertPrintable(run, `Landlord ${SHOWN}`);
    const runs = await runCli(['payouts', 'list'], env);
    assert.equal(runs.code, 0, runs.stderr);
    assertPrintable(runs, '');
    const held = await runCli(['payouts', 'list', '--held'], env);
    assert.equal(held.code, 0, held.stderr);
    assertPrintable(held, `held ${SHOWN}`);
    assert.equal(held.stdout.trimEnd().split('\n').length, 2, held.stdout);
  });

  it('payouts file: the bank’s CSV, piped, is the API’s file byte for byte', async () => {
    const file = await runCli(['payouts', 'file', runId], env);
    assert.equal(file.code, 0, file.stderr);
    const response = await fetch(`${env.RENTPAY_URL}/api/operator/payouts/runs/${runId}/file?format=csv`, {
      headers: { authorization: `Bearer ${env.RENTPAY_OPERATOR_TOKEN}` },
    });
    assert.equal(file.stdout, await response.text());
  });

  it('webhooks endpoint: the URL and the disabling reason are escaped', async () => {
    const endpoint = await runCli(['webhooks', 'endpoint', api.integratorId], env);
    assert.equal(endpoint.code, 0, endpoint.stderr);
    assertPrintable(endpoint, `webhook_url            https://hooks.example/${SHOWN}\n`);
    assert.ok(endpoint.stdout.includes(`disabled               410 Gone ${SHOWN}\n`), endpoint.stdout);
  });

  it('webhooks list and show: the type, error, URL and response body are escaped', async () => {
    const listed = await runCli(['webhooks', 'list', '--integrator', api.integratorId], env);
    assert.equal(listed.code, 0, listed.stderr);
    assertPrintable(listed, `type ${SHOWN}`);
    const shown = await runCli(['webhooks', 'show', eventId], env);
    assert.equal(shown.code, 0, shown.stderr);
    assertPrintable(shown, `type                   type ${SHOWN}\n`);
    for (const text of [`error ${SHOWN}`, `https://hooks.example/${SHOWN}`, `attempt ${SHOWN}`, 'body A']) {
      assert.ok(shown.stdout.includes(text), `${text}\n${shown.stdout}`);
    }
  });

  it('integrator list and show: the name and webhook URL are escaped', async () => {
    const listed = await runCli(['integrator', 'list'], env);
    assert.equal(listed.code, 0, listed.stderr);
    assertPrintable(listed, `${api.integratorId}  Platform ${SHOWN}  https://hooks.example/${SHOWN}\n`);
    const shown = await runCli(['integrator', 'show', api.integratorId], env);
    assert.equal(shown.code, 0, shown.stderr);
    assertPrintable(shown, `name                   Platform ${SHOWN}\n`);
  });
});
