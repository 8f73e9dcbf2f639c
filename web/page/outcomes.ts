/** How a payment ends, as the SDK's promise and the tenant each read it. */

import { ApiProblem, type Payment, type Quote } from './api.ts';

/** What the SDK's promise rejects with: `{code, message, payment_id?, decline_code?}`. */
export interface PaymentError {
  code: string;
  message: string;
  payment_id?: string;
  decline_code?: string;
  pure_amount?: string;
  quote?: Quote;
}

export type Outcome = { payment: Payment } | { error: PaymentError };

export const SESSION_EXPIRED: PaymentError = {
  code: 'session_expired',
  message: 'The payment session has expired.',
};

/** An outcome the page decided itself (a cancelled card check, a payment still processing), with its code. */
export class OutcomeError extends Error {
  constructor(readonly outcome: PaymentError) {
    super(outcome.message);
  }
}

/** What the tenant reads for refusals that are about the service, not the form (the code goes to the SDK as is). */
const TENANT_MESSAGES: Record<string, string> = {
  integrator_suspended:
    'Payments are unavailable right now. You have not been charged. Please try again later.',
  too_many_attempts:
    'Too many declined cards: for your security, no more payments can be tried for now. You have not been charged. Please try again later.',
  rate_limited:
    'Too many attempts in a short time. You have not been charged. Please wait a moment and try again.',
};

export function errorOf(error: unknown): PaymentError {
  if (error instanceof OutcomeError) return error.outcome;
  if (error instanceof ApiProblem) {
    if (error.sessionExpired) return SESSION_EXPIRED;
    return {
      code: error.code,
      message: TENANT_MESSAGES[error.code] ?? error.message,
      ...(error.quote ? { quote: error.quote } : {}),
    };
  }
  return { code: 'unexpected', message: error instanceof Error ? error.message : String(error) };
}

/** What the tenant can do after a failed payment, by its reason; every failure says nothing was charged. */
const NEXT_STEPS: Record<string, string> = {
  card_declined: 'Try another card, or ask your bank why it was declined.',
  insufficient_funds: 'Try another card or another way to pay.',
  expired_card: 'Check the expiry date, or use another card.',
  incorrect_cvc: 'Check the 3-digit security code on the back of your card and try again.',
  authentication_failed: 'Try again and complete your bank’s check, or use another card.',
};

/** The failure as the tenant reads it on the page: the reason, that nothing was charged, and what to do next. */
export function tenantFailureMessage(failure: PaymentError): string {
  if (failure.code !== 'payment_failed') return failure.message;
  const next = NEXT_STEPS[failure.decline_code ?? ''] ?? 'Try again, or choose another way to pay.';
  return `${failure.message} You have not been charged. ${next}`;
}

export function failureOf(payment: Payment): PaymentError {
  if (payment.status === 'canceled') {
    return {
      code: 'payment_canceled',
      message: 'The payment was cancelled. You have not been charged.',
      payment_id: payment.payment_id,
    };
  }
  return {
    code: 'payment_failed',
    message: payment.failure_message ?? 'The payment failed.',
    payment_id: payment.payment_id,
    ...(payment.failure_code ? { decline_code: payment.failure_code } : {}),
  };
}
