/**
 * `npm run smoke:stripe` itself, run as a child process: skipped without keys, refuses live keys, and its whole
 * flow passes against the local Stripe stand-in (STRIPE_API_BASE), so the script cannot rot between real runs.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { StripeStandIn } from '../support/stripe-server.ts';

const run = promisify(execFile);

async function smoke(env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  const clean = { ...process.env };
  delete clean.STRIPE_SECRET_KEY;
  delete clean.STRIPE_PUBLISHABLE_KEY;
  try {
    const { stdout, stderr } = await run(process.execPath, ['bin/rentpay.mjs', 'smoke-stripe'], {
      env: { ...clean, ...env },
      timeout: 120_000,
    });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
}

/** The first capture of `pattern` in `out`, failing the test (with the whole output) when there is none. */
function captured(out: string, pattern: RegExp): string {
  const match = pattern.exec(out);
  assert.ok(match?.[1], `no line matches ${pattern}:\n${out}`);
  return match[1];
}

/**
 * Real Stripe may leave a refund `pending` for a while: the stand-in does so here, and settles it (refund.updated)
 * about two seconds after it was made, while the script waits for Stripe's events. Until `stop()`.
 */
function settlePendingRefunds(stand: StripeStandIn): { stop(): void } {
  stand.refundsPending = true;
  const seen = new Map<string, number>();
  const timer = setInterval(() => {
    for (const refund of stand.refunds.values()) {
      if (refund.status !== 'pending') continue;
      const since = seen.get(refund.id) ?? Date.now();
      seen.set(refund.id, since);
      if (Date.now() - since >= 2_000) stand.settleRefund(refund.id, 'succeeded');
    }
  }, 200);
  return { stop: () => clearInterval(timer) };
}

