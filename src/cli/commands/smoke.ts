import type { Command } from 'commander';

/** `rentpay smoke-stripe` (`npm run smoke:stripe`): rentpay end to end against Stripe's test mode. */
export function registerSmokeCommand(program: Command): void {
  program
    .command('smoke-stripe')
    .description(
      'Check rentpay end to end against Stripe test mode (STRIPE_SECRET_KEY=sk_test_…, STRIPE_PUBLISHABLE_KEY=pk_test_…; STRIPE_API_BASE for the stand-in); skipped without keys',
    )
    .action(async () => {
      const { runStripeSmoke } = await import('../../smoke/stripe.ts');
      await runStripeSmoke();
    });
}
