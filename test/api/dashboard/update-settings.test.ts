import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Actor } from '../../../src/audit/actor.ts';
import { assertError } from '../../support/api-client.ts';
import { type DashboardPerson, itRefusesWithoutASession } from '../../support/dashboard-client.ts';
import { patchIntegrator, shownIntegrator } from '../../support/operation-tests.ts';
import { stripeConfig } from '../../support/stripe-app.ts';
import { StripeStandIn } from '../../support/stripe-server.ts';
import { lastAudit, startTenantPages, type TenantPages } from '../../support/tenant-pages.ts';

const CARD_FEE = { card: { percent: '1.45', fixed: '0.20' } };
const update = (person: DashboardPerson, payload: unknown) => person.request('PATCH', '/settings/', payload);

describe('PATCH /api/dashboard/settings/ (updateSettings)', () => {
  let s: TenantPages;
  before(async () => {
    s = await startTenantPages();
  });
  after(() => s.d.t.close());

  it('200: only the fields sent change; audited with before and after, naming the person', async () => {
    const answer = await update(s.d.admin, {
      fees: CARD_FEE,
      reminder_days_before: 5,
      allowed_origins: ['https://app.platform.example/', 'https://app.platform.example'],
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.deepEqual(answer.body, {
      fees: CARD_FEE,
      reminder_days_before: 5,
      allowed_origins: ['https://app.platform.example'],
      environment: 'sandbox',
      business_lets: false,
    });
    const entry = await lastAudit(s.d.t.db, s.d.integrator.id, 'integrator.update');
    assert.deepEqual([entry.actor.email, entry.actor.role], ['admin@platform.example', 'admin']);
    assert.deepEqual(entry.summary, {
      before: { fees: {}, reminder_days_before: null, allowed_origins: [] },
      after: { fees: CARD_FEE, reminder_days_before: 5, allowed_origins: ['https://app.platform.example'] },
    });
    const turnedOff = await update(s.d.admin, { reminder_days_before: null });
    assert.deepEqual([turnedOff.body.reminder_days_before, turnedOff.body.fees], [null, CARD_FEE]);
    const operatorView = await shownIntegrator(s.d.t, s.d.integrator.id);
    assert.deepEqual([operatorView.fees, operatorView.reminder_days_before], [CARD_FEE, null]);
  });

  it('400 with the same checks as the operator’s changes; a refused change changes nothing', async () => {
    const before = (await s.d.admin.get('/settings/')).body;
    const wildcard = await update(s.d.admin, {
      allowed_origins: ['https://*.platform.example'],
      reminder_days_before: 2,
    });
    assert.deepEqual([wildcard.status, Object.keys(wildcard.body)], [400, ['allowed_origins.0']]);
    assert.match(wildcard.body['allowed_origins.0'][0], /Wildcards are not allowed/);
    const path = await update(s.d.admin, { allowed_origins: ['https://platform.example/pay'] });
    assert.deepEqual(Object.keys(path.body), ['allowed_origins.0']);
    assert.equal((await update(s.d.admin, { fees: { card: { percent: '101', fixed: '0' } } })).status, 400);
    assert.equal((await update(s.d.admin, { reminder_days_before: 91 })).status, 400);
    assert.deepEqual((await s.d.admin.get('/settings/')).body, before);
  });

  it('400 for the operator’s own settings (limits, features, business lets, name); the service refuses them too', async () => {
    for (const field of [
      { rate_limit_per_second: 1 },
      { features: { apms: false } },
      { business_lets: true },
      { name: 'Renamed' },
      { status: 'suspended' },
    ]) {
      assert.equal((await update(s.d.admin, field)).status, 400, JSON.stringify(field));
    }
    const admin: Actor = {
      kind: 'dashboard_user',
      userId: 'dus_x',
      email: 'admin@platform.example',
      role: 'admin',
      integratorId: s.d.integrator.id,
    };
    await assert.rejects(
      s.d.t.app.ctx.integrators.update(s.d.integrator.id, { rate_limit_per_second: 1 }, admin),
      /Only the operator changes rate_limit_per_second/,
    );
    await assert.rejects(
      s.d.t.app.ctx.integrators.update(s.otherApi.integratorId, { fees: {} }, admin),
      /No integrator/,
      'another platform’s integrator is not found',
    );
    assert.equal((await shownIntegrator(s.d.t, s.d.integrator.id)).rate_limit_per_second, 100_000);
  });

  it('403 for developer, finance and support, and for the operator’s staff; nothing changes', async () => {
    for (const person of [s.d.developer, s.d.finance, s.d.support]) {
      assertError(
        await update(person, { reminder_days_before: 9 }),
        403,
        'forbidden',
        /does not allow this \(settings\.manage\)/,
      );
    }
    assertError(await update(s.operatorStaff, { reminder_days_before: 9 }), 403, 'forbidden');
    assert.equal((await s.d.admin.get('/settings/')).body.reminder_days_before, null);
  });

  it('another platform’s admin changes their own platform only', async () => {
    assert.equal((await update(s.stranger, { reminder_days_before: 7 })).status, 200);
    assert.equal((await shownIntegrator(s.d.t, s.otherApi.integratorId)).reminder_days_before, 7);
    assert.equal((await s.d.admin.get('/settings/')).body.reminder_days_before, null);
  });

  itRefusesWithoutASession(() => s.d, 'PATCH', '/settings/', { reminder_days_before: 1 });
});

describe('PATCH /api/dashboard/settings/ (updateSettings) in production', () => {
  let stand: StripeStandIn;
  let s: TenantPages;
  before(async () => {
    stand = await StripeStandIn.start();
    s = await startTenantPages({ config: stripeConfig(stand, 'production') });
  });
  after(async () => {
    await s?.d.t.close();
    await stand?.close();
  });

  it('a fee is refused unless the operator recorded that the platform’s tenants are businesses', async () => {
    const refused = await update(s.d.admin, { fees: CARD_FEE });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    assert.deepEqual(Object.keys(refused.body), ['fees']);
    assert.match(refused.body.fees[0], /^Fees charged to tenants are refused in production/);
    assert.deepEqual((await s.d.admin.get('/settings/')).body.fees, {});
    assert.equal((await update(s.d.admin, { fees: { card: { percent: '0', fixed: '0' } } })).status, 200);
    assert.equal((await patchIntegrator(s.d.t, s.d.integrator.id, { business_lets: true })).status, 200);
    const allowed = await update(s.d.admin, { fees: CARD_FEE });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
    assert.deepEqual(
      [allowed.body.fees, allowed.body.environment, allowed.body.business_lets],
      [CARD_FEE, 'production', true],
    );
  });
});
