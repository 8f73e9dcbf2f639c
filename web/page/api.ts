/** The Client API as the page uses it: Bearer user session token, JSON, errors as ApiProblem. */

import type { SchedulePreview } from '../../src/shared/schedule-preview.ts';
import type { SavedCardStatus, ScheduleStatus } from '../../src/shared/vocabulary.ts';
import type { PaymentMethod, Payment as PublicPayment, Quote } from '../sdk/rentpay.d.ts';
import type { RentLedger } from './rent-position.ts';

export type { PaymentMethod, Quote, SchedulePreview };

/** A step on a page of the processor's: shown in a frame, a popup or as a QR code. */
export interface UrlAction {
  type: 'three_ds' | 'redirect' | 'qr';
  url: string;
  image_url?: string;
}

/** With Stripe: Stripe.js completes the step (3DS, a QR code) or names the page to open (Alipay). */
export interface StripeAction {
  type: 'stripe_next_action';
  client_secret: string;
}

export type NextAction = UrlAction | StripeAction;

/** The Payment (the SDK's public type) plus what the page must do next. */
export interface Payment extends PublicPayment {
  next_action: NextAction | null;
}

export interface SavedCard {
  card_id: string;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
  is_default: boolean;
  status: SavedCardStatus;
  next_action: NextAction | null;
}

export interface Schedule {
  schedule_id: string;
  status: ScheduleStatus;
  payment_reference: string;
  pure_amount: string;
  fee: string;
  amount: string;
  frequency: string;
  rent_due_day: number;
  next_due_date: string | null;
  installment_plan: boolean;
  card: { brand: string; last4: string } | null;
}

export interface ScheduleSetUp {
  saved_card_id: string;
  pure_amount?: string;
  use_installment_plan?: boolean;
}

/** A recurring charge the tenant's bank wants them to authenticate (SCA); it fails after `confirm_by` (a date). */
export interface ActionRequired {
  payment: PublicPayment;
  reason: 'authentication_required';
  confirm_by: string;
}

/** The amount the platform set at user-login: fixed (editable false), a suggestion, or none. */
export interface SessionAmount {
  pure_amount: string | null;
  editable: boolean;
}

export interface Session {
  session_id: string;
  environment: string;
  /** Seconds until the token or the session lapses, by the server's clock. */
  expires_in_seconds: number;
  token_expires_at: string;
  /** The session's end: the token can be kept alive up to it, not beyond. */
  expires_at: string;
  /** The payment that completed this session; null while it is unpaid. */
  paid: PublicPayment | null;
  /**
   * What `paid` paid, oldest due date first (`due_date` null: credit beyond the tenancy's dues; `rent`: what fell
   * due on it). Optional until every server sends it.
   */
  paid_applied_to?: { due_date: string | null; amount: string; rent: string | null }[];
  /** The tenant's recurring charges waiting for them to confirm, oldest first; empty when none. */
  action_required: ActionRequired[];
  amount: SessionAmount;
  tenant: { first_name: string; last_name: string; email: string };
  tenancy: {
    payment_reference: string;
    address_1: string;
    city: string;
    post_code: string;
    rent_amount: string;
    frequency: string;
    rent_due_day: number;
    end_rent_date: string;
    /** The rent's due date from today on; null once none is left. */
    next_due_date: string | null;
    /** Whom the rent is paid to. */
    payee: string;
    /** What the tenant owes and has paid, from the tenancy's rent ledger. */
    ledger: RentLedger & { next_due: { date: string; amount: string } | null };
    installments: { installment_number: number; due_date: string; amount: string }[];
  };
  currency: 'GBP';
  limits: { min_amount: string; max_amount: string };
  fees: Record<string, { percent: string; fixed: string }>;
  features: { apms: boolean; wallets: boolean; recurring: boolean; savedCards: boolean };
  processor: {
    name: 'sandbox' | 'stripe';
    tokenize_url: string | null;
    wallet_url: string | null;
    stripe?: { publishable_key: string; js_url: string };
  };
}

/** A refused request: `fields` holds per-field messages when the server sent them. */
export class ApiProblem extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string> = {},
    /** With amount_changed: what the payment costs now. */
    readonly quote?: Quote,
    /** With terms_changed: what the schedule would charge now. */
    readonly terms?: SchedulePreview,
  ) {
    super(message);
  }

  get sessionExpired(): boolean {
    return this.status === 401;
  }
}

