import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import {
  type Answer,
  type Api,
  assertAnswer,
  assertError,
  integrationApi,
  send,
  UNLIMITED,
} from '../../support/api-client.ts';
import { tenancyBody, userBody } from '../../support/fixtures.ts';
import { OPERATOR_TOKEN, startTestApp, type TestApp, tokenHeader } from '../../support/helpers.ts';
import { count } from '../../support/payment-client.ts';

describe('POST /api/third-party/sandbox/run-reminders/ (runReminders)', () => {
  let t: TestApp;
  let users = 0;
  before(async () => {
    // The clock starts at 2026-03-01T09:00Z.
    t = await startTestApp();
  });
  after(() => t.close());

  /** An integrator of its own for each test: a run sends every reminder of the caller. */
  const newApi = async () => integrationApi(t, await t.createIntegrator(UNLIMITED));
  const runReminders = (who: Api, asOf: unknown): Promise<Answer> =>
    send(t, {
      method: 'POST',
      url: '/api/third-party/sandbox/run-reminders/',
      headers: tokenHeader(who.serverToken),
      payload: { as_of: asOf },
    });
  const setReminders = async (who: Api, days: number | null) => {
    const answer = await send(t, {
      method: 'PATCH',
      url: `/api/operator/integrators/${who.integratorId}`,
      headers: { authorization: `Bearer ${OPERATOR_TOKEN}` },
      payload: { reminder_days_before: days },
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  };
  /** A new tenant of `who` whose rent (£1200.00 on the 1st) starts falling due on 1 April 2026. */
  async function tenancy(who: Api): Promise<string> {
    const reference = `REMIND-${++users}`;
    await who.onboardOk(
      userBody({
        user_id: users,
        email: `remind-${users}@example.com`,
        tenant: [
          tenancyBody({ payment_reference: reference, start_rent_date: '2026-04-01', rent_due_day: 1 }),
        ],
      }),
    );
    return reference;
  }
  const reminders = (reference: string) =>
    t.db.query<{ type: string; data: Record<string, unknown> }>(
      "SELECT type, data FROM events WHERE data->>'payment_reference' = $1 AND type LIKE 'rent_%' ORDER BY created_at",
      [reference],
    );

  it('200 {sent: 0} while the integrator’s reminders are off (the default)', async () => {
    const api = await newApi();
    const reference = await tenancy(api);
    assertAnswer(await runReminders(api, '2026-03-29'), 200, { sent: 0 });
    assertAnswer(await runReminders(api, '2026-04-02'), 200, { sent: 0 });
    assert.deepEqual(await reminders(reference), []);
  });

  it('with reminders on: rent_due_soon before the due date, rent_overdue after it, each sent once', async () => {
    const api = await newApi();
    await setReminders(api, 3);
    const reference = await tenancy(api);
    assertAnswer(await runReminders(api, '2026-03-28'), 200, { sent: 0 });
    assertAnswer(await runReminders(api, '2026-03-29'), 200, { sent: 1 });
    assertAnswer(await runReminders(api, '2026-03-30'), 200, { sent: 0 });
    t.clock.advance(1000);
    assertAnswer(await runReminders(api, '2026-04-02'), 200, { sent: 1 });
    const due = {
      user_id: users,
      email: `remind-${users}@example.com`,
      payment_reference: reference,
      due_date: '2026-04-01',
    };
    assert.deepEqual(await reminders(reference), [
      { type: 'rent_due_soon', data: { ...due, amount_due: '1200.00', arrears: '0.00', days_after_due: -3 } },
      {
        type: 'rent_overdue',
        data: { ...due, amount_due: '1200.00', arrears: '1200.00', days_after_due: 1 },
      },
    ]);
  });

  it('sends the caller’s reminders only', async () => {
    const [api, otherApi] = [await newApi(), await newApi()];
    await setReminders(api, 3);
    await setReminders(otherApi, 3);
    const ours = await tenancy(api);
    const theirs = await tenancy(otherApi);
    assertAnswer(await runReminders(api, '2026-03-29'), 200, { sent: 1 });
    assert.equal((await reminders(ours)).length, 1);
    assert.deepEqual(await reminders(theirs), []);
    assertAnswer(await runReminders(otherApi, '2026-03-29'), 200, { sent: 1 });
    assert.equal((await reminders(theirs)).length, 1);
  });

  it('400 for an as_of that is missing or not a real date; nothing is sent', async () => {
    const api = await newApi();
    await setReminders(api, 3);
    await tenancy(api);
    const before = await count(t, 'events');
    for (const asOf of ['2026-02-30', '2026-03-29T00:00:00Z']) {
      assertAnswer(await runReminders(api, asOf), 400, {
        as_of: ['Date has wrong format or is not a real date. Use YYYY-MM-DD.'],
      });
    }
    assertAnswer(await runReminders(api, undefined), 400, { as_of: ['This field is required.'] });
    assert.equal(await count(t, 'events'), before);
    assertAnswer(await runReminders(api, '2026-03-29'), 200, { sent: 1 });
  });

  it('401 with an unknown token; nothing is sent', async () => {
    const api = await newApi();
    await setReminders(api, 3);
    await tenancy(api);
    const before = await count(t, 'events');
    const answer = await send(t, {
      method: 'POST',
      url: '/api/third-party/sandbox/run-reminders/',
      headers: tokenHeader(`rp_sandbox_${'0'.repeat(40)}`),
      payload: { as_of: '2026-03-29' },
    });
    assertError(answer, 401, 'unauthorized', /^Invalid or expired token\./);
    assert.equal(await count(t, 'events'), before);
    assertAnswer(await runReminders(api, '2026-03-29'), 200, { sent: 1 });
  });
});
