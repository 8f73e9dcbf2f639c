import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import {
  anotherPlatform,
  onboardTenants,
  operatorStaff,
  type PaymentsDashboard,
  seedPayments,
  startPaymentsDashboard,
} from '../../support/dashboard-payments.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import { clientOf } from '../../support/payment-client.ts';

const HEADER = (
  'payment_id,created_at,status,method,card_brand,card_last4,amount,pure_amount,fee,refunded,currency,reference,' +
  'payment_reference,user_id,email,name,failure_code,processor_reference'
).split(',');

/** The file's rows (the header first), each cell unquoted: every cell of the file must be quoted. */
function parseCsv(text: string): string[][] {
  assert.ok(text.endsWith('\r\n'), 'CRLF line ends, the last line too');
  return text
    .slice(0, -2)
    .split('\r\n')
    .map((line) => {
      const cells = [...line.matchAll(/"((?:[^"]|"")*)"(,|$)/g)];
      assert.equal(cells.map((c) => c[0]).join(''), line, `every cell quoted: ${line}`);
      return cells.map((c) => c[1]!.replace(/""/g, '"'));
    });
}

describe('GET /api/dashboard/payments/export.csv (exportPayments)', () => {
  let d: PaymentsDashboard;
  let seeded: number;
  /** A payment of a tenant whose name and reference a spreadsheet would take for formulas. */
  let crafted: string;
  before(async () => {
    d = await startPaymentsDashboard();
    // 300 tenancies × 7 payments: more than two batches of 1,000, each tenancy's k-th at the same instant.
    await onboardTenants(d.api, 300, 'BULK');
    seeded = await seedPayments(d.t, d.integrator.id, {
      prefix: 'BULK',
      perTenancy: 7,
      first: new Date('2026-01-05T09:00:00Z'),
      stepMs: 86_400_000,
    });
    await d.api.onboardOk(
      userBody({
        user_id: 9001,
        email: 'formula@example.com',
        first_name: '=HYPERLINK("http://evil.example")',
        last_name: 'O"Brien',
        tenant: [tenancyBody({ payment_reference: '@SUM(A1)' })],
      }),
    );
    const session = await d.api.loginOk('formula@example.com');
    crafted = (await cardPayment(d.t, clientOf(d.t, session.token))).payment_id;
  });
  after(() => d.t.close());

  it('200: every matching payment newest first, streamed past the batch size, as an attachment', async () => {
    const answer = await d.support.get('/payments/export.csv');
    assert.equal(answer.status, 200);
    assert.equal(answer.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(answer.headers['content-disposition'], 'attachment; filename="payments-2026-03-01.csv"');
    const [header, ...rows] = parseCsv(answer.body);
    assert.deepEqual(header, HEADER);
    assert.equal(rows.length, seeded + 1);
    const ids = rows.map((row) => row[0]!);
    assert.equal(new Set(ids).size, ids.length, 'no payment twice across batches');
    const expected = await d.t.db.query<{ id: string }>(
      'SELECT id FROM payments WHERE integrator_id = $1 ORDER BY created_at DESC, id DESC',
      [d.integrator.id],
    );
    assert.deepEqual(
      ids,
      expected.map((row) => row.id),
    );
    const bulk = rows.find((row) => row[14] === 'bulk-1@example.com' && row[2] === 'failed')!;
    assert.deepEqual(
      [bulk[3], bulk[4], bulk[5], bulk[6], bulk[7], bulk[8], bulk[9], bulk[10], bulk[12], bulk[16]],
      ['card', 'visa', '1005', '1250.00', '1250.00', '0.00', '0.00', 'GBP', 'BULK-1', 'card_declined'],
    );
  });

  it('cells a spreadsheet would run as formulas are shown as text; quotes are doubled', async () => {
    const answer = await d.finance.get('/payments/export.csv?email=formula@');
    assert.match(answer.body, /"'=HYPERLINK\(""http:\/\/evil\.example""\) O""Brien"/);
    const [, row] = parseCsv(answer.body);
    assert.deepEqual(
      [row![0], row![11], row![12], row![15]],
      [crafted, "'@SUM(A1)", "'@SUM(A1)", '\'=HYPERLINK("http://evil.example") O"Brien'],
    );
  });

  it('the search’s filters apply: only what the search finds, and a header alone when nothing matches', async () => {
    const failed = parseCsv((await d.developer.get('/payments/export.csv?status=failed')).body);
    assert.equal(failed.length - 1, 300);
    assert.ok(failed.slice(1).every((row) => row[2] === 'failed'));
    const day = parseCsv(
      (await d.admin.get('/payments/export.csv?from=2026-01-05&to=2026-01-05&last4=1001')).body,
    );
    assert.equal(day.length - 1, 300);
    assert.deepEqual(parseCsv((await d.admin.get('/payments/export.csv?from=2030-01-01')).body), [HEADER]);
  });

  it('400 for a malformed filter, from after to, or a page parameter (the file has every row)', async () => {
    assertError(await d.admin.get('/payments/export.csv?last4=1'), 400, 'invalid_request', /last 4 digits/);
    assertError(
      await d.admin.get('/payments/export.csv?from=2026-02-02&to=2026-02-01'),
      400,
      'invalid_request',
      /on or after from/,
    );
    assert.equal((await d.admin.get('/payments/export.csv?limit=10')).status, 400);
  });

  it('another platform’s file has none of these payments; 403 for the operator’s staff', async () => {
    const other = await anotherPlatform(d, 'Other');
    assert.deepEqual(parseCsv((await other.admin.get('/payments/export.csv')).body), [HEADER]);
    const staff = await operatorStaff(d);
    assertError(await staff.get('/payments/export.csv'), 403, 'forbidden', /operator console/);
  });

  itRefusesWithoutASession(() => d, 'GET', '/payments/export.csv');
});
