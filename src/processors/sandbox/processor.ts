import type { Clock } from '../../platform/clock/clock.ts';
import type { Db } from '../../platform/db/db.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { enqueueJob } from '../../platform/jobs/queue.ts';
import {
  type AuthoriseRequest,
  type CardDetails,
  PAYMENT_NOTIFICATION_JOB,
  type PaymentProcessor,
  type ProcessorNotification,
  type ProcessorOutcome,
  type RefundOutcome,
  type RefundRequest,
} from '../processor.ts';
import { behaviourOf, type CardBehaviour, cardBrand, DECLINE_MESSAGES, luhnValid } from './cards.ts';

export const SANDBOX_PROCESSOR = 'sandbox';
const TOKEN_PREFIX = 'tok_sandbox_';

export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

interface TokenRow {
  id: string;
  behaviour: CardBehaviour;
  brand: string;
  last4: string;
  exp_month: number;
  exp_year: number;
}

interface ChargeRow {
  id: string;
  status: 'authorised' | 'action_required' | 'refused' | 'cancelled';
  refusal_code: string | null;
}

/** The body the sandbox "acquirer" sends when a payment's outcome changes after the first answer. */
interface SandboxNotificationBody {
  type: 'charge.updated';
  charge_id: string;
  status: ChargeRow['status'];
  refusal_code: string | null;
}

/** Field errors for a card that no issuer would accept; keys are the tokenisation body's fields. */
export function cardErrors(card: CardInput, now: Date): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  const digits = card.number.replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) errors.number = ['Your card number is invalid.'];
  const year = now.getUTCFullYear();
  const month = now.getUTCMonth() + 1;
  if (card.exp_year < year || (card.exp_year === year && card.exp_month < month)) {
    errors.exp_year = ['Your card has expired.'];
  }
  if (!/^\d{3,4}$/.test(card.cvc)) errors.cvc = ['Your card’s security code is invalid.'];
  return errors;
}

/**
 * Plays the acquirer, card network and 3DS server. Keeps no state in memory: tokens and charges are
 * rows, so any node (and a restarted one) answers the same.
 */
