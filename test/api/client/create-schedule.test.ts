import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { assertError, integrationApi, UNLIMITED } from '../../support/api-client.ts';
import {
  assertClientTokenRequired,
  assertFieldErrors,
  clientSchedules,
  integratorWithout,
  patchIntegrator,
} from '../../support/operation-tests.ts';
import { count, startPaymentApp } from '../../support/payment-client.ts';
import {
  createSchedule,
  SCHEDULE_KEYS,
  type ScheduleTenant,
  scheduleEvents,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

describe('POST /api/client/schedules (createSchedule)', async () => {
  // The clock starts at 2026-03-01T09:00Z; the card fee is 1.45 %.
  const { t, api, otherApi } = await startPaymentApp();
  after(() => t.close());

  const schedulesOf = (tenant: ScheduleTenant) =>
    count(t, 'schedules s JOIN tenancies y ON y.id = s.tenancy_id WHERE y.payment_reference = $1', [
      tenant.reference,
    ]);

  it('201: the Schedule with the agreed sentence, listed, with schedule_created', async () => {
    const ann = await scheduleTenant(t, api, { rent_due_day: 15 });
    const preview = await ann.client.call('POST', '/schedules/preview', { saved_card_id: ann.cardId });
    const answer = await ann.client.call('POST', '/schedules', {
      saved_card_id: ann.cardId,
      authorization_text: preview.body.authorization.text,
    });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const schedule = answer.body;
    assert.deepEqual(Object.keys(schedule).sort(), SCHEDULE_KEYS);
    assert.match(schedule.schedule_id, /^sch_[A-Za-z0-9]{22}$/);
    const now = t.clock.now().toISOString();
    assert.deepEqual(
      { ...schedule, schedule_id: undefined },
      {
        schedule_id: undefined,
        status: 'active',
        user_id: ann.userId,
        payment_reference: ann.reference,
        pure_amount: '1200.00',
        fee: '17.40',
        amount: '1217.40',
        frequency: 'every_1_month',
        rent_due_day: 15,
        next_due_date: '2026-03-15',
        installment_plan: false,
        card: { brand: 'visa', last4: '4242' },
        authorization: { ...preview.body.authorization, accepted_at: now },
        created_at: now,
        updated_at: now,
      },
    );
    assert.deepEqual(await clientSchedules(ann), [schedule]);
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), ['schedule_created']);
  });

  it('400 without the authorisation, or with a bad card or amount; nothing is set up', async () => {
    const ann = await scheduleTenant(t, api);
    await assertFieldErrors(
      (body) => ann.client.call('POST', '/schedules', body),
      [
        [{ saved_card_id: ann.cardId }, { authorization_text: ['This field is required.'] }],
        [
          { saved_card_id: 'card_nope', authorization_text: 'I agree' },
          { saved_card_id: ['Unknown saved card.'] },
        ],
        [
          { saved_card_id: ann.cardId, pure_amount: '0.99', authorization_text: 'I agree' },
          { pure_amount: ['Enter an amount from 1.00 to 100000.00.'] },
        ],
      ],
    );
    assert.equal(await schedulesOf(ann), 0);
  });

  it('409 terms_changed with the new terms when the fee changed since the preview; nothing is set up', async () => {
    const feeApi = integrationApi(
      t,
      await t.createIntegrator({
        ...UNLIMITED,
        name: 'Fees',
        fees: { card: { percent: '1.45', fixed: '0.00' } },
      }),
    );
    const ann = await scheduleTenant(t, feeApi);
    const preview = await ann.client.call('POST', '/schedules/preview', { saved_card_id: ann.cardId });
    const patched = await patchIntegrator(t, feeApi.integratorId, {
      fees: { card: { percent: '2.00', fixed: '0.00' } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const answer = await ann.client.call('POST', '/schedules', {
      saved_card_id: ann.cardId,
      authorization_text: preview.body.authorization.text,
    });
    assert.equal(answer.status, 409, JSON.stringify(answer.body));
    assert.equal(answer.body.error, 'terms_changed');
    assert.deepEqual([answer.body.terms.fee, answer.body.terms.amount], ['24.00', '1224.00']);
    assert.equal(await schedulesOf(ann), 0);
    const agreed = await createSchedule(ann);
    assert.equal(agreed.status, 201, 'the new terms agreed to');
    assert.equal(agreed.body.fee, '24.00');
  });

  it('409: a live schedule already (conflict), or recurring payments turned off (feature_disabled)', async () => {
    const ann = await scheduleTenant(t, api);
    const first = await createSchedule(ann);
    assert.equal(first.status, 201);
    assertError(await createSchedule(ann), 409, 'conflict', /has an active schedule already/);
    assert.equal(await schedulesOf(ann), 1);
    const bob = await scheduleTenant(t, await integratorWithout(t, 'recurring'));
    assertError(
      await bob.client.call('POST', '/schedules', {
        saved_card_id: bob.cardId,
        authorization_text: 'I agree',
      }),
      409,
      'feature_disabled',
    );
    assert.equal(await schedulesOf(bob), 0);
  });

  it('another tenant’s saved card, of this or another integrator, is an unknown card', async () => {
    const owner = await scheduleTenant(t, api);
    for (const stranger of [await scheduleTenant(t, api), await scheduleTenant(t, otherApi)]) {
      const answer = await createSchedule({ client: stranger.client, cardId: owner.cardId });
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.body, { saved_card_id: ['Unknown saved card.'] });
      assert.equal(await schedulesOf(stranger), 0);
    }
  });

  it('401 without a token, and once the token has lapsed', async () => {
    const ann = await scheduleTenant(t, api);
    await assertClientTokenRequired(t, api, {
      method: 'POST',
      url: '/api/client/schedules',
      payload: { saved_card_id: ann.cardId, authorization_text: 'I agree' },
    });
    assert.equal(await schedulesOf(ann), 0);
  });
});
