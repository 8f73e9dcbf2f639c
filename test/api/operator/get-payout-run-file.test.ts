import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, operatorRequest, send } from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { OPERATOR_TOKEN } from '../../support/helpers.ts';
import {
  assertIdChecked,
  assertOperatorTokenRequired,
  cardPayment,
  paidOutRun,
} from '../../support/operation-tests.ts';
import { clientOf, startPaymentApp } from '../../support/payment-client.ts';

const HEADER = '"sort_code","account_number","account_name","amount","reference"';

describe('GET /api/operator/payouts/runs/{payout_run_id}/file (getPayoutRunFile)', async () => {
  const { t, api } = await startPaymentApp();
  after(() => t.close());

  const file = (id: string, query = '?format=csv') =>
    send(t, {
      method: 'GET',
      url: `/api/operator/payouts/runs/${id}/file${query}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
    });

  it('200: a CSV attachment, a header row then one quoted row per payout, CRLF line ends', async () => {
    const { run, tenant } = await paidOutRun(t, api);
    const answer = await file(run.payout_run_id);
    assert.equal(answer.status, 200, String(answer.body));
    assert.equal(answer.headers['content-type'], 'text/csv; charset=utf-8');
    assert.equal(answer.headers['content-disposition'], `attachment; filename="${run.payout_run_id}.csv"`);
    assert.equal(
      answer.body,
      `${HEADER}\r\n"123456","12345678","LANDLORD LTD","1200.00","PAY-${tenant.userId}"\r\n`,
    );
    assert.equal((await file(run.payout_run_id, '')).body, answer.body, 'csv is the default format');
  });

  it('names and references in the bank’s characters (a name starts with a letter or digit), a formula-like reference as text, cut to 18', async () => {
    await api.onboardOk(
      userBody({
        user_id: 9001,
        email: 'file@example.com',
        tenant: [
          tenancyBody({
            payment_reference: '-flat 2/“east” wing, block c',
            recipient_bank_sort_code: '65 43 21',
            recipient_bank_account_number: '7654321',
            recipient_bank_account_name: '-Owner: Smith & Co.',
          }),
        ],
      }),
    );
    await cardPayment(t, clientOf(t, (await api.loginOk('file@example.com')).token));
    const run = await operatorRequest(t, 'POST', '/payouts/runs', {});
    const lines = String((await file(run.body.payout_run_id)).body).split('\r\n');
    assert.deepEqual(lines, [
      HEADER,
      `"654321","07654321","OWNER SMITH & CO.","1200.00","'-FLAT 2/ EAST WING"`,
      '',
    ]);
  });

  it('an empty run is the header alone', async () => {
    const empty = await operatorRequest(t, 'POST', '/payouts/runs', {});
    assert.deepEqual(empty.body.items, []);
    assert.equal((await file(empty.body.payout_run_id)).body, `${HEADER}\r\n`);
  });

  it('400 for another format or an id that is not a payout run id; 404 for an unknown run', async () => {
    const { run } = await paidOutRun(t, api);
    assertError(await file(run.payout_run_id, '?format=xls'), 400, 'invalid_request', /format/);
    await assertIdChecked(file, 'payout_run_id', 'prun_nope', /^No payout run prun_nope\.$/);
  });

  it('401 without the operator token, or with a wrong one', async () => {
    const { run } = await paidOutRun(t, api);
    await assertOperatorTokenRequired(t, {
      method: 'GET',
      url: `/api/operator/payouts/runs/${run.payout_run_id}/file?format=csv`,
    });
  });
});
