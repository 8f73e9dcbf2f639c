import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import { itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { runJobs } from '../../support/helpers.ts';
import { cardPayment } from '../../support/operation-tests.ts';
import {
  documentHost,
  startTenantPages,
  type TenantPages,
  tenantWithSchedule,
} from '../../support/tenant-pages.ts';

describe('GET /api/dashboard/tenants/{user_id}/ (getTenant)', () => {
  // The clock starts at 2026-03-01T09:00Z: a tenancyBody's £1200.00 fell due on 1 January, 1 February and 1 March.
  let s: TenantPages;
  let host: Awaited<ReturnType<typeof documentHost>>;
  let scheduleId: string;
  before(async () => {
    host = await documentHost();
    s = await startTenantPages({ config: { allowPrivateDocumentHosts: true } });
    await s.api.onboardOk(
      userBody({
        user_id: 201,
        email: 'mary@example.com',
        first_name: 'Mary',
        last_name: 'Somerville',
        kyc: {
          photo: `${host.origin}/photo.png`,
          pii_front: `${host.origin}/missing.png`,
          status: 'verified',
        },
        tenant: [
          tenancyBody({
            payment_reference: 'MARY-OLD',
            is_active: false,
            start_rent_date: '2025-11-01',
            end_rent_date: '2026-01-31',
            amount: '900.00',
            recipient_bank_account_name: 'Old Landlord',
            agreement: `${host.origin}/agreement.pdf`,
          }),
          tenancyBody({
            payment_reference: 'MARY-1',
            address_1: '1 Crescent',
            city: 'Bath',
            post_code: 'BA1 2LR',
            agreement: `${host.origin}/agreement.pdf`,
          }),
        ],
      }),
    );
    await runJobs(s.d.t);
    const tenant = await tenantWithSchedule(s.d.t, s.api, 'mary@example.com', 'MARY-1');
    scheduleId = tenant.scheduleId;
    await cardPayment(s.d.t, tenant.client);
    const paused = await s.d.finance.post(`/schedules/${scheduleId}/pause/`, {
      reason: 'Tenant in hospital',
    });
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
  });
  after(async () => {
    await s?.d.t.close();
    await host?.close();
  });

  it('200: profile, tenancies with what they owe, schedules with their reason, cards and documents', async () => {
    const answer = await s.d.support.get('/tenants/201/');
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const { tenancies, schedules, cards, documents, ...profile } = answer.body;
    assert.deepEqual(profile, {
      user_id: 201,
      email: 'mary@example.com',
      first_name: 'Mary',
      last_name: 'Somerville',
      phone_number: '+447700900123',
      date_of_birth: '1990-12-10',
      kyc_status: 'verified',
      created_at: '2026-03-01T09:00:04.000Z',
    });
    assert.deepEqual(tenancies, [
      {
        payment_reference: 'MARY-1',
        address: { address_1: '1 Crescent', city: 'Bath', post_code: 'BA1 2LR', country: 'United Kingdom' },
        payee_name: 'Landlord Ltd',
        rent: '1200.00',
        frequency: 'every_1_month',
        rent_due_day: 1,
        start_rent_date: '2026-01-01',
        end_rent_date: '2026-12-31',
        status: 'active',
        arrears: '2400.00',
        days_overdue: 28,
        next_due: { date: '2026-04-01', amount: '1200.00' },
      },
      {
        payment_reference: 'MARY-OLD',
        address: {
          address_1: '10 Downing Street',
          city: 'London',
          post_code: 'SW1A 1AA',
          country: 'United Kingdom',
        },
        payee_name: 'Old Landlord',
        rent: '900.00',
        frequency: 'every_1_month',
        rent_due_day: 1,
        start_rent_date: '2025-11-01',
        end_rent_date: '2026-01-31',
        status: 'inactive',
        arrears: '2700.00',
        days_overdue: 120,
        next_due: null,
      },
    ]);
    assert.equal(schedules.length, 1);
    assert.equal(schedules[0].schedule_id, scheduleId);
    assert.equal(schedules[0].status, 'paused');
    assert.equal(schedules[0].reason, 'Tenant in hospital');
    assert.equal(schedules[0].payment_reference, 'MARY-1');
    assert.deepEqual(cards, [
      { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030, is_default: true },
    ]);
    assert.deepEqual(
      documents.map((d: { kind: string; status: string; payment_reference: string | null }) => [
        d.kind,
        d.status,
        d.payment_reference,
      ]),
      [
        ['agreement', 'stored', 'MARY-1'],
        ['agreement', 'stored', 'MARY-OLD'],
        ['photo', 'stored', null],
        ['pii_front', 'failed', null],
      ],
    );
    for (const document of documents) {
      assert.deepEqual(Object.keys(document).sort(), ['document_id', 'kind', 'payment_reference', 'status']);
      assert.match(document.document_id, /^doc_/);
    }
    assert.doesNotMatch(JSON.stringify(answer.body), /127\.0\.0\.1|photo\.png|agreement\.pdf/, 'no links');
  });

  it('every role of the platform may look', async () => {
    for (const person of [s.d.admin, s.d.developer, s.d.finance]) {
      assert.equal((await person.get('/tenants/201/')).status, 200);
    }
  });

  it('404 for an unknown tenant and for another platform’s; 403 for the operator’s staff', async () => {
    assertError(await s.d.support.get('/tenants/999/'), 404, 'not_found', /No tenant with user_id 999/);
    assertError(await s.stranger.get('/tenants/201/'), 404, 'not_found', /No tenant with user_id 201/);
    assertError(await s.operatorStaff.get('/tenants/201/'), 403, 'forbidden');
  });

  it('400 for a user_id that is not a positive integer', async () => {
    assert.equal((await s.d.support.get('/tenants/abc/')).status, 400);
    assert.equal((await s.d.support.get('/tenants/0/')).status, 400);
  });

  itRefusesWithoutASession(() => s.d, 'GET', '/tenants/201/');
});
