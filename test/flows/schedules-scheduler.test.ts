import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { jobHandlers } from '../../src/jobs.ts';
import { FakeClock } from '../../src/platform/clock/clock.ts';
import { Worker } from '../../src/platform/jobs/worker.ts';
import { createLogger } from '../../src/platform/log/logger.ts';
import { enqueueSchedulerRun, SCHEDULER_TICK_MS } from '../../src/schedules/jobs/schedules-run.ts';
import { Scheduler } from '../../src/schedules/scheduler.ts';
import { addDays } from '../../src/shared/dates.ts';
import { type Api, integrationApi, UNLIMITED } from '../support/api-client.ts';
import { installment } from '../support/fixtures.ts';
import { runJobs, startTestApp, type TestApp } from '../support/helpers.ts';
import { clientOf, count, PAN, processorWith } from '../support/payment-client.ts';
import {
  integrationSchedules,
  type ScheduleTenant,
  scheduleOk,
  scheduleTenant,
} from '../support/schedule-helpers.ts';
import { Receiver, verify } from '../support/webhook-receiver.ts';

/** An oracle sharing no code with src/shared/dates.ts: JavaScript's calendar, day 0 of the next month is the last. */
function due(year: number, monthIndex: number, day: number): string {
  const y = year + Math.floor(monthIndex / 12);
  const m = monthIndex % 12;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(day, last))).toISOString().slice(0, 10);
}

/** The rent due dates from `from` to `to` (inclusive), a due date every `months` months from January 2027. */
function series(day: number, months: number, from: string, to: string): string[] {
  const dates: string[] = [];
  for (let k = 0; k < 48; k += months) {
    const date = due(2027, k, day);
    if (date >= from && date <= to) dates.push(date);
  }
  return dates;
}

const START = '2026-12-20';
const END = '2028-12-31';

interface Plan {
  name: string;
  tenancy: Record<string, unknown>;
  pan?: string;
  /** The due dates expected to be charged, and the pure amount of each ('' for the rent of the tenancy). */
  expected: [string, string][];
  tenant?: ScheduleTenant;
  scheduleId?: string;
}

