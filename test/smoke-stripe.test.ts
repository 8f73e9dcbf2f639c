/**
 * `npm run smoke:stripe` itself, run as a child process: skipped without keys, refuses live keys, and its whole
 * flow passes against the local Stripe stand-in (STRIPE_API_BASE), so the script cannot rot between real runs.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import { StripeStandIn } from './stripe-server.ts';

const run = promisify(execFile);

async function smoke(env: Record<string, string | undefined>): Promise<{ code: number; out: string }> {
  const clean = { ...process.env };
  delete clean.STRIPE_SECRET_KEY;
  delete clean.STRIPE_PUBLISHABLE_KEY;
  try {
    const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'scripts/smoke-stripe.ts'], {
      env: { ...clean, ...env },
      timeout: 120_000,
    });
    return { code: 0, out: stdout + stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, out: failed.stdout + failed.stderr };
  }
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

  it('runs the whole flow (pay, Stripe’s event, session completed, the funds’ available_on) against a Stripe-compatible server', async () => {
    const answer = await smoke({
      STRIPE_SECRET_KEY: 'sk_test_rentpay_smoke',
      STRIPE_PUBLISHABLE_KEY: 'pk_test_rentpay_smoke',
      STRIPE_API_BASE: stand.url,
    });
    assert.equal(answer.code, 0, answer.out);
    assert.match(answer.out, /· payment pay_\w+: succeeded \(pi_\w+\)/);
    assert.match(answer.out, /· webhook: 1 event\(s\) applied/);
    assert.match(answer.out, /· funds available on \d{4}-\d{2}-\d{2}$/m);
    assert.match(answer.out, /smoke:stripe passed$/m);
  });
});
