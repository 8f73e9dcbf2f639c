/** The sandbox's test cards: each number gives its documented outcome (docs/payments.md). */

export { cardBrand, luhnValid } from '../../shared/card-numbers.ts';

export type CardBehaviour =
  | 'succeed'
  | 'three_ds_first'
  | 'three_ds_always'
  | 'card_declined'
  | 'insufficient_funds'
  | 'expired_card'
  | 'incorrect_cvc'
  /** Saving the card succeeds; every charge of it (on session or off) is declined with card_declined. */
  | 'charge_customer_fail'
  /** Payments succeed; their refunds stay pending until settled at the sandbox (POST /sandbox/refunds/…). */
  | 'refund_pending';

export const TEST_CARDS: Record<string, CardBehaviour> = {
  '4242424242424242': 'succeed',
  '5555555555554444': 'succeed',
  '4000000000003220': 'three_ds_first',
  '4000002760003184': 'three_ds_always',
  '4000000000000002': 'card_declined',
  '4000000000009995': 'insufficient_funds',
  '4000000000000069': 'expired_card',
  '4000000000000127': 'incorrect_cvc',
  '4000000000000341': 'charge_customer_fail',
  '4000000000007726': 'refund_pending',
};

export const DECLINE_MESSAGES: Record<string, string> = {
  card_declined: 'Your card was declined.',
  insufficient_funds: 'Your card has insufficient funds.',
  expired_card: 'Your card has expired.',
  incorrect_cvc: "Your card's security code is incorrect.",
  authentication_failed: 'The card issuer could not authenticate this payment.',
  authentication_required: 'This card needs the cardholder to authenticate each payment.',
  apm_declined: 'The payment was declined by the payment provider.',
  setup_cancelled: 'The card check was cancelled.',
};

/** Any valid card number that is not a listed test card simply succeeds. */
export function behaviourOf(digits: string): CardBehaviour {
  return TEST_CARDS[digits] ?? 'succeed';
}
