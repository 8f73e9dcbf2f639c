/** What only the page with Stripe needs, loaded on demand so the sandbox page does not carry it. */
export { availableWallets, StripeFields } from './StripeFields.tsx';
export { afterCardStepError, afterStepError, loadStripe, methodOfToken, redirectUrlOf } from './stripe.ts';
