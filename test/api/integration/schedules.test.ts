import assert from 'node:assert/strict';
import { after, before, beforeEach, describe, it } from 'node:test';
import Fastify from 'fastify';
import { SYSTEM_ACTOR } from '../../../src/audit/actor.ts';
import { IntegratorService } from '../../../src/integrators/service.ts';
import { installErrorHandling } from '../../../src/platform/http/errors.ts';
import { installValidation } from '../../../src/platform/http/validation.ts';
import { type Api, assertError, integrationApi, send, UNLIMITED } from '../../support/api-client.ts';
import { installment, tenancyBody, userBody } from '../../support/fixtures.ts';
import { OPERATOR_TOKEN, runJobs, type TestApp } from '../../support/helpers.ts';
import { cardToken, clientOf, count, PAN, startPaymentApp } from '../../support/payment-client.ts';
import {
  clientChange,
  createSchedule,
  integrationSchedules,
  SCHEDULE_KEYS,
  type ScheduleTenant,
  scheduleEvents,
  scheduleOk,
  schedulePaymentEvents,
  scheduleTenant,
} from '../../support/schedule-helpers.ts';

const SECOND = 1000;

describe('recurring schedules: Client API, Integration API and the sandbox test clock', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  let schedules: ReturnType<typeof integrationSchedules>;

  before(async () => {
    // The clock starts at 2026-03-01T09:00Z; the card fee is 1.45 %.
    ({ t, api, otherApi } = await startPaymentApp());
    schedules = integrationSchedules(t, api);
  });
  after(() => t.close());

  const tenant = (tenancy: Record<string, unknown> = {}, pan = PAN.visa) =>
    scheduleTenant(t, api, tenancy, pan, () => runJobs(t));

  it('set up: 201 the Schedule (exactly its documented keys) with the tenancy’s rent and next due date, and schedule_created', async () => {
    const sam = await tenant({ rent_due_day: 15, amount: '950.00' });
    const answer = await createSchedule(sam);
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const schedule = answer.body;
    assert.deepEqual(Object.keys(schedule).sort(), SCHEDULE_KEYS);
    assert.match(schedule.schedule_id, /^sch_[A-Za-z0-9]{22}$/);
    assert.deepEqual(
      { ...schedule, schedule_id: undefined },
      {
        schedule_id: undefined,
        status: 'active',
        user_id: sam.userId,
        payment_reference: sam.reference,
        pure_amount: '950.00',
        fee: '13.78',
        amount: '963.78',
        frequency: 'every_1_month',
        rent_due_day: 15,
        next_due_date: '2026-03-15',
        installment_plan: false,
        card: { brand: 'visa', last4: '4242' },
        authorization: {
          text:
            'I authorise Test platform to charge my Visa card ending 4242 £963.78 (£950.00 rent plus a £13.78 card ' +
            'fee) every month on the 15th, from 15 March 2026 to 15 December 2026 (10 payments), for the rent of ' +
            '10 Downing Street paid to Landlord Ltd. I can pause or cancel these payments at any time before a due date.',
          version: 'recurring-card-2026-11',
          accepted_at: t.clock.now().toISOString(),
        },
        created_at: t.clock.now().toISOString(),
        updated_at: t.clock.now().toISOString(),
      },
    );
    const [event] = await t.db.query<{ type: string; data: unknown; integrator_id: string }>(
      "SELECT type, data, integrator_id FROM events WHERE data->'schedule'->>'schedule_id' = $1",
      [schedule.schedule_id],
    );
    assert.deepEqual(event, {
      type: 'schedule_created',
      integrator_id: api.integratorId,
      data: { schedule, user_id: sam.userId, email: sam.email, payment_reference: sam.reference },
    });
    assert.deepEqual((await sam.client.call('GET', '/schedules')).body, { schedules: [schedule] });
    assert.deepEqual((await schedules.list(sam.userId)).body, { schedules: [schedule] });
  });

  it('set up: today’s due date counts; the tenant’s own amount; 31 in a short month; a due date after the end: 409', async () => {
    const first = await tenant({ rent_due_day: 1 });
    assert.equal((await scheduleOk(first)).next_due_date, '2026-03-01');
    t.clock.set('2026-04-02T09:00:00.000Z');
    try {
      const own = await tenant({ rent_due_day: 31, start_rent_date: '2026-01-01' });
      const schedule = await scheduleOk(own, { pure_amount: '1000.5' });
      assert.equal(schedule.next_due_date, '2026-04-30');
      assert.equal(schedule.pure_amount, '1000.50');
      const late = await tenant({ end_rent_date: '2026-04-30', rent_due_day: 1 });
      assertError(
        await createSchedule(late),
        409,
        'conflict',
        /No rent is due from today until the tenancy ends/,
      );
    } finally {
      t.clock.set('2026-03-01T09:00:00.000Z');
    }
  });

  it('set up refuses: 400 field errors (card, amount, plan), 409 a second live schedule or an inactive tenancy', async () => {
    const ann = await tenant();
    const bob = await tenant();
    for (const [body, errors] of [
      [{ saved_card_id: bob.cardId }, { saved_card_id: ['Unknown saved card.'] }],
      [{ saved_card_id: 'card_nope' }, { saved_card_id: ['Unknown saved card.'] }],
      [
        { pure_amount: '12.345' },
        { pure_amount: ['Enter an amount in pounds with at most two decimal places, e.g. "1200.00".'] },
      ],
      [{ pure_amount: '0.99' }, { pure_amount: ['Enter an amount from 1.00 to 100000.00.'] }],
      [{ use_installment_plan: true }, { use_installment_plan: ['This tenancy has no installment plan.'] }],
      [{ pure_amount: 1200 }, { pure_amount: ['Not a valid string: send the value in quotes.'] }],
    ] as const) {
      const answer = await createSchedule(ann, body);
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.deepEqual(answer.body, errors, JSON.stringify(body));
    }
    // A card waiting for its 3DS check is not active.
    const waiting = await ann.client.saveCard(await cardToken(t, PAN.threeDsAlways));
    assert.equal(waiting.body.status, 'requires_action');
    assert.deepEqual((await createSchedule(ann, { saved_card_id: waiting.body.card_id })).body, {
      saved_card_id: ['Unknown saved card.'],
    });

    const schedule = await scheduleOk(ann);
    assertError(
      await createSchedule(ann),
      409,
      'conflict',
      new RegExp(`an active schedule already \\(${schedule.schedule_id}\\)`),
    );
    assert.equal((await clientChange(ann, schedule.schedule_id, 'pause')).status, 200);
    assertError(await createSchedule(ann), 409, 'conflict', /paused schedule already/);
    assert.equal((await clientChange(ann, schedule.schedule_id, 'cancel')).status, 200);
    assert.equal((await createSchedule(ann)).status, 201, 'a canceled one does not count');
    assert.equal(
      await count(t, 'schedules WHERE user_id = (SELECT user_id FROM schedules WHERE id = $1)', [
        schedule.schedule_id,
      ]),
      2,
    );

    const inactive = await tenant();
    await t.db.query('UPDATE tenancies SET is_active = false WHERE payment_reference = $1', [
      inactive.reference,
    ]);
    assertError(await createSchedule(inactive), 409, 'conflict', /not active/);
  });

  it('set up refuses amounts outside the payment limits: a rent above 100000.00 (pure_amount), an installment left outside them (use_installment_plan)', async () => {
    const rich = await tenant({ amount: '150000.00' });
    assert.deepEqual((await createSchedule(rich)).body, {
      pure_amount: [
        'The tenancy’s rent (150000.00) is outside the payment limits: enter an amount from 1.00 to 100000.00.',
      ],
    });
    assert.equal((await scheduleOk(rich, { pure_amount: '1200.00' })).pure_amount, '1200.00');
    const planned = await tenant({
      end_rent_date: '2026-12-31',
      installment_payment: {
        installments: [
          installment(1, '2026-02-01', 200000),
          installment(2, '2026-04-01', 150000.01),
          installment(3, '2026-05-01', 1000),
          installment(4, '2026-06-01', 0.5),
        ],
      },
    });
    const refused = await createSchedule(planned);
    assert.equal(refused.status, 400);
    assert.deepEqual(refused.body, {
      use_installment_plan: [
        'The installment plan has amounts outside the payment limits (1.00 to 100000.00): installment 2 (150000.01), installment 4 (0.50). Set use_installment_plan to false to pay the rent, or an amount of your own, instead.',
      ],
    });
    assert.equal(
      await count(t, "events WHERE type = 'schedule_created' AND data->>'email' = $1", [planned.email]),
      0,
    );
    // Installment 1 is past: a plan whose installments left are all within the limits is fine.
    const later = await tenant({
      installment_payment: {
        installments: [installment(1, '2026-02-01', 200000), installment(2, '2026-04-01', 1000)],
      },
    });
    assert.equal((await scheduleOk(later)).pure_amount, '1000.00');
    assert.equal((await scheduleOk(planned, { use_installment_plan: false })).installment_plan, false);
  });

  it('authorisation: the preview gives the charges and the sentence; set-up stores what was agreed, refuses none or an old one', async () => {
    const ann = await tenant({ rent_due_day: 31, amount: '1200.00', end_rent_date: '2026-12-31' });
    const preview = await ann.client.call('POST', '/schedules/preview', { saved_card_id: ann.cardId });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    const text =
      'I authorise Test platform to charge my Visa card ending 4242 £1,217.40 (£1,200.00 rent plus a £17.40 card fee) ' +
      'every month on the 31st (or the month’s last day when it is shorter), from 31 March 2026 to 31 December 2026 ' +
      '(10 payments), for the rent of 10 Downing Street paid to Landlord Ltd. I can pause or cancel these payments at ' +
      'any time before a due date.';
    assert.deepEqual(preview.body, {
      pure_amount: '1200.00',
      fee: '17.40',
      amount: '1217.40',
      installment_plan: false,
      payments: 10,
      upcoming: [
        { due_date: '2026-03-31', pure_amount: '1200.00', fee: '17.40', amount: '1217.40' },
        { due_date: '2026-04-30', pure_amount: '1200.00', fee: '17.40', amount: '1217.40' },
        { due_date: '2026-05-31', pure_amount: '1200.00', fee: '17.40', amount: '1217.40' },
      ],
      last_due_date: '2026-12-31',
      paid_through: null,
      authorization: { version: 'recurring-card-2026-11', text },
    });
    assert.equal(
      await count(t, 'schedules WHERE user_id = (SELECT id FROM users WHERE email = $1)', [ann.email]),
      0,
    );

    const missing = await ann.client.call('POST', '/schedules', { saved_card_id: ann.cardId });
    assert.equal(missing.status, 400);
    assert.ok(missing.body.authorization_text, JSON.stringify(missing.body));

    // The rent changes between the preview and the tenant's agreement: the old sentence no longer describes the charges.
    await api.onboardOk(
      userBody({
        user_id: ann.userId,
        email: ann.email,
        tenant: [
          tenancyBody({
            payment_reference: ann.reference,
            rent_due_day: 31,
            end_rent_date: '2026-12-31',
            amount: '1250.00',
          }),
        ],
      }),
    );
    const stale = await ann.client.call('POST', '/schedules', {
      saved_card_id: ann.cardId,
      authorization_text: text,
    });
    assert.equal(stale.status, 409);
    assert.equal(stale.body.error, 'terms_changed');
    assert.equal(stale.body.terms.amount, '1268.13');
    assert.match(
      stale.body.terms.authorization.text,
      /£1,268\.13 \(£1,250\.00 rent plus a £18\.13 card fee\)/,
    );
    assert.equal(
      await count(t, 'schedules WHERE user_id = (SELECT id FROM users WHERE email = $1)', [ann.email]),
      0,
    );

    const agreed = await ann.client.call('POST', '/schedules', {
      saved_card_id: ann.cardId,
      authorization_text: stale.body.terms.authorization.text,
    });
    assert.equal(agreed.status, 201, JSON.stringify(agreed.body));
    assert.deepEqual(agreed.body.authorization, {
      text: stale.body.terms.authorization.text,
      version: 'recurring-card-2026-11',
      accepted_at: t.clock.now().toISOString(),
    });
    const [listed] = (await schedules.list(ann.userId)).body.schedules;
    assert.deepEqual(
      listed.authorization,
      agreed.body.authorization,
      'the integrator sees what the tenant agreed to',
    );
  });

  it('authorisation of an installment plan lists each charge with its fee', async () => {
    const planned = await tenant({
      end_rent_date: '2026-12-31',
      installment_payment: {
        installments: [installment(1, '2026-04-01', 600), installment(2, '2026-05-01', 700)],
      },
    });
    const preview = await planned.client.call('POST', '/schedules/preview', {
      saved_card_id: planned.cardId,
    });
    assert.equal(preview.status, 200, JSON.stringify(preview.body));
    assert.equal(preview.body.installment_plan, true);
    assert.equal(preview.body.payments, 2);
    assert.equal(
      preview.body.authorization.text,
      'I authorise Test platform to charge my Visa card ending 4242 the installments of my payment plan, each with ' +
        'its card fee: £608.70 on 1 April 2026 and £710.15 on 1 May 2026 (2 payments), for the rent of 10 Downing ' +
        'Street paid to Landlord Ltd. I can pause or cancel these payments at any time before a due date.',
    );
    const refused = await planned.client.call('POST', '/schedules/preview', {
      saved_card_id: planned.cardId,
      pure_amount: '500.00',
    });
    assert.equal(refused.status, 400, 'the preview refuses what the set-up would');
    assert.ok(refused.body.pure_amount);
  });

  it('the client session names the rent’s next due date and its payee (the plan’s next installment, null after the end)', async () => {
    const session = async (who: ScheduleTenant) => (await who.client.call('GET', '/session')).body.tenancy;
    const today = await tenant({ rent_due_day: 1 });
    assert.deepEqual(
      { due: (await session(today)).next_due_date, payee: (await session(today)).payee },
      { due: '2026-03-01', payee: 'Landlord Ltd' },
      'a due date today is still to pay',
    );
    assert.equal((await session(await tenant({ rent_due_day: 31 }))).next_due_date, '2026-03-31');
    const planned = await tenant({
      installment_payment: {
        installments: [installment(1, '2026-02-01', 600), installment(2, '2026-05-01', 700)],
      },
    });
    assert.equal((await session(planned)).next_due_date, '2026-05-01');
    const ended = await tenant({ start_rent_date: '2025-01-01', end_rent_date: '2026-02-28' });
    assert.equal((await session(ended)).next_due_date, null);
  });

  it('concurrent set-ups of one tenancy make one schedule', async () => {
    const ann = await tenant();
    const answers = await Promise.all(Array.from({ length: 4 }, () => createSchedule(ann)));
    assert.deepEqual(answers.map((a) => a.status).sort(), [201, 409, 409, 409]);
    assert.equal(
      await count(t, "events e WHERE e.type = 'schedule_created' AND e.data->>'email' = $1", [ann.email]),
      1,
    );
  });

  it('pause, resume, cancel through the Client API: 200 the Schedule, 409 from a state that does not allow it, each with its event', async () => {
    const ann = await tenant({ rent_due_day: 20 });
    const schedule = await scheduleOk(ann);
    const id = schedule.schedule_id;
    t.clock.advance(SECOND);
    assertError(
      await clientChange(ann, id, 'resume'),
      409,
      'conflict',
      /Only a paused schedule can be resumed; this one is active\./,
    );
    const paused = await clientChange(ann, id, 'pause');
    assert.equal(paused.status, 200);
    assert.deepEqual(paused.body, { ...schedule, status: 'paused', updated_at: t.clock.now().toISOString() });
    assertError(
      await clientChange(ann, id, 'pause'),
      409,
      'conflict',
      /Only an active schedule can be paused; this one is paused\./,
    );
    t.clock.advance(SECOND);
    const resumed = await clientChange(ann, id, 'resume');
    assert.deepEqual(resumed.body, {
      ...schedule,
      status: 'active',
      updated_at: t.clock.now().toISOString(),
    });
    t.clock.advance(SECOND);
    const canceled = await clientChange(ann, id, 'cancel');
    assert.deepEqual(canceled.body, {
      ...schedule,
      status: 'canceled',
      next_due_date: null,
      updated_at: t.clock.now().toISOString(),
    });
    for (const action of ['pause', 'resume', 'cancel']) {
      assertError(await clientChange(ann, id, action), 409, 'conflict', /this one is canceled\./);
    }
    assert.deepEqual(await scheduleEvents(t, id), [
      'schedule_created',
      'schedule_paused',
      'schedule_resumed',
      'schedule_canceled',
    ]);
    const [last] = await t.db.query<{ data: unknown }>(
      "SELECT data FROM events WHERE type = 'schedule_canceled' AND data->'schedule'->>'schedule_id' = $1",
      [id],
    );
    assert.deepEqual(last!.data, {
      schedule: canceled.body,
      user_id: ann.userId,
      email: ann.email,
      payment_reference: ann.reference,
    });
    // Another user's schedule answers as an unknown one.
    const bob = await tenant();
    assertError(await clientChange(bob, id, 'pause'), 404, 'not_found');
    assertError(await clientChange(bob, 'sch_unknown', 'pause'), 404, 'not_found');
    assert.deepEqual((await bob.client.call('GET', '/schedules')).body, { schedules: [] });
  });

  it('a saved card that an active or paused schedule charges cannot be deleted (409 naming the schedule); once canceled it can', async () => {
    const ann = await tenant();
    const schedule = await scheduleOk(ann);
    const id = schedule.schedule_id;
    const other = await ann.client.saveCard(await cardToken(t, PAN.mastercard));
    assert.equal(other.status, 201);
    assertError(
      await ann.client.deleteCard(ann.cardId),
      409,
      'conflict',
      new RegExp(
        `^This card pays the active recurring payment ${id}; cancel that schedule \\(or have it switched to another card\\) before deleting the card\\.$`,
      ),
    );
    assert.equal((await clientChange(ann, id, 'pause')).status, 200);
    assertError(
      await ann.client.deleteCard(ann.cardId),
      409,
      'conflict',
      new RegExp(`the paused recurring payment ${id}`),
    );
    assert.equal((await ann.client.card(ann.cardId)).body.status, 'active', 'unchanged');
    // Another card of the user is not charged by it.
    assert.equal((await ann.client.deleteCard(other.body.card_id)).status, 204);
    assert.equal((await clientChange(ann, id, 'cancel')).status, 200);
    assert.equal((await ann.client.deleteCard(ann.cardId)).status, 204);
  });

  it('Integration API: list by user_id, pause, resume and cancel; another integrator’s schedule or user is 404', async () => {
    const ann = await tenant({ rent_due_day: 5 });
    const schedule = await scheduleOk(ann);
    const id = schedule.schedule_id;
    t.clock.advance(SECOND);
    const paused = await schedules.change(id, 'pause');
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.status, 'paused');
    assertError(await schedules.change(id, 'pause'), 409, 'conflict');
    t.clock.advance(SECOND);
    assert.equal((await schedules.change(id, 'resume')).body.status, 'active');
    t.clock.advance(SECOND);
    const canceled = await schedules.change(id, 'cancel');
    assert.equal(canceled.body.status, 'canceled');
    assertError(await schedules.change(id, 'resume'), 409, 'conflict', /this one is canceled/);
    assert.deepEqual((await schedules.list(ann.userId)).body, { schedules: [canceled.body] });
    assert.deepEqual(await scheduleEvents(t, id), [
      'schedule_created',
      'schedule_paused',
      'schedule_resumed',
      'schedule_canceled',
    ]);

    const other = integrationSchedules(t, otherApi);
    assertError(await other.change(id, 'pause'), 404, 'not_found', new RegExp(`No schedule ${id}\\.`));
    assertError(
      await schedules.change('sch_unknown', 'pause'),
      404,
      'not_found',
      /^No schedule sch_unknown\. List a user's schedules and their ids with GET \/api\/third-party\/schedules\/\?user_id=<your user_id>\.$/,
    );
    assertError(
      await schedules.change('nope', 'pause'),
      400,
      'invalid_request',
      /^Invalid params: schedule_id: Enter a schedule id: "sch_" followed by letters and digits\.$/,
    );
    assertError(
      await other.list(ann.userId),
      404,
      'not_found',
      new RegExp(
        `^No user ${ann.userId}\\. Send the user_id the user was onboarded with \\(POST /api/third-party/onboarding/\\)\\.$`,
      ),
    );
    assertError(
      await schedules.list('abc'),
      400,
      'invalid_request',
      /user_id: A valid integer is required\./,
    );
    assert.equal((await schedules.list(0)).status, 400);
    assert.equal(
      (
        await send(t, {
          method: 'GET',
          url: '/api/third-party/schedules/',
          headers: { authorization: `Token ${api.serverToken}` },
        })
      ).status,
      400,
    );
    assert.equal(
      (await send(t, { method: 'GET', url: `/api/third-party/schedules/?user_id=${ann.userId}` })).status,
      401,
    );
    // A user session token is not a server token.
    assert.equal(
      (
        await send(t, {
          method: 'POST',
          url: `/api/third-party/schedules/${id}/pause/`,
          headers: { authorization: `Token ${ann.client.token}` },
        })
      ).status,
      401,
    );
  });

  it('OpenAPI: the schedule routes and the Schedule schema are in the document', async () => {
    const doc = (await send(t, { method: 'GET', url: '/api/third-party/openapi.json' })).body;
    assert.ok(doc.paths['/api/third-party/schedules/'].get);
    for (const action of ['pause', 'resume', 'cancel']) {
      const operation = doc.paths[`/api/third-party/schedules/{schedule_id}/${action}/`].post;
      assert.equal(operation.operationId, `${action}Schedule`);
      assert.ok(operation.responses['200'] && operation.responses['404'] && operation.responses['409']);
    }
    assert.ok(doc.paths['/api/third-party/sandbox/run-schedules/'].post);
    const list = doc.paths['/api/third-party/schedules/'].get;
    assert.equal(list.parameters[0].name, 'user_id');
    assert.equal(list.parameters[0].in, 'query');
    const schema = list.responses['200'].content['application/json'].schema;
    assert.deepEqual(Object.keys(schema.properties.schedules.items.properties).sort(), SCHEDULE_KEYS);
    assert.ok(!Object.keys(doc.paths).some((path) => path.startsWith('/api/client')));
  });

  it('feature recurring off: set-up answers 409 feature_disabled; the tenant can still list, pause, resume and cancel', async () => {
    const ann = await tenant({ rent_due_day: 20 });
    const schedule = await scheduleOk(ann);
    const id = schedule.schedule_id;
    const patch = (recurring: boolean) =>
      send(t, {
        method: 'PATCH',
        url: `/api/operator/integrators/${api.integratorId}`,
        headers: { authorization: `Bearer ${OPERATOR_TOKEN}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ features: { recurring } }),
      });
    assert.equal((await patch(false)).status, 200);
    try {
      const session = await api.loginOk(ann.email);
      const client = { ...ann, client: clientOf(t, session.token) };
      assertError(
        await createSchedule(client),
        409,
        'feature_disabled',
        /Recurring payments are not enabled for this integration\./,
      );
      const listed = await client.client.call('GET', '/schedules');
      assert.equal(listed.status, 200, JSON.stringify(listed.body));
      assert.deepEqual(
        listed.body.schedules.map((s: { schedule_id: string }) => s.schedule_id),
        [id],
      );
      for (const [action, status] of [
        ['pause', 'paused'],
        ['resume', 'active'],
        ['pause', 'paused'],
        ['cancel', 'canceled'],
      ] as const) {
        t.clock.advance(SECOND);
        const answer = await clientChange(client, id, action);
        assert.equal(answer.status, 200, `${action}: ${JSON.stringify(answer.body)}`);
        assert.equal(answer.body.status, status);
      }
      assert.equal(
        await count(t, "events WHERE type = 'schedule_created' AND data->>'email' = $1", [ann.email]),
        1,
      );
      assertError(await schedules.change(id, 'pause'), 409, 'conflict', /this one is canceled/);
    } finally {
      assert.equal((await patch(true)).status, 200);
    }
  });
});

describe('the sandbox test clock charges schedules', () => {
  let t: TestApp;
  let api: Api;
  let otherApi: Api;
  let schedules: ReturnType<typeof integrationSchedules>;

  before(async () => {
    ({ t } = await startPaymentApp());
    otherApi = integrationApi(t, await t.createIntegrator({ ...UNLIMITED, name: 'Other platform' }));
  });
  after(() => t.close());
  // Each test has an integrator of its own, so the test clock (which runs all of an integrator's schedules) counts
  // only that test's charges. Card fee 1.45 %.
  beforeEach(async () => {
    api = integrationApi(
      t,
      await t.createIntegrator({ ...UNLIMITED, fees: { card: { percent: '1.45', fixed: '0.00' } } }),
    );
    schedules = integrationSchedules(t, api);
  });

  const tenant = (tenancy: Record<string, unknown> = {}, pan = PAN.visa) =>
    scheduleTenant(t, api, tenancy, pan, () => runJobs(t));

  /** The test clock as of a date; then a second passes, so each run's events are newer than the last's. */
  async function run(asOf: string) {
    const answer = await schedules.run(asOf);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    t.clock.advance(SECOND);
    return answer.body as { charged: number; failed: number };
  }

  it('charges each due date once, off-session, as a payment of the schedule with its payment_success', async () => {
    const ann = await tenant({ rent_due_day: 31, amount: '1200.00' });
    const schedule = await scheduleOk(ann);
    assert.equal(schedule.next_due_date, '2026-03-31');
    assert.deepEqual(await run('2026-03-30'), { charged: 0, failed: 0, waiting: 0 });
    assert.deepEqual(await run('2026-03-31'), { charged: 1, failed: 0, waiting: 0 });
    assert.deepEqual(await run('2026-03-31'), { charged: 0, failed: 0, waiting: 0 }, 'again: nothing more');
    assert.deepEqual(
      await run('2026-06-30'),
      { charged: 3, failed: 0, waiting: 0 },
      'April 30, May 31, June 30',
    );
    const [{ data } = { data: undefined }] = await schedulePaymentEvents(t, schedule.schedule_id);
    const events = await schedulePaymentEvents(t, schedule.schedule_id);
    assert.deepEqual(
      events.map((e) => e.type),
      Array(4).fill('payment_success'),
    );
    assert.deepEqual(
      {
        ...data!.payment,
        payment_id: undefined,
        processor_reference: undefined,
        created_at: undefined,
        updated_at: undefined,
      },
      {
        payment_id: undefined,
        status: 'succeeded',
        pure_amount: '1200.00',
        fee: '17.40',
        amount: '1217.40',
        currency: 'GBP',
        method: 'card',
        card: { brand: 'visa', last4: '4242', exp_month: 12, exp_year: 2030 },
        reference: ann.reference,
        session_id: ann.sessionId,
        schedule_id: schedule.schedule_id,
        installment_number: null,
        failure_code: null,
        failure_message: null,
        processor: 'sandbox',
        processor_reference: undefined,
        receipt_url: `/api/third-party/payments/${data!.payment.payment_id}/receipt.pdf`,
        created_at: undefined,
        updated_at: undefined,
      },
    );
    assert.match(String(data!.payment.processor_reference), /^ch_sandbox_/);
    assert.deepEqual(
      { user_id: data!.user_id, email: data!.email, payment_reference: data!.payment_reference },
      { user_id: ann.userId, email: ann.email, payment_reference: ann.reference },
    );
    const charges = await t.db.query<{ idempotency_key: string; off_session: boolean; amount_pence: string }>(
      `SELECT idempotency_key, off_session, amount_pence::text FROM sandbox_charges
        WHERE idempotency_key LIKE $1 ORDER BY idempotency_key`,
      [`${schedule.schedule_id}:%`],
    );
    assert.deepEqual(
      charges.map((c) => [c.idempotency_key, c.off_session, c.amount_pence]),
      ['2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30'].map((d) => [
        `${schedule.schedule_id}:${d}:1`,
        true,
        '121740',
      ]),
    );
    // The session query shows them among the payments of the session the schedule was set up in.
    const view = await api.session(ann.sessionId);
    assert.equal(
      view.body.payments.filter((p: { schedule_id: string }) => p.schedule_id === schedule.schedule_id)
        .length,
      4,
    );
    assert.equal((await schedules.list(ann.userId)).body.schedules[0].next_due_date, '2026-07-31');
  });

  it('a paused schedule skips the due dates that pass; resuming continues with the next one', async () => {
    const ann = await tenant({ rent_due_day: 10 });
    const schedule = await scheduleOk(ann);
    const id = schedule.schedule_id;
    assert.deepEqual(await run('2026-03-10'), { charged: 1, failed: 0, waiting: 0 });
    assert.equal((await schedules.change(id, 'pause')).status, 200);
    assert.deepEqual(
      await run('2026-05-10'),
      { charged: 0, failed: 0, waiting: 0 },
      'April and May pass while paused',
    );
    assert.equal((await schedules.list(ann.userId)).body.schedules[0].next_due_date, '2026-06-10');
    const resumed = await clientChange(ann, id, 'resume');
    assert.equal(resumed.body.next_due_date, '2026-06-10');
    assert.deepEqual(await run('2026-06-10'), { charged: 1, failed: 0, waiting: 0 });
    const dues = await t.db.query<{ due_date: string }>(
      'SELECT due_date::text FROM schedule_charges WHERE schedule_id = $1 ORDER BY due_date',
      [id],
    );
    assert.deepEqual(
      dues.map((d) => d.due_date),
      ['2026-03-10', '2026-06-10'],
    );
    // Resuming after days the test clock never ran: from today (2026-03-01 here) on, the stored date stands.
    assert.equal((await clientChange(ann, id, 'pause')).status, 200);
    t.clock.set('2026-08-11T09:00:00.000Z');
    try {
      assert.equal((await schedules.change(id, 'resume')).body.next_due_date, '2026-09-10');
    } finally {
      t.clock.set('2026-03-01T09:00:00.000Z');
    }
  });

  it('resuming continues with the next due date strictly after today, even when today’s has not been reached yet', async () => {
    // Today (2026-03-01) is a due date, and the scheduler has not reached it yet today.
    const ann = await tenant({ rent_due_day: 1 });
    const schedule = await scheduleOk(ann);
    const id = schedule.schedule_id;
    assert.equal(schedule.next_due_date, '2026-03-01');
    assert.equal((await schedules.change(id, 'pause')).status, 200);
    const now = t.clock.now();
    try {
      for (const time of ['00:00:00.000', '09:00:01.000', '23:59:59.999']) {
        t.clock.set(`2026-03-01T${time}Z`);
        const resumed = await schedules.change(id, 'resume');
        assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
        assert.equal(resumed.body.next_due_date, '2026-04-01', time);
        assert.equal((await schedules.change(id, 'pause')).status, 200);
      }
    } finally {
      t.clock.set(new Date(now.getTime() + SECOND).toISOString());
    }
    const resumed = await clientChange(ann, id, 'resume');
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.next_due_date, '2026-04-01');
    assert.deepEqual(
      await run('2026-03-01'),
      { charged: 0, failed: 0, waiting: 0 },
      'today’s due date is skipped',
    );
    assert.deepEqual(await run('2026-04-01'), { charged: 1, failed: 0, waiting: 0 });
  });

  it('installments: each on its own due date with its own amount and installment_number, then completed', async () => {
    const ann = await tenant({
      end_rent_date: '2026-12-31',
      installment_payment: {
        total_amount: 3000,
        installments: [
          installment(1, '2026-02-01', 1000),
          installment(2, '2026-03-05', 1500.5),
          installment(3, '2026-08-31', 499.5),
        ],
      },
    });
    assert.deepEqual(await createSchedule(ann, { pure_amount: '100.00' }).then((a) => a.body), {
      pure_amount: [
        'An installment plan charges each installment’s own amount: leave pure_amount out, or set use_installment_plan to false.',
      ],
    });
    const schedule = await scheduleOk(ann);
    assert.equal(schedule.installment_plan, true);
    assert.equal(schedule.next_due_date, '2026-03-05', 'installment 1 is past');
    assert.equal(schedule.pure_amount, '1500.50');
    assert.deepEqual(await run('2026-08-30'), { charged: 1, failed: 0, waiting: 0 });
    assert.equal((await schedules.list(ann.userId)).body.schedules[0].pure_amount, '499.50');
    assert.deepEqual(await run('2026-12-31'), { charged: 1, failed: 0, waiting: 0 });
    const after = (await schedules.list(ann.userId)).body.schedules[0];
    assert.deepEqual([after.status, after.next_due_date, after.pure_amount], ['completed', null, '499.50']);
    const payments = (await schedulePaymentEvents(t, schedule.schedule_id)).map((e) => e.data.payment);
    assert.deepEqual(
      payments.map((p) => [p.installment_number, p.pure_amount, p.fee, p.amount]),
      [
        [2, '1500.50', '21.76', '1522.26'],
        [3, '499.50', '7.24', '506.74'],
      ],
    );
    assertError(
      await clientChange(ann, schedule.schedule_id, 'pause'),
      409,
      'conflict',
      /this one is completed/,
    );
    // The same tenant may choose the rent instead of the plan.
    const bob = await tenant({
      installment_payment: { installments: [installment(1, '2026-05-01', 10)] },
      rent_due_day: 2,
    });
    const rent = await scheduleOk(bob, { use_installment_plan: false, pure_amount: '700.00' });
    assert.deepEqual(
      [rent.installment_plan, rent.next_due_date, rent.pure_amount],
      [false, '2026-03-02', '700.00'],
    );
  });

  it('off-session authentication_required (4000 0027 6000 3184): the charge waits for the tenant without retries; unconfirmed by its confirm-by day it fails', async () => {
    const ann = await tenant({ rent_due_day: 3 }, PAN.threeDsAlways);
    const schedule = await scheduleOk(ann);
    assert.deepEqual(await run('2026-03-03'), { charged: 0, failed: 0, waiting: 1 });
    for (const day of ['2026-03-04', '2026-03-05', '2026-03-06']) {
      assert.deepEqual(await run(day), { charged: 0, failed: 0, waiting: 0 }, day);
    }
    assert.deepEqual(
      await run('2026-03-07'),
      { charged: 0, failed: 1, waiting: 0 },
      'the day after confirm_by',
    );
    const events = await schedulePaymentEvents(t, schedule.schedule_id);
    assert.equal(events.length, 2);
    const waiting = events.find((e) => e.type === 'payment_action_required')!;
    assert.equal(waiting.data.payment.status, 'requires_action');
    assert.deepEqual(waiting.data.action_required, {
      reason: 'authentication_required',
      confirm_by: '2026-03-06',
    });
    const failed = events.find((e) => e.type === 'payment_failed')!;
    assert.equal(failed.data.payment.payment_id, waiting.data.payment.payment_id, 'the same payment');
    assert.equal(failed.data.payment.failure_code, 'authentication_required');
    assert.equal(
      failed.data.payment.failure_message,
      'The tenant did not confirm this payment with their bank in time.',
    );
    assert.equal(failed.data.retry_on, null);
    assert.equal(
      await count(t, 'sandbox_charges WHERE idempotency_key LIKE $1', [`${schedule.schedule_id}:%`]),
      1,
    );
    // The schedule goes on: the next due date waits for the tenant the same way.
    assert.deepEqual(await run('2026-04-03'), { charged: 0, failed: 0, waiting: 1 });
  });

  it('a deleted saved card (deleted before the Client API refused it): the charge fails at once (card_unavailable) without asking the processor', async () => {
    const ann = await tenant({ rent_due_day: 9 });
    const schedule = await scheduleOk(ann);
    // The Client API refuses to delete it while the schedule is live; a card deleted before it did:
    await t.db.query("UPDATE saved_cards SET status = 'deleted', is_default = false WHERE id = $1", [
      ann.cardId,
    ]);
    assert.deepEqual(await run('2026-03-09'), { charged: 0, failed: 1, waiting: 0 });
    assert.deepEqual(await run('2026-03-12'), { charged: 0, failed: 0, waiting: 0 });
    const [event] = await schedulePaymentEvents(t, schedule.schedule_id);
    assert.deepEqual(
      [event!.data.payment.failure_code, event!.data.payment.failure_message, event!.data.retry_on],
      ['card_unavailable', 'The saved card this schedule charges has been deleted.', null],
    );
    assert.equal(
      await count(t, 'sandbox_charges WHERE idempotency_key LIKE $1', [`${schedule.schedule_id}:%`]),
      0,
    );
  });

  it('a refused charge is retried 1 and 3 days after the first attempt, then stays failed with payment_failed', async () => {
    const ann = await tenant({ rent_due_day: 7 });
    const schedule = await scheduleOk(ann);
    const id = schedule.schedule_id;
    // The card has since run out of money (the sandbox's insufficient_funds behaviour).
    await t.db.query("UPDATE sandbox_tokens SET behaviour = 'insufficient_funds' WHERE id = $1", [
      ann.cardToken,
    ]);
    assert.deepEqual(await run('2026-03-07'), { charged: 0, failed: 1, waiting: 0 });
    assert.deepEqual(await run('2026-03-07'), { charged: 0, failed: 0, waiting: 0 });
    assert.deepEqual(await run('2026-03-08'), { charged: 0, failed: 1, waiting: 0 }, 'day 1');
    assert.deepEqual(await run('2026-03-09'), { charged: 0, failed: 0, waiting: 0 });
    assert.deepEqual(await run('2026-03-10'), { charged: 0, failed: 1, waiting: 0 }, 'day 3');
    assert.deepEqual(await run('2026-03-20'), { charged: 0, failed: 0, waiting: 0 }, 'no fourth attempt');
    const events = await schedulePaymentEvents(t, id);
    assert.deepEqual(
      events.map((e) => [e.type, e.data.payment.failure_code, e.data.retry_on]),
      [
        ['payment_failed', 'insufficient_funds', '2026-03-08'],
        ['payment_failed', 'insufficient_funds', '2026-03-10'],
        ['payment_failed', 'insufficient_funds', null],
      ],
    );
    const [charge] = await t.db.query<{ status: string; attempts: number }>(
      "SELECT status, attempts FROM schedule_charges WHERE schedule_id = $1 AND due_date = '2026-03-07'",
      [id],
    );
    assert.deepEqual({ ...charge }, { status: 'failed', attempts: 3 });
    const keys = await t.db.query<{ idempotency_key: string }>(
      'SELECT idempotency_key FROM sandbox_charges WHERE idempotency_key LIKE $1 ORDER BY idempotency_key',
      [`${id}:%`],
    );
    assert.deepEqual(
      keys.map((k) => k.idempotency_key),
      [1, 2, 3].map((n) => `${id}:2026-03-07:${n}`),
    );

    // A retry that succeeds ends it: the money is back on the card before day 1.
    assert.deepEqual(await run('2026-04-07'), { charged: 0, failed: 1, waiting: 0 });
    await t.db.query("UPDATE sandbox_tokens SET behaviour = 'succeed' WHERE id = $1", [ann.cardToken]);
    assert.deepEqual(await run('2026-04-08'), { charged: 1, failed: 0, waiting: 0 });
    assert.deepEqual(await run('2026-04-10'), { charged: 0, failed: 0, waiting: 0 });
    // Pausing withdraws a retry still waiting.
    await t.db.query("UPDATE sandbox_tokens SET behaviour = 'card_declined' WHERE id = $1", [ann.cardToken]);
    assert.deepEqual(await run('2026-05-07'), { charged: 0, failed: 1, waiting: 0 });
    assert.equal((await schedules.change(id, 'pause')).status, 200);
    assert.equal((await schedules.change(id, 'resume')).status, 200);
    assert.deepEqual(await run('2026-05-10'), { charged: 0, failed: 0, waiting: 0 });
    const [withdrawn] = await t.db.query<{ status: string }>(
      "SELECT status FROM schedule_charges WHERE schedule_id = $1 AND due_date = '2026-05-07'",
      [id],
    );
    assert.equal(withdrawn!.status, 'canceled');
  });

  it('a charge outside the payment limits (the rent changed since set-up) fails at once (amount_out_of_range) without asking the processor', async () => {
    const tenancy = { rent_due_day: 13, amount: '1000.00' };
    const ann = await tenant(tenancy);
    const schedule = await scheduleOk(ann);
    await api.onboardOk(
      userBody({
        user_id: ann.userId,
        email: ann.email,
        tenant: [tenancyBody({ payment_reference: ann.reference, ...tenancy, amount: '100000.01' })],
      }),
    );
    assert.deepEqual(await run('2026-03-13'), { charged: 0, failed: 1, waiting: 0 });
    assert.deepEqual(await run('2026-03-16'), { charged: 0, failed: 0, waiting: 0 }, 'no retry');
    const [event, ...more] = await schedulePaymentEvents(t, schedule.schedule_id);
    assert.equal(more.length, 0);
    assert.deepEqual(
      [
        event!.type,
        event!.data.payment.status,
        event!.data.payment.pure_amount,
        event!.data.payment.failure_code,
        event!.data.payment.failure_message,
        event!.data.retry_on,
      ],
      [
        'payment_failed',
        'failed',
        '100000.01',
        'amount_out_of_range',
        'The amount (100000.01) is outside the payment limits (1.00 to 100000.00).',
        null,
      ],
    );
    assert.equal(
      await count(t, 'sandbox_charges WHERE idempotency_key LIKE $1', [`${schedule.schedule_id}:%`]),
      0,
    );
    const [charge] = await t.db.query<{ status: string }>(
      'SELECT status FROM schedule_charges WHERE schedule_id = $1',
      [schedule.schedule_id],
    );
    assert.equal(charge!.status, 'failed');
  });

  it('the scheduler’s keys: the Client API refuses keys starting with sch_ (400); a payment holding one does not roll back the other charges', async () => {
    const ann = await tenant({ rent_due_day: 11 });
    const bob = await tenant({ rent_due_day: 11 });
    const annSchedule = await scheduleOk(ann);
    const bobSchedule = await scheduleOk(bob);
    const key = `${annSchedule.schedule_id}:2026-03-11:1`;
    const token = await cardToken(t, PAN.visa);
    const reserved = {
      idempotency_key: ['Keys starting with "sch_" are reserved for recurring payments; use another key.'],
    };
    for (const answer of [
      await ann.client.pay({ card_token: token, idempotency_key: key }),
      await send(t, {
        method: 'POST',
        url: '/api/client/payments',
        headers: { authorization: `Bearer ${ann.client.token}`, 'idempotency-key': 'sch_anything' },
        payload: { pure_amount: '1200.00', method: 'card', card_token: token },
      }),
    ]) {
      assert.equal(answer.status, 400, JSON.stringify(answer.body));
      assert.deepEqual(answer.body, reserved);
    }
    assert.equal(await count(t, 'payments WHERE session_id = $1', [ann.sessionId]), 0);
    // A payment stored before the Client API refused such keys, holding the key of Ann's first attempt.
    await t.db.query(
      `INSERT INTO payments (id, integrator_id, session_id, user_id, tenancy_id, status, pure_amount_pence, fee_pence,
                             amount_pence, method, reference, idempotency_key, processor, processor_token, created_at,
                             updated_at)
       SELECT 'pay_legacyClientKey', s.integrator_id, s.id, s.user_id, s.tenancy_id, 'failed', 100, 0, 100, 'card',
              'x', $2, $3, 'tok_legacy', $4, $4
         FROM sessions s WHERE s.id = $1`,
      [ann.sessionId, key, t.app.ctx.processor.name, t.clock.now()],
    );
    assert.deepEqual(
      await run('2026-03-11'),
      { charged: 2, failed: 0, waiting: 0 },
      'both recorded, in one batch',
    );
    const [annPayment] = await t.db.query<{ idempotency_key: string; status: string }>(
      'SELECT idempotency_key, status FROM payments WHERE schedule_id = $1',
      [annSchedule.schedule_id],
    );
    assert.equal(annPayment!.status, 'succeeded');
    assert.match(annPayment!.idempotency_key, new RegExp(`^${key}#pay_`));
    assert.deepEqual(
      (await schedulePaymentEvents(t, bobSchedule.schedule_id)).map((e) => e.type),
      ['payment_success'],
    );
    assert.deepEqual(
      (await schedulePaymentEvents(t, annSchedule.schedule_id)).map((e) => e.type),
      ['payment_success'],
    );
  });

  it('onboarding updates: a new rent or frequency applies from the next due date; an earlier end completes the schedule', async () => {
    const tenancy = { rent_due_day: 15, amount: '1000.00', end_rent_date: '2027-12-31' };
    const ann = await tenant(tenancy);
    const schedule = await scheduleOk(ann);
    const own = await tenant({ ...tenancy });
    const ownSchedule = await scheduleOk(own, { pure_amount: '900.00' });
    assert.deepEqual(await run('2026-03-15'), { charged: 2, failed: 0, waiting: 0 });
    const update = (who: ScheduleTenant, changes: Record<string, unknown>) =>
      api.onboardOk(
        userBody({
          user_id: who.userId,
          email: who.email,
          tenant: [tenancyBody({ payment_reference: who.reference, ...tenancy, ...changes })],
        }),
      );
    await update(ann, { amount: '1100.00', frequency: 'every_2_month' });
    await update(own, { amount: '1100.00' });
    const listed = (await schedules.list(ann.userId)).body.schedules[0];
    assert.deepEqual(
      [listed.pure_amount, listed.frequency, listed.next_due_date],
      ['1100.00', 'every_2_month', '2026-04-15'],
    );
    assert.equal(
      (await schedules.list(own.userId)).body.schedules[0].pure_amount,
      '900.00',
      'the tenant’s own amount stays',
    );
    // Ann: April 15 and June 15 (every two months from the next due date); the other: every month, April to July.
    assert.deepEqual(await run('2026-07-15'), { charged: 6, failed: 0, waiting: 0 });
    assert.deepEqual(
      (
        await t.db.query<{ due_date: string; pure: string }>(
          'SELECT due_date::text, pure_amount_pence::text AS pure FROM schedule_charges WHERE schedule_id = $1 ORDER BY due_date',
          [schedule.schedule_id],
        )
      ).map((c) => [c.due_date, c.pure]),
      [
        ['2026-03-15', '100000'],
        ['2026-04-15', '110000'],
        ['2026-06-15', '110000'],
      ],
    );
    const amounts = (await schedulePaymentEvents(t, ownSchedule.schedule_id)).map(
      (e) => e.data.payment.pure_amount,
    );
    assert.deepEqual(amounts, Array(5).fill('900.00'), 'the tenant’s own amount, March to July');
    // The tenancy now ends before the next due date (2026-08-15): completed at once.
    await update(ann, { amount: '1100.00', frequency: 'every_2_month', end_rent_date: '2026-08-01' });
    const ended = (await schedules.list(ann.userId)).body.schedules[0];
    assert.deepEqual([ended.status, ended.next_due_date], ['completed', null]);
    // A tenancy that ends while the scheduler waits completes when the scheduler reaches it.
    await t.db.query("UPDATE tenancies SET end_rent_date = '2026-09-01' WHERE payment_reference = $1", [
      own.reference,
    ]);
    assert.deepEqual(await run('2026-12-31'), { charged: 1, failed: 0, waiting: 0 }, 'August 15 only');
    assert.equal((await schedules.list(own.userId)).body.schedules[0].status, 'completed');
  });

  it('a tenancy no longer active pauses its schedule when the scheduler reaches it (schedule_paused), and cannot be resumed', async () => {
    const ann = await tenant({ rent_due_day: 25 });
    const schedule = await scheduleOk(ann);
    await t.db.query('UPDATE tenancies SET is_active = false WHERE payment_reference = $1', [ann.reference]);
    t.clock.advance(SECOND);
    assert.deepEqual(await run('2026-04-30'), { charged: 0, failed: 0, waiting: 0 });
    const paused = (await schedules.list(ann.userId)).body.schedules[0];
    assert.deepEqual([paused.status, paused.next_due_date], ['paused', '2026-05-25']);
    assert.deepEqual(await scheduleEvents(t, schedule.schedule_id), ['schedule_created', 'schedule_paused']);
    assertError(
      await schedules.change(schedule.schedule_id, 'resume'),
      409,
      'conflict',
      /tenancy is not active/,
    );
  });

  it('the test clock runs only the calling integrator’s schedules, and takes a real date', async () => {
    const ann = await tenant({ rent_due_day: 28 });
    await scheduleOk(ann);
    assert.deepEqual((await integrationSchedules(t, otherApi).run('2026-03-28')).body, {
      charged: 0,
      failed: 0,
      waiting: 0,
    });
    assert.deepEqual(await run('2026-03-28'), { charged: 1, failed: 0, waiting: 0 });
    for (const bad of ['2026-02-30', '2026-3-1', 20260301, null, '0000-01-01']) {
      const answer = await schedules.run(bad);
      assert.equal(answer.status, 400, JSON.stringify(bad));
      assert.ok(answer.body.as_of, JSON.stringify(answer.body));
    }
    // Year 0000 passes the date format but is no calendar year: the same field error as any unreal date.
    assert.deepEqual((await schedules.run('0000-01-01')).body, {
      as_of: ['Date has wrong format or is not a real date. Use YYYY-MM-DD.'],
    });
  });
});

describe('the sandbox test clock in production', () => {
  it('does not exist: POST /api/third-party/sandbox/run-schedules/ answers 404, the schedule routes are there', async () => {
    const { t } = await startPaymentApp();
    try {
      const live = await new IntegratorService(t.db, t.clock, 'production').create(
        { name: 'Live platform' },
        SYSTEM_ACTOR,
      );
      const app = Fastify();
      app.decorate('ctx', { ...t.app.ctx, config: { ...t.config, serviceEnv: 'production' } });
      installValidation(app);
      installErrorHandling(app);
      await app.register((await import('@fastify/rate-limit')).default, { global: false });
      await app.register((await import('../../../src/integration/plugin.ts')).integrationApi, {
        prefix: '/api/third-party',
      });
      const headers = { authorization: `Token ${live.serverToken}`, 'content-type': 'application/json' };
      const clock = await app.inject({
        method: 'POST',
        url: '/api/third-party/sandbox/run-schedules/',
        headers,
        payload: '{"as_of": "2026-03-01"}',
      });
      assert.equal(clock.statusCode, 404);
      const list = await app.inject({ method: 'GET', url: '/api/third-party/schedules/?user_id=1', headers });
      assert.equal(list.statusCode, 404, list.body);
      assert.match(list.body, /No user 1\./);
      await app.close();
    } finally {
      await t.close();
    }
  });
});