async function problemOf(response: Response): Promise<ApiProblem> {
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    body = undefined;
  }
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (typeof record.error === 'string') {
      const quote = record.quote as Quote | undefined;
      const terms = record.terms as SchedulePreview | undefined;
      return new ApiProblem(
        response.status,
        record.error,
        String(record.detail ?? record.error),
        {},
        quote,
        terms,
      );
    }
    const fields: Record<string, string> = {};
    for (const [key, value] of Object.entries(record)) {
      fields[key] = Array.isArray(value) ? String(value[0]) : String(value);
    }
    const first = Object.values(fields)[0];
    if (first) return new ApiProblem(response.status, 'invalid_request', first, fields);
  }
  return new ApiProblem(response.status, 'network', 'Something went wrong. Please try again.');
}

export async function requestJson<T>(url: string, init: RequestInit & { token?: string } = {}): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  let response: Response;
  try {
    response = await fetch(url, { ...init, headers: { ...headers, ...(init.headers as object) } });
  } catch {
    throw new ApiProblem(
      0,
      'network',
      'We could not reach the payment service. Check your connection and try again.',
    );
  }
  if (!response.ok) throw await problemOf(response);
  if (response.status === 204) return undefined as T;
  return (await response.json()) as T;
}

export class ClientApi {
  constructor(private readonly token: string) {}

  #call<T>(path: string, method = 'GET', body?: unknown, headers?: Record<string, string>): Promise<T> {
    return requestJson<T>(`/api/client${path}`, {
      method,
      token: this.token,
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(headers ? { headers } : {}),
    });
  }

  session(): Promise<Session> {
    return this.#call('/session');
  }

  /** "Keep me signed in": the token lives on, up to the session's end (`extendable` false from then on). */
  extendSession(): Promise<{ expires_in_seconds: number; extendable: boolean }> {
    return this.#call('/session/extend', 'POST');
  }

  pay(body: Record<string, unknown>, idempotencyKey: string): Promise<Payment> {
    return this.#call('/payments', 'POST', body, { 'idempotency-key': idempotencyKey });
  }

  payment(id: string): Promise<Payment> {
    return this.#call(`/payments/${encodeURIComponent(id)}`);
  }

  /**
   * A succeeded payment's receipt (a PDF), read with the token in the Authorization header: a plain link would put
   * the token in a URL, where logs and the browser's history keep it.
   */
  async receipt(id: string): Promise<Blob> {
    let response: Response;
    try {
      response = await fetch(`/api/client/payments/${encodeURIComponent(id)}/receipt.pdf`, {
        headers: { accept: 'application/pdf', authorization: `Bearer ${this.token}` },
      });
    } catch {
      throw new ApiProblem(0, 'network', 'We could not reach the payment service. Try again.');
    }
    if (!response.ok) throw await problemOf(response);
    return response.blob();
  }

  cancelPayment(id: string): Promise<Payment> {
    return this.#call(`/payments/${encodeURIComponent(id)}/cancel`, 'POST');
  }

  /** A recurring charge of the tenant's that waits for them: answers it with its step (3DS) to show. */
  confirmPayment(id: string): Promise<Payment> {
    return this.#call(`/payments/${encodeURIComponent(id)}/confirm`, 'POST');
  }

  async cards(): Promise<SavedCard[]> {
    return (await this.#call<{ cards: SavedCard[] }>('/cards')).cards;
  }

  card(id: string): Promise<SavedCard> {
    return this.#call(`/cards/${encodeURIComponent(id)}`);
  }

  saveCard(cardToken: string): Promise<SavedCard> {
    return this.#call('/cards', 'POST', { card_token: cardToken });
  }

  async schedules(): Promise<Schedule[]> {
    return (await this.#call<{ schedules: Schedule[] }>('/schedules')).schedules;
  }

  previewSchedule(body: ScheduleSetUp): Promise<SchedulePreview> {
    return this.#call('/schedules/preview', 'POST', body);
  }

  /** `authorization_text`: the preview's sentence, which the tenant agreed to. */
  createSchedule(body: ScheduleSetUp & { authorization_text: string }): Promise<Schedule> {
    return this.#call('/schedules', 'POST', body);
  }

  changeSchedule(id: string, action: 'pause' | 'resume' | 'cancel'): Promise<Schedule> {
    return this.#call(`/schedules/${encodeURIComponent(id)}/${action}`, 'POST');
  }

  deleteCard(id: string): Promise<void> {
    return this.#call(`/cards/${encodeURIComponent(id)}`, 'DELETE');
  }

  makeDefault(id: string): Promise<SavedCard> {
    return this.#call(`/cards/${encodeURIComponent(id)}/default`, 'POST');
  }
}

/** Card data goes to the processor's tokenisation endpoint, never to our API. */
export async function tokeniseCard(
  url: string,
  card: { number: string; exp_month: number; exp_year: number; cvc: string },
): Promise<string> {
  const result = await requestJson<{ token: string }>(url, { method: 'POST', body: JSON.stringify(card) });
  return result.token;
}
