import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError } from '../../support/api-client.ts';
import {
  assertClientTokenRequired,
  assertFieldErrors,
  clientSchedules,
  integratorWithout,
} from '../../support/operation-tests.ts';
import { count, startPaymentApp } from '../../support/payment-client.ts';
import { type ScheduleTenant, scheduleOk, scheduleTenant } from '../../support/schedule-helpers.ts';

describe('POST /api/client/schedules/preview (previewSchedule)', async () => {
  // The clock starts at 2026-03-01T09:00Z; the card fee is 1.45 %.
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const preview = (tenant: ScheduleTenant, body: Record<string, unknown> = {}) =>
    tenant.client.call('POST', '/schedules/preview', { saved_card_id: tenant.cardId, ...body });
  const schedules = () => count(t, 'schedules');

  it('200: the charges and the sentence to agree to; nothing is set up', async () => {
    const ann = await scheduleTenant(t, api);
    const before = await schedules();
    const answer = await preview(ann);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    const charge = (due_date: string) => ({
      due_date,
      pure_amount: '1200.00',
      fee: '17.40',
      amount: '1217.40',
    });
    assert.deepEqual(answer.body, {
      pure_amount: '1200.00',
      fee: '17.40',
      amount: '1217.40',
      installment_plan: false,
      payments: 10,
      upcoming: [charge('2026-03-01'), charge('2026-04-01'), charge('2026-05-01')],
      last_due_date: '2026-12-01',
      paid_through: null,
      authorization: {
        version: 'recurring-card-2026-11',
        text:
          'I authorise Test platform to charge my Visa card ending 4242 £1,217.40 (£1,200.00 rent plus a £17.40 card ' +
          'fee) every month on the 1st, from 1 March 2026 to 1 December 2026 (10 payments), for the rent of ' +
          '10 Downing Street paid to Landlord Ltd. I can pause or cancel these payments at any time before a due date.',
      },
    });
    assert.equal(await schedules(), before);
    assert.deepEqual(await clientSchedules(ann), []);
    const own = await preview(ann, { pure_amount: '1000' });
    assert.deepEqual([own.body.pure_amount, own.body.fee, own.body.amount], ['1000.00', '14.50', '1014.50']);
  });

  it('400 field errors for a bad card, amount or plan choice; nothing is set up', async () => {
    const ann = await scheduleTenant(t, api);
    const before = await schedules();
    await assertFieldErrors(
      (body) => preview(ann, body),
      [
        [{ saved_card_id: 'card_nope' }, { saved_card_id: ['Unknown saved card.'] }],
        [{ saved_card_id: '' }, { saved_card_id: ['This field may not be blank.'] }],
        [
          { pure_amount: '12.345' },
          { pure_amount: ['Enter an amount in pounds with at most two decimal places, e.g. "1200.00".'] },
        ],
        [{ pure_amount: '0.99' }, { pure_amount: ['Enter an amount from 1.00 to 100000.00.'] }],
        [{ use_installment_plan: true }, { use_installment_plan: ['This tenancy has no installment plan.'] }],
      ],
    );
    const missing = await ann.client.call('POST', '/schedules/preview', {});
    assert.deepEqual(missing.body, { saved_card_id: ['This field is required.'] });
    assert.equal(await schedules(), before);
  });

  it('409: a live schedule already, or recurring payments turned off (feature_disabled)', async () => {
    const ann = await scheduleTenant(t, api);
    const { schedule_id } = await scheduleOk(ann);
    assertError(
      await preview(ann),
      409,
      'conflict',
      new RegExp(`^This tenancy has an active schedule already \\(${schedule_id}\\)`),
    );
    assertError(
      await preview(await scheduleTenant(t, await integratorWithout(t, 'recurring'))),
      409,
      'feature_disabled',
      /^Recurring payments are not enabled for this integration\.$/,
    );
  });

  it('another tenant’s saved card, of this or another integrator, is an unknown card', async () => {
    const owner = await scheduleTenant(t, api);
    for (const stranger of [await scheduleTenant(t, api), await scheduleTenant(t, otherApi)]) {
      const answer = await preview(stranger, { saved_card_id: owner.cardId });
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, { saved_card_id: ['Unknown saved card.'] });
    }
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const ann = await scheduleTenant(t, api);
    await assertClientTokenRequired(t, api, {
      method: 'POST',
      url: '/api/client/schedules/preview',
      payload: { saved_card_id: ann.cardId },
    });
  });
});