describe('npm run smoke:stripe', () => {
  let stand: StripeStandIn;
  before(async () => {
    stand = await StripeStandIn.start();
  });
  after(() => stand.close());

  it('without STRIPE_SECRET_KEY says it was skipped and exits 0', async () => {
    const answer = await smoke({});
    assert.equal(answer.code, 0);
    assert.match(answer.out, /^smoke:stripe skipped: set STRIPE_SECRET_KEY/m);
  });

  it('refuses a live key with exit 1', async () => {
    const answer = await smoke({ STRIPE_SECRET_KEY: 'sk_live_abc', STRIPE_PUBLISHABLE_KEY: 'pk_live_abc' });
    assert.equal(answer.code, 1);
    assert.match(answer.out, /STRIPE_SECRET_KEY must be a test-mode key/);
  });

  it('runs the whole flow (card, WeChat Pay, Alipay, an off-session recurring charge, a pending refund) against a Stripe-compatible server', async () => {
    const settler = settlePendingRefunds(stand);
    let answer: { code: number; out: string };
    try {
      answer = await smoke({
        STRIPE_SECRET_KEY: 'sk_test_rentpay_smoke',
        STRIPE_PUBLISHABLE_KEY: 'pk_test_rentpay_smoke',
        STRIPE_API_BASE: stand.url,
      });
    } finally {
      settler.stop();
    }
    const { out } = answer;
    assert.equal(answer.code, 0, out);
    assert.match(out, /smoke:stripe passed$/m);
    assert.doesNotMatch(out, /FAILED/);
    // Every step is numbered, 1, 2, 3, … in order.
    const numbers = [...out.matchAll(/^· (\d+)\. /gm)].map((m) => Number(m[1]));
    assert.deepEqual(
      numbers,
      numbers.map((_, i) => i + 1),
    );

    // 1. The card payment, Stripe's event, the session completed, the funds' available_on.
    const cardIntent = captured(out, /^· \d+\. card: payment pay_\w+: succeeded \((pi_\w+)\)$/m);
    assert.match(out, /^· \d+\. card: webhook: 1 event\(s\) applied \(payment_intent\.succeeded\)$/m);
    assert.match(out, /^· \d+\. card: session completed$/m);
    assert.match(out, /^· \d+\. card: funds available on \d{4}-\d{2}-\d{2}$/m);

    // 2. WeChat Pay and Alipay: waiting for the tenant with Stripe's next action, then canceled.
    for (const [name, nextAction] of [
      ['WeChat Pay', 'wechat_pay_display_qr_code'],
      ['Alipay', 'alipay_handle_redirect'],
    ] as const) {
      const intentId = captured(
        out,
        new RegExp(
          `^· \\d+\\. ${name}: payment pay_\\w+: requires_action, next_action stripe_next_action \\((pi_\\w+)\\)$`,
          'm',
        ),
      );
      assert.match(
        out,
        new RegExp(`^· \\d+\\. ${name}: PaymentIntent ${intentId}: next_action ${nextAction}$`, 'm'),
      );
      assert.match(
        out,
        new RegExp(`^· \\d+\\. ${name}: payment pay_\\w+ canceled \\(PaymentIntent canceled\\)$`, 'm'),
      );
      const intent = stand.paymentIntents.get(intentId);
      assert.equal(intent?.status, 'canceled', name);
    }

    // 3. The off-session recurring charge of the saved card.
    assert.match(out, /^· \d+\. recurring: card card_\w+ saved: visa 4242, active \(pm_\w+\)$/m);
    const scheduleId = captured(out, /^· \d+\. recurring: schedule (sch_\w+): 12\.17 due \d{4}-\d{2}-01$/m);
    assert.match(out, /^· \d+\. recurring: run-schedules as of \d{4}-\d{2}-01: 1 charged$/m);
    const recurringIntent = captured(
      out,
      /^· \d+\. recurring: payment pay_\w+: succeeded, 12\.17 off session \((pi_\w+)\)$/m,
    );
    const charged = stand.paymentIntents.get(recurringIntent);
    assert.ok(charged, `no PaymentIntent ${recurringIntent} at the stand-in`);
    assert.equal(charged.status, 'succeeded');
    assert.equal(charged.amount, 1217, '£12.00 plus the 1.45 % card fee');
    assert.equal((charged.metadata as Record<string, string>).schedule_id, scheduleId);
    assert.deepEqual(charged.automatic_payment_methods, { enabled: true, allow_redirects: 'never' });

    // 4. The refund: pending at first, then succeeded through Stripe's refund.updated.
    const refundId = captured(out, /^· \d+\. refund: refund (ref_\w+) of 5\.00: pending \(HTTP 202\)$/m);
    assert.match(
      out,
      /^· \d+\. refund: webhook: 2 event\(s\) applied \(charge\.refunded, refund\.updated\)$/m,
    );
    assert.match(
      out,
      new RegExp(
        `^· \\d+\\. refund: refund ${refundId} succeeded: payment pay_\\w+ shows 5\\.00 refunded$`,
        'm',
      ),
    );
    const refunds = [...stand.refunds.values()];
    assert.deepEqual(
      refunds.map((r) => [
        r.payment_intent,
        r.amount,
        r.status,
        (r.metadata as Record<string, string>).refund_id,
      ]),
      [[cardIntent, 500, 'succeeded', refundId]],
    );
  });
});

describe('npm run stripe:standin: a rehearsal without internet', () => {
  it('starts the stand-in on a port, says how to point rentpay at it, and smoke:stripe passes against it', async () => {
    const standin = spawn(process.execPath, ['--import', 'tsx', 'scripts/stripe-standin.ts', '--port', '0'], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let printed = '';
      const base = await new Promise<string>((resolve, reject) => {
        standin.stdout.on('data', (chunk) => {
          printed += chunk;
          if (printed.includes('Ctrl-C stops it.'))
            resolve(captured(printed, /^ {2}STRIPE_API_BASE=(\S+)$/m));
        });
        standin.on('exit', (code) => reject(new Error(`stripe:standin exited with ${code}: ${printed}`)));
      });
      assert.match(
        printed,
        /^Stripe stand-in \(not Stripe: a local imitation for rehearsals\) on http:\/\/127\.0\.0\.1:\d+$/m,
      );
      assert.match(printed, new RegExp(`^ {2}STRIPE_JS_URL=${base}/js/v3/$`, 'm'));
      const answer = await smoke({
        STRIPE_SECRET_KEY: 'sk_test_rentpay_rehearsal',
        STRIPE_PUBLISHABLE_KEY: 'pk_test_rentpay_rehearsal',
        STRIPE_API_BASE: base,
      });
      assert.equal(answer.code, 0, answer.out);
      assert.match(answer.out, /smoke:stripe passed$/m);
    } finally {
      const exited = new Promise((resolve) => standin.once('exit', resolve));
      standin.kill('SIGTERM');
      await exited;
    }
  });
});