describe('the scheduler over 24 simulated months with two workers (and two ticking nodes)', () => {
  let t: TestApp;
  let api: Api;
  let receiver: Receiver;
  let webhookSecret: string;

  before(async () => {
    receiver = await Receiver.start();
    t = await startTestApp({
      clock: new FakeClock(`${START}T09:00:00.000Z`),
      config: { allowPrivateWebhookHosts: true },
    });
    const integrator = await t.createIntegrator({
      ...UNLIMITED,
      webhook_url: receiver.url,
      fees: { card: { percent: '1.00', fixed: '0.20' } },
    });
    webhookSecret = integrator.webhookSecret;
    api = integrationApi(t, integrator);
  });
  after(async () => {
    await t.close();
    await receiver.close();
  });

  const tenancy = (fields: Record<string, unknown>) => ({
    start_rent_date: '2027-01-01',
    end_rent_date: END,
    amount: '1000.00',
    ...fields,
  });
  const rent = (day: number, months: number, amount: string) =>
    series(day, months, START, END).map((d): [string, string] => [d, amount]);

  const plans: Plan[] = [
    { name: 'monthly on the 31st', tenancy: tenancy({ rent_due_day: 31 }), expected: rent(31, 1, '1000.00') },
    {
      name: 'monthly on the 30th',
      tenancy: tenancy({ rent_due_day: 30, amount: '850.25' }),
      expected: rent(30, 1, '850.25'),
    },
    { name: 'monthly on the 29th', tenancy: tenancy({ rent_due_day: 29 }), expected: rent(29, 1, '1000.00') },
    {
      name: 'every 2 months on the 28th',
      tenancy: tenancy({ rent_due_day: 28, frequency: 'every_2_month' }),
      expected: rent(28, 2, '1000.00'),
    },
    {
      name: 'every 3 months on the 1st',
      tenancy: tenancy({ rent_due_day: 1, frequency: 'every_3_month' }),
      expected: rent(1, 3, '1000.00'),
    },
    {
      name: 'every 4 months on the 30th',
      tenancy: tenancy({ rent_due_day: 30, frequency: 'every_4_month' }),
      expected: rent(30, 4, '1000.00'),
    },
    {
      name: 'every 5 months on the 31st',
      tenancy: tenancy({ rent_due_day: 31, frequency: 'every_5_month' }),
      expected: rent(31, 5, '1000.00'),
    },
    {
      name: 'every half year on the 29th',
      tenancy: tenancy({ rent_due_day: 29, frequency: 'every_half_year' }),
      expected: rent(29, 6, '1000.00'),
    },
    {
      name: 'every year on the 29th (February)',
      tenancy: tenancy({ rent_due_day: 29, frequency: 'every_year', start_rent_date: '2027-02-01' }),
      expected: [
        ['2027-02-28', '1000.00'],
        ['2028-02-29', '1000.00'],
      ],
    },
    {
      name: 'tenancy ending 2027-10-15',
      tenancy: tenancy({ rent_due_day: 15, end_rent_date: '2027-10-15' }),
      expected: series(15, 1, START, '2027-10-15').map((d) => [d, '1000.00']),
    },
    {
      name: 'installments',
      tenancy: tenancy({
        rent_due_day: 1,
        installment_payment: {
          total_amount: 4000,
          installments: [
            installment(1, '2026-12-01', 500),
            installment(2, '2027-01-31', 1000),
            installment(3, '2027-02-28', 1250.75),
            installment(4, '2028-02-29', 249.25),
            installment(5, '2028-12-31', 1000),
          ],
        },
      }),
      expected: [
        ['2027-01-31', '1000.00'],
        ['2027-02-28', '1250.75'],
        ['2028-02-29', '249.25'],
        ['2028-12-31', '1000.00'],
      ],
    },
    {
      // Paused by the integrator on 2027-04-10, resumed by the tenant on 2027-07-20: April 15 to July 15 are skipped.
      name: 'paused and resumed',
      tenancy: tenancy({ rent_due_day: 15 }),
      expected: rent(15, 1, '1000.00').filter(([d]) => d < '2027-04-10' || d > '2027-07-20'),
    },
    {
      // Canceled by the tenant on 2027-06-01.
      name: 'canceled',
      tenancy: tenancy({ rent_due_day: 5 }),
      expected: rent(5, 1, '1000.00').filter(([d]) => d < '2027-06-01'),
    },
    {
      // Its card is refused from 2027-03-01 until 2027-03-02: the due date of March 1st is paid by the retry on day 1.
      name: 'retried',
      tenancy: tenancy({ rent_due_day: 1 }),
      expected: rent(1, 1, '1000.00'),
    },
  ];

  it('charges every due date exactly once: schedule_charges, payments, processor charges, events and webhooks', async () => {
    for (const plan of plans) {
      plan.tenant = await scheduleTenant(t, api, plan.tenancy, plan.pan ?? PAN.visa, () => runJobs(t));
      plan.scheduleId = (await scheduleOk(plan.tenant)).schedule_id;
    }
    // The agreements onboarding queued are never fetched here (no such host): keep the queue to the schedules.
    await t.db.query("DELETE FROM jobs WHERE kind = 'document.fetch'");
    const byName = (name: string) => plans.find((p) => p.name === name)!;
    const schedules = integrationSchedules(t, api);
    const log = createLogger('silent');
    const workers = [0, 1].map(
      (i) =>
        new Worker({
          db: t.db,
          clock: t.clock,
          log,
          handlers: jobHandlers(t.config, t.app.ctx),
          concurrency: 4,
          name: `w${i}`,
        }),
    );
    const ran = [0, 0];
    let day = START;
    while (day <= END) {
      // Events of the day, before its ticks.
      if (day === '2027-03-01') {
        await t.db.query("UPDATE sandbox_tokens SET behaviour = 'insufficient_funds' WHERE id = $1", [
          byName('retried').tenant!.cardToken,
        ]);
      }
      if (day === '2027-03-02') {
        await t.db.query("UPDATE sandbox_tokens SET behaviour = 'succeed' WHERE id = $1", [
          byName('retried').tenant!.cardToken,
        ]);
      }
      if (day === '2027-04-10') {
        assert.equal((await schedules.change(byName('paused and resumed').scheduleId!, 'pause')).status, 200);
      }
      if (day === '2027-06-01' || day === '2027-07-20') {
        const plan = byName(day === '2027-06-01' ? 'canceled' : 'paused and resumed');
        const client = clientOf(t, (await api.loginOk(plan.tenant!.email)).token);
        const action = day === '2027-06-01' ? 'cancel' : 'resume';
        const answer = await client.call('POST', `/schedules/${plan.scheduleId}/${action}`);
        assert.equal(answer.status, 200, JSON.stringify(answer.body));
      }
      // A tick early in the day (and around month ends a second one, which finds nothing new), each from two nodes at
      // once (the same period: one run), worked by two workers at once.
      for (const hour of Number(day.slice(8)) >= 28 || day.endsWith('-01') ? ['00:05', '13:37'] : ['00:05']) {
        t.clock.set(`${day}T${hour}:00.000Z`);
        await Promise.all([enqueueSchedulerRun(t.db, t.clock), enqueueSchedulerRun(t.db, t.clock)]);
        const counts = await Promise.all(workers.map((w) => w.drain()));
        ran[0]! += counts[0]!;
        ran[1]! += counts[1]!;
      }
      // Six days without any worker (an outage) around the end of September 2027: the due dates of 28, 29 and 30
      // September and 1 October are caught up on 3 October.
      day = day === '2027-09-27' ? '2027-10-03' : addDays(day, 1);
    }
    assert.ok(ran[0]! > 0 && ran[1]! > 0, `both workers ran jobs (${ran})`);

    const runs = await t.db.query<{ n: number }>(
      "SELECT count(*)::int AS n FROM jobs WHERE kind = 'schedules.run'",
    );
    assert.ok(runs[0]!.n > 700 && runs[0]!.n < 1000, `one run per period whoever ticks (${runs[0]!.n})`);

    let total = 0;
    for (const plan of plans) {
      const id = plan.scheduleId!;
      const charged = await t.db.query<{ due_date: string; pure: string; attempts: number; status: string }>(
        `SELECT due_date::text, status, attempts,
                to_char(pure_amount_pence / 100.0, 'FM999999990.00') AS pure
           FROM schedule_charges WHERE schedule_id = $1 AND status <> 'canceled' ORDER BY due_date`,
        [id],
      );
      assert.deepEqual(
        charged.map((c) => [c.due_date, c.pure]),
        plan.expected,
        plan.name,
      );
      assert.ok(
        charged.every((c) => c.status === 'succeeded'),
        `${plan.name}: ${JSON.stringify(charged)}`,
      );
      // Exactly one processor charge per attempt, and one payment per processor charge.
      const attempts = charged.reduce((sum, c) => sum + Number(c.attempts), 0);
      const processor = await t.db.query<{ n: number; keys: number }>(
        `SELECT count(*)::int AS n, count(DISTINCT idempotency_key)::int AS keys FROM sandbox_charges
          WHERE idempotency_key LIKE $1`,
        [`${id}:%`],
      );
      assert.deepEqual(processor[0], { n: attempts, keys: attempts }, plan.name);
      const payments = await t.db.query<{ status: string; installment_number: number | null; n: number }>(
        `SELECT status, installment_number, count(*)::int AS n FROM payments WHERE schedule_id = $1
          GROUP BY status, installment_number ORDER BY installment_number NULLS FIRST, status`,
        [id],
      );
      const succeeded = payments.filter((p) => p.status === 'succeeded').reduce((sum, p) => sum + p.n, 0);
      assert.equal(succeeded, plan.expected.length, plan.name);
      total += attempts;
    }
    const retried = await t.db.query<{ attempts: number }>(
      "SELECT attempts FROM schedule_charges WHERE schedule_id = $1 AND due_date = '2027-03-01'",
      [byName('retried').scheduleId!],
    );
    assert.equal(retried[0]!.attempts, 2, 'refused on the day, paid on day 1');
    const installments = await t.db.query<{ installment_number: number; amount: string }>(
      `SELECT installment_number, amount_pence::text AS amount FROM payments WHERE schedule_id = $1 ORDER BY installment_number`,
      [byName('installments').scheduleId!],
    );
    assert.deepEqual(
      installments.map((p) => [p.installment_number, p.amount]),
      [
        [2, '101020'],
        [3, '126346'],
        [4, '25194'],
        [5, '101020'],
      ],
      'fee 1 % + 0.20 on each installment’s own amount',
    );
    assert.equal(
      Number(
        (
          await t.db.query<{ n: number }>('SELECT count(*)::int AS n FROM sandbox_charges WHERE off_session')
        )[0]!.n,
      ),
      total,
    );
    const completed = await t.db.query<{ status: string }>('SELECT status FROM schedules WHERE id = $1', [
      byName('tenancy ending 2027-10-15').scheduleId!,
    ]);
    assert.equal(completed[0]!.status, 'completed');

    // Every event was delivered once, signed; the webhooks match the events of the schedules' payments.
    const events = await t.db.query<{ id: string; type: string }>('SELECT id, type FROM events');
    assert.equal(events.filter((e) => e.type.startsWith('schedule_')).length, plans.length + 3);
    assert.equal(
      events.filter((e) => e.type === 'payment_failed').length,
      1,
      'the retried charge’s first attempt',
    );
    assert.equal(events.filter((e) => e.type === 'payment_success').length, total - 1);
    assert.deepEqual([...receiver.ids()].sort(), events.map((e) => e.id).sort());
    for (const request of receiver.received) {
      const sent = new Date(Number(request.headers['webhook-timestamp']) * 1000);
      const body = verify(webhookSecret, request, sent) as { type: string; data: Record<string, unknown> };
      assert.ok(body.type && body.data);
    }
  });
});