export class SandboxProcessor implements PaymentProcessor {
  readonly name = SANDBOX_PROCESSOR;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly publicUrl: string,
  ) {}

  /** Stores the card's behaviour and display details, never its number or CVC. Validate with cardErrors first. */
  async tokenise(card: CardInput): Promise<{ token: string; card: CardDetails }> {
    const digits = card.number.replace(/[\s-]/g, '');
    const token = `${TOKEN_PREFIX}${randomBase62(24)}`;
    const details: CardDetails = {
      brand: cardBrand(digits),
      last4: digits.slice(-4),
      exp_month: card.exp_month,
      exp_year: card.exp_year,
    };
    await this.db.query(
      `INSERT INTO sandbox_tokens (id, behaviour, brand, last4, exp_month, exp_year, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)`,
      [
        token,
        behaviourOf(digits),
        details.brand,
        details.last4,
        details.exp_month,
        details.exp_year,
        this.clock.now(),
      ],
    );
    return { token, card: details };
  }

  async describeToken(paymentToken: string): Promise<CardDetails | undefined> {
    const token = await this.#token(paymentToken);
    return (
      token && {
        brand: token.brand,
        last4: token.last4,
        exp_month: token.exp_month,
        exp_year: token.exp_year,
      }
    );
  }

  authorise(request: AuthoriseRequest): Promise<ProcessorOutcome> {
    return this.#charge(request, false);
  }

  chargeOffSession(request: AuthoriseRequest): Promise<ProcessorOutcome> {
    return this.#charge(request, true);
  }

  async saveCard(paymentToken: string): Promise<{ reusableToken: string; card: CardDetails }> {
    const card = await this.describeToken(paymentToken);
    if (!card) throw new Error('Unknown sandbox token');
    // Sandbox tokens are reusable already; a real acquirer would exchange a one-time token here.
    return { reusableToken: paymentToken, card };
  }

  async complete(processorPaymentId: string): Promise<ProcessorOutcome> {
    const [charge] = await this.db.query<ChargeRow>(
      'SELECT id, status, refusal_code FROM sandbox_charges WHERE id = $1',
      [processorPaymentId],
    );
    if (!charge) throw new Error(`Unknown sandbox charge ${processorPaymentId}`);
    return this.#outcome(charge);
  }

  async cancel(processorPaymentId: string): Promise<ProcessorOutcome> {
    await this.db.query(
      `UPDATE sandbox_charges SET status = 'cancelled', updated_at = $2
        WHERE id = $1 AND status = 'action_required'`,
      [processorPaymentId, this.clock.now()],
    );
    return this.complete(processorPaymentId);
  }

  async refund(request: RefundRequest): Promise<RefundOutcome> {
    const updated = await this.db.query(
      `UPDATE sandbox_charges SET refunded_pence = refunded_pence + $2, updated_at = $3
        WHERE id = $1 AND status = 'authorised' AND refunded_pence + $2 <= amount_pence
        RETURNING id`,
      [request.processorPaymentId, request.amountPence, this.clock.now()],
    );
    return updated.length > 0
      ? { status: 'refunded' }
      : {
          status: 'refused',
          code: 'refund_refused',
          message: 'The charge cannot be refunded by that amount.',
        };
  }

  parseNotification(body: unknown): ProcessorNotification | undefined {
    const note = body as Partial<SandboxNotificationBody> | null;
    if (note?.type !== 'charge.updated' || typeof note.charge_id !== 'string') return undefined;
    if (note.status !== 'authorised' && note.status !== 'refused' && note.status !== 'action_required') {
      return undefined;
    }
    return {
      processorPaymentId: note.charge_id,
      outcome: this.#outcome({
        id: note.charge_id,
        status: note.status,
        refusal_code: note.refusal_code ?? null,
      }),
    };
  }

  /**
   * The 3DS server's answer once the cardholder pressed Authorise or Fail. Like a real provider, the
   * outcome reaches the engine as a notification (a job), not as the answer to this call.
   */
  async authenticate(chargeId: string, authenticated: boolean): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const [charge] = await tx.query<ChargeRow>(
        `UPDATE sandbox_charges
            SET status = $2, authenticated = $3, refusal_code = $4, updated_at = $5
          WHERE id = $1 AND status = 'action_required'
          RETURNING id, status, refusal_code`,
        [
          chargeId,
          authenticated ? 'authorised' : 'refused',
          authenticated,
          authenticated ? null : 'authentication_failed',
          this.clock.now(),
        ],
      );
      if (!charge) return false;
      const body: SandboxNotificationBody = {
        type: 'charge.updated',
        charge_id: charge.id,
        status: charge.status,
        refusal_code: charge.refusal_code,
      };
      await enqueueJob(tx, this.clock, PAYMENT_NOTIFICATION_JOB, { processor: SANDBOX_PROCESSOR, body });
      return true;
    });
  }

  async #token(id: string): Promise<TokenRow | undefined> {
    if (!id.startsWith(TOKEN_PREFIX)) return undefined;
    const [row] = await this.db.query<TokenRow>(
      'SELECT id, behaviour, brand, last4, exp_month, exp_year FROM sandbox_tokens WHERE id = $1',
      [id],
    );
    return row;
  }

  async #charge(request: AuthoriseRequest, offSession: boolean): Promise<ProcessorOutcome> {
    const token = await this.#token(request.paymentToken);
    if (!token) {
      return {
        status: 'refused',
        processorPaymentId: null,
        code: 'invalid_token',
        message: 'Unknown card token.',
      };
    }
    const { status, refusalCode } = await this.#decide(token, offSession);
    const now = this.clock.now();
    // The key is unique: a repeated call finds the first charge and answers as it did, charging nothing.
    await this.db.query(
      `INSERT INTO sandbox_charges (id, idempotency_key, token_id, amount_pence, off_session, status, refusal_code,
                                    created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $8)
       ON CONFLICT (idempotency_key) DO NOTHING`,
      [
        `ch_sandbox_${randomBase62(22)}`,
        request.idempotencyKey,
        token.id,
        request.amountPence,
        offSession,
        status,
        refusalCode,
        now,
      ],
    );
    const [charge] = await this.db.query<ChargeRow>(
      'SELECT id, status, refusal_code FROM sandbox_charges WHERE idempotency_key = $1',
      [request.idempotencyKey],
    );
    return this.#outcome(charge!);
  }

  async #decide(
    token: TokenRow,
    offSession: boolean,
  ): Promise<{ status: ChargeRow['status']; refusalCode: string | null }> {
    switch (token.behaviour) {
      case 'succeed':
        return { status: 'authorised', refusalCode: null };
      case 'three_ds_first': {
        if (offSession) return { status: 'authorised', refusalCode: null };
        const [previous] = await this.db.query(
          `SELECT 1 FROM sandbox_charges WHERE token_id = $1 AND authenticated AND status = 'authorised' LIMIT 1`,
          [token.id],
        );
        return { status: previous ? 'authorised' : 'action_required', refusalCode: null };
      }
      case 'three_ds_always':
        return offSession
          ? { status: 'refused', refusalCode: 'authentication_required' }
          : { status: 'action_required', refusalCode: null };
      default:
        return { status: 'refused', refusalCode: token.behaviour };
    }
  }

  #outcome(charge: ChargeRow): ProcessorOutcome {
    switch (charge.status) {
      case 'authorised':
        return { status: 'authorised', processorPaymentId: charge.id };
      case 'action_required':
        return {
          status: 'action_required',
          processorPaymentId: charge.id,
          action: { type: 'three_ds', url: `${this.publicUrl}/sandbox/3ds/${charge.id}` },
        };
      case 'cancelled':
        return { status: 'cancelled', processorPaymentId: charge.id };
      case 'refused': {
        const code = charge.refusal_code ?? 'card_declined';
        return {
          status: 'refused',
          processorPaymentId: charge.id,
          code,
          message: DECLINE_MESSAGES[code] ?? 'The payment was refused.',
        };
      }
    }
  }
}
