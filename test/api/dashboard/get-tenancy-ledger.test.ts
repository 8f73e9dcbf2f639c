import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError, send } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { tokenHeader } from '../../support/helpers.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import { clientOf } from '../../support/payment-client.ts';
import { startTenantPages, type TenantPages } from '../../support/tenant-pages.ts';

const REFERENCE = 'flat 2/“east”';
const path = (reference: string, query = '') => `/tenancies/${encodeURIComponent(reference)}/ledger/${query}`;

describe('GET /api/dashboard/tenancies/{payment_reference}/ledger/ (getTenancyLedger)', () => {
  // The clock starts at 2026-03-01T09:00Z: a tenancyBody's £1200.00 fell due on 1 January, 1 February and 1 March.
  let s: TenantPages;
  let paymentId: string;
  before(async () => {
    s = await startTenantPages();
    await s.api.onboardOk(
      userBody({
        user_id: 1,
        email: 'ledger@example.com',
        tenant: [tenancyBody({ payment_reference: REFERENCE })],
      }),
    );
    const { token } = await s.api.loginOk('ledger@example.com');
    paymentId = (await cardPayment(s.d.t, clientOf(s.d.t, token))).payment_id;
    await s.otherApi.onboardOk(
      userBody({
        user_id: 1,
        email: 'other@example.com',
        tenant: [tenancyBody({ payment_reference: 'OTHER-1' })],
      }),
    );
  });
  after(() => s.d.t.close());

  it('200: the ledger exactly as the Integration API gives it, and the balance at the end of each day for the chart', async () => {
    const answer = await s.d.finance.get(path(REFERENCE));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const integration = await send(s.d.t, {
      method: 'GET',
      url: `/api/third-party/ledger/?payment_reference=${encodeURIComponent(REFERENCE)}`,
      headers: tokenHeader(s.api.serverToken),
    });
    const { balance_series, ...ledger } = answer.body;
    assert.deepEqual(ledger, integration.body);
    assert.equal(ledger.as_of, '2026-03-01');
    assert.deepEqual(ledger.entries.at(-1), {
      date: '2026-03-01',
      type: 'payment',
      amount: '1200.00',
      payment_id: paymentId,
      balance: '2400.00',
    });
    assert.deepEqual(balance_series, [
      { date: '2026-01-01', balance: '1200.00' },
      { date: '2026-02-01', balance: '2400.00' },
      { date: '2026-03-01', balance: '2400.00' },
    ]);
  });

  it('as_of: to that day; the series ends there', async () => {
    const answer = await s.d.support.get(path(REFERENCE, '?as_of=2026-02-15'));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(answer.body.arrears, '2400.00');
    assert.deepEqual(answer.body.balance_series, [
      { date: '2026-01-01', balance: '1200.00' },
      { date: '2026-02-01', balance: '2400.00' },
      { date: '2026-02-15', balance: '2400.00' },
    ]);
    const before = await s.d.support.get(path(REFERENCE, '?as_of=2025-12-31'));
    assert.deepEqual([before.body.entries, before.body.balance_series], [[], []], 'nothing yet');
  });

  it('400 for an as_of that is not a date', async () => {
    assertError(await s.d.support.get(path(REFERENCE, '?as_of=2026-02-30')), 400, 'invalid_request', /as_of/);
  });

  it('404 for an unknown reference and for another platform’s; 403 for the operator’s staff', async () => {
    assertError(
      await s.d.support.get(path('NOPE')),
      404,
      'not_found',
      /No tenancy with payment reference "NOPE"/,
    );
    assertError(await s.d.support.get(path('OTHER-1')), 404, 'not_found');
    assertError(await s.stranger.get(path(REFERENCE)), 404, 'not_found');
    assertError(await s.operatorStaff.get(path(REFERENCE)), 403, 'forbidden');
  });

  itRefusesWithoutASession(() => s.d, 'GET', path(REFERENCE));
});