describe('exactly once when the scheduler’s steps race or crash', () => {
  let t: TestApp;
  let api: Api;

  before(async () => {
    t = await startTestApp();
    api = integrationApi(t, await t.createIntegrator(UNLIMITED));
  });
  after(() => t.close());

  const sandboxCharges = async (scheduleId: string) =>
    (
      await t.db.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM sandbox_charges WHERE idempotency_key LIKE $1',
        [`${scheduleId}:%`],
      )
    )[0]!.n;

  it('runs reaching the same due dates at once write each charge once; the same attempt twice at once charges once', async () => {
    const ann = await scheduleTenant(t, api, { rent_due_day: 10 });
    const id = (await scheduleOk(ann)).schedule_id;
    const schedulers = [0, 1, 2].map(() => new Scheduler(t.db, t.clock, t.app.ctx.processor));
    const reached = await Promise.all(schedulers.map((s) => s.reach('2026-06-10', { enqueue: true })));
    assert.deepEqual(
      reached
        .flat()
        .map((k) => k.due_date)
        .sort(),
      ['2026-03-10', '2026-04-10', '2026-05-10', '2026-06-10'],
    );
    const [{ n: jobs }] = (await t.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM jobs, jsonb_array_elements(payload->'charges') AS c
        WHERE kind = 'schedule.charge' AND c->>'schedule_id' = $1`,
      [id],
    )) as [{ n: number }];
    assert.equal(jobs, 4);
    const key = { schedule_id: id, due_date: '2026-03-10' };
    // A job whose lease ran out while it was still running, taken over by another worker: both make attempt 1.
    const outcomes = await Promise.all(schedulers.map((s) => s.attempt(key, 1, '2026-03-10')));
    assert.deepEqual(outcomes.sort(), ['skipped', 'skipped', 'succeeded']);
    assert.equal(await sandboxCharges(id), 1);
    assert.equal(await count(t, 'payments WHERE schedule_id = $1', [id]), 1);
    // The job system's repeat of a finished attempt, and an attempt of a charge already paid, do nothing.
    assert.equal(await schedulers[0]!.attempt(key, 1, '2026-03-10'), 'skipped');
    assert.equal(await schedulers[0]!.attempt(key, 2, '2026-03-11'), 'skipped');
    assert.equal(await sandboxCharges(id), 1);
  });

  it('an answer lost after the processor charged: the job’s retry asks with the same key and records one payment', async () => {
    const ann = await scheduleTenant(t, api, { rent_due_day: 12 });
    const id = (await scheduleOk(ann)).schedule_id;
    const real = t.app.ctx.processor;
    const losing = processorWith(real, {
      chargeOffSession: async (request) => {
        await real.chargeOffSession(request);
        throw new Error('connection reset');
      },
    });
    await new Scheduler(t.db, t.clock, real).reach('2026-03-12', { enqueue: false });
    const key = { schedule_id: id, due_date: '2026-03-12' };
    await assert.rejects(
      new Scheduler(t.db, t.clock, losing).attempt(key, 1, '2026-03-12'),
      /connection reset/,
    );
    assert.equal(await count(t, 'payments WHERE schedule_id = $1', [id]), 0);
    assert.equal(await new Scheduler(t.db, t.clock, real).attempt(key, 1, '2026-03-12'), 'succeeded');
    assert.equal(await sandboxCharges(id), 1);
    assert.equal(await count(t, 'payments WHERE schedule_id = $1', [id]), 1);
  });

  it('an attempt started before a cancel: the cancel leaves its charge, the retry asks the processor again and records it', async () => {
    const ann = await scheduleTenant(t, api, { rent_due_day: 14 });
    const id = (await scheduleOk(ann)).schedule_id;
    const real = t.app.ctx.processor;
    const losing = processorWith(real, {
      chargeOffSession: async (request) => {
        await real.chargeOffSession(request);
        throw new Error('connection reset');
      },
    });
    await new Scheduler(t.db, t.clock, real).reach('2026-03-14', { enqueue: false });
    const key = { schedule_id: id, due_date: '2026-03-14' };
    // The processor charged; the worker crashed before recording it.
    await assert.rejects(
      new Scheduler(t.db, t.clock, losing).attempt(key, 1, '2026-03-14'),
      /connection reset/,
    );
    assert.equal((await ann.client.call('POST', `/schedules/${id}/cancel`)).status, 200);
    const charge = () =>
      t.db
        .query<{ status: string; attempts: number; started_attempt: number }>(
          'SELECT status, attempts, started_attempt FROM schedule_charges WHERE schedule_id = $1',
          [id],
        )
        .then((rows) => ({ ...rows[0] }));
    assert.deepEqual(await charge(), { status: 'pending', attempts: 0, started_attempt: 1 });
    // The job's retry: the same key, so the processor answers the charge it made.
    assert.equal(await new Scheduler(t.db, t.clock, real).attempt(key, 1, '2026-03-14'), 'succeeded');
    assert.deepEqual(await charge(), { status: 'succeeded', attempts: 1, started_attempt: 1 });
    assert.equal(await sandboxCharges(id), 1);
    assert.equal(await count(t, "payments WHERE schedule_id = $1 AND status = 'succeeded'", [id]), 1);
    assert.equal(
      await count(t, "events WHERE type = 'payment_success' AND data->'payment'->>'schedule_id' = $1", [id]),
      1,
    );
    // The same when the charge was withdrawn anyway (say, by a release before this one): a started attempt is asked.
    const bob = await scheduleTenant(t, api, { rent_due_day: 14 });
    const bobId = (await scheduleOk(bob)).schedule_id;
    await new Scheduler(t.db, t.clock, real).reach('2026-03-14', { enqueue: false });
    const bobKey = { schedule_id: bobId, due_date: '2026-03-14' };
    await assert.rejects(new Scheduler(t.db, t.clock, losing).attempt(bobKey, 1, '2026-03-14'));
    await t.db.query("UPDATE schedule_charges SET status = 'canceled' WHERE schedule_id = $1", [bobId]);
    assert.equal(await new Scheduler(t.db, t.clock, real).attempt(bobKey, 1, '2026-03-14'), 'succeeded');
    assert.equal(await sandboxCharges(bobId), 1);
  });

  it('a pause while an attempt is at the processor leaves its charge to it; a pause before the attempt starts means no call', async () => {
    const ann = await scheduleTenant(t, api, { rent_due_day: 16 });
    const id = (await scheduleOk(ann)).schedule_id;
    const schedules = integrationSchedules(t, api);
    const real = t.app.ctx.processor;
    let paused = 0;
    const pausing = processorWith(real, {
      chargeOffSession: async (request) => {
        // The tenant pauses while the processor is being asked.
        paused = (await schedules.change(id, 'pause')).status;
        return real.chargeOffSession(request);
      },
    });
    await new Scheduler(t.db, t.clock, real).reach('2026-04-16', { enqueue: false });
    // The card has run out of money: the first attempt fails, and would be retried on day 1.
    await t.db.query("UPDATE sandbox_tokens SET behaviour = 'insufficient_funds' WHERE id = $1", [
      ann.cardToken,
    ]);
    const scheduler = new Scheduler(t.db, t.clock, pausing);
    assert.equal(
      await scheduler.attempt({ schedule_id: id, due_date: '2026-03-16' }, 1, '2026-03-16'),
      'failed',
    );
    assert.equal(paused, 200);
    const [failed] = await t.db.query<{ status: string; retry: string | null }>(
      `SELECT c.status, e.data->>'retry_on' AS retry FROM schedule_charges c
         JOIN events e ON e.type = 'payment_failed' AND e.data->'payment'->>'payment_id' = c.last_payment_id
        WHERE c.schedule_id = $1 AND c.due_date = '2026-03-16'`,
      [id],
    );
    assert.deepEqual({ ...failed }, { status: 'canceled', retry: null }, 'paused: no retry');
    // The next due date's charge was withdrawn by the pause before any attempt: nothing is asked.
    assert.equal(
      await scheduler.attempt({ schedule_id: id, due_date: '2026-04-16' }, 1, '2026-04-16'),
      'skipped',
    );
    assert.equal(await sandboxCharges(id), 1);
  });

  it('an attempt whose job gave up (no outcome from the processor for days) is enqueued again by the next run, and recorded once', async () => {
    const ann = await scheduleTenant(t, api, { rent_due_day: 18 });
    const id = (await scheduleOk(ann)).schedule_id;
    const real = t.app.ctx.processor;
    const scheduler = new Scheduler(t.db, t.clock, real);
    const mineSql = `kind = 'schedule.charge' AND payload->'charges' @> $1::jsonb`;
    const mine = [JSON.stringify([{ schedule_id: id }])];
    const liveJobs = () => count(t, `jobs WHERE ${mineSql} AND status IN ('pending', 'running')`, mine);
    await scheduler.reach('2026-03-18', { enqueue: true });
    assert.equal(await liveJobs(), 1);
    assert.equal(await scheduler.enqueueDue('2026-03-18'), 0, 'its job is live');
    // The processor has no outcome for the off-session charge yet: the attempt throws, for the job to ask again ...
    const waiting = processorWith(real, {
      chargeOffSession: async () => ({ status: 'pending', processorPaymentId: null }),
    });
    const key = { schedule_id: id, due_date: '2026-03-18' };
    await assert.rejects(
      new Scheduler(t.db, t.clock, waiting).attempt(key, 1, '2026-03-18'),
      /no outcome yet/,
    );
    // ... until the job system gives up on it, after its last attempt.
    await t.db.query(`UPDATE jobs SET status = 'failed', attempts = max_attempts WHERE ${mineSql}`, mine);
    assert.equal(await liveJobs(), 0);
    assert.equal(await scheduler.enqueueDue('2026-03-20'), 1, 'the next run enqueues it again');
    assert.equal(await scheduler.enqueueDue('2026-03-20'), 0, 'once');
    assert.equal(await liveJobs(), 1);
    await t.db.query("DELETE FROM jobs WHERE kind = 'document.fetch'");
    await runJobs(t);
    const [charge] = await t.db.query<{ status: string; attempts: number }>(
      'SELECT status, attempts FROM schedule_charges WHERE schedule_id = $1',
      [id],
    );
    assert.deepEqual({ ...charge }, { status: 'succeeded', attempts: 1 });
    assert.equal(await sandboxCharges(id), 1);
    assert.equal(
      await count(t, "events WHERE type = 'payment_success' AND data->'payment'->>'schedule_id' = $1", [id]),
      1,
    );
    assert.equal(await liveJobs(), 0);
  });
});

// A tick period divides a day: runs begin at midnight UTC.
assert.equal(86_400_000 % SCHEDULER_TICK_MS, 0);
