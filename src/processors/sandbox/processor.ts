// One class for the whole PaymentProcessor interface, as the Stripe processor is: each method reads beside its
// counterpart there, and the sandbox's own pages (3DS, APM, wallet) share its charge rows. Hence the length.

import type { InferResult, NotNull, Selectable } from 'kysely';
import { type Static, Type } from 'typebox';
import type { Clock } from '../../platform/clock/clock.ts';
import { StatementBatcher } from '../../platform/db/batcher.ts';
import { Col, sqlStatement } from '../../platform/db/checked-sql.ts';
import type { Db, Queryable } from '../../platform/db/db.ts';
import { firstRow, qb, rows } from '../../platform/db/query-builder.ts';
import type { SandboxChargesTable } from '../../platform/db/tables.ts';
import { randomBase62 } from '../../platform/ids.ts';
import { enqueue } from '../../platform/jobs/define.ts';
import { cardBrand, luhnValid } from '../../shared/card-numbers.ts';
import {
  APM_METHODS,
  type ApmMethod,
  PAYMENT_METHODS,
  type PaymentMethod,
  type WalletMethod,
} from '../../shared/vocabulary.ts';
import { paymentNotificationJob } from '../jobs/payment-notification.ts';
import type {
  AuthoriseRequest,
  CardDetails,
  DisputeStatus,
  NextAction,
  PaymentProcessor,
  ProcessorClientConfig,
  ProcessorNotification,
  ProcessorOutcome,
  RefundOutcome,
  RefundRequest,
  SaveCardOutcome,
} from '../processor.ts';
import { behaviourOf, type CardBehaviour, DECLINE_MESSAGES } from './cards.ts';

export const SANDBOX_PROCESSOR = 'sandbox' as const;
const TOKEN_PREFIX = 'tok_sandbox_';

export interface CardInput {
  number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

/** A sandbox token: what a charge needs of its card. */
const TOKEN_ROW = Col.row({
  id: Col.text,
  behaviour: Type.Unsafe<CardBehaviour>(Col.text),
  brand: Col.text,
  last4: Col.text,
  exp_month: Col.int,
  exp_year: Col.int,
  wallet: Type.Union([Type.Literal('apple_pay'), Type.Literal('google_pay'), Type.Null()]),
});

type TokenRow = Static<typeof TOKEN_ROW>;

/** Sandbox tokens, ids in $1. */
const TOKENS = sqlStatement(
  TOKEN_ROW,
  `SELECT id, behaviour, brand, last4, exp_month, exp_year, wallet FROM sandbox_tokens
    WHERE id = ANY (ARRAY(SELECT jsonb_array_elements_text($1::jsonb)))`,
  { prepare: 'sandbox-tokens' },
);

/** The sandbox_charges column the database types loosely (free text), as the sandbox writes it. */
interface ChargeNarrowing {
  method: PaymentMethod;
}

/** A charge to write, as its row's columns. */
interface NewCharge {
  id: string;
  idempotency_key: string;
  token_id: string | null;
  amount_pence: number;
  off_session: boolean;
  method: PaymentMethod;
  status: ChargeRow['status'];
  refusal_code: string | null;
}

function newCharge(
  idempotencyKey: string,
  tokenId: string | null,
  amountPence: number,
  offSession: boolean,
  method: PaymentMethod,
  status: NewCharge['status'],
  refusalCode: string | null,
): NewCharge {
  return {
    id: `ch_sandbox_${randomBase62(22)}`,
    idempotency_key: idempotencyKey,
    token_id: tokenId,
    amount_pence: amountPence,
    off_session: offSession,
    method,
    status,
    refusal_code: refusalCode,
  };
}

/** A card token pays by card, a wallet's token by that wallet. */
function paysBy(token: TokenRow, method: PaymentMethod): boolean {
  return (token.wallet ?? 'card') === method;
}

/** What a request comes to: a charge to write, or a refusal without one (a token the sandbox does not know). */
type Planned = { charge: NewCharge } | { refused: ProcessorOutcome };

/** The columns of a charge that tell its outcome. */
const CHARGE_OUTCOME = ['id', 'method', 'status', 'refusal_code'] as const;

/** Sandbox charges, the columns that tell their outcome. */
function charges() {
  return qb.selectFrom('sandbox_charges').select(CHARGE_OUTCOME).$narrowType<ChargeNarrowing>();
}

type ChargeRow = InferResult<ReturnType<typeof charges>>[number];

/** New charges (a key already charged is left as it is); each key's charge, new or earlier, with its key. */
const INSERT_CHARGES = sqlStatement(
  Col.row({
    idempotency_key: Col.text,
    id: Col.text,
    method: Type.Enum(PAYMENT_METHODS),
    status: Type.Enum(['authorised', 'action_required', 'refused', 'cancelled']),
    refusal_code: Col.nullable(Col.text),
  }),
  `WITH x AS (
     SELECT * FROM jsonb_to_recordset($1::jsonb) AS x(id text, idempotency_key text, token_id text,
       amount_pence bigint, off_session boolean, method text, status text, refusal_code text)),
   inserted AS (
     INSERT INTO sandbox_charges (id, idempotency_key, token_id, amount_pence, off_session, method, status,
                                  refusal_code, created_at, updated_at)
     SELECT x.id, x.idempotency_key, x.token_id, x.amount_pence, x.off_session, x.method, x.status, x.refusal_code,
            $2, $2
       FROM x
     ON CONFLICT (idempotency_key) DO NOTHING
     RETURNING idempotency_key, id, method, status, refusal_code)
   SELECT * FROM inserted
   UNION ALL
   SELECT c.idempotency_key, c.id, c.method, c.status, c.refusal_code
     FROM sandbox_charges c JOIN x ON x.idempotency_key = c.idempotency_key
    WHERE NOT EXISTS (SELECT 1 FROM inserted i WHERE i.idempotency_key = c.idempotency_key)`,
  { prepare: 'sandbox-charges' },
);

/** A charge as the sandbox's challenge pages show it. */
export type SandboxChallenge = Pick<Selectable<SandboxChargesTable>, 'id' | 'amount_pence' | 'status'> &
  ChargeNarrowing;

/**
 * Who answers a waiting charge: the 3DS server (card charges and card checks, which have a token) or the
 * APM provider (charges without a token).
 */
export type ChallengeKind = 'three_ds' | 'apm';

/** How a refund ends at the sandbox (`POST /sandbox/refunds/{refund_id}/{succeed|fail}`). */
export type RefundSettlement = 'succeed' | 'fail';

/** Why the sandbox fails a refund: Stripe's reason for a refund to a card that was closed. */
const SANDBOX_REFUND_FAILURE = 'expired_or_canceled_card';

/**
 * The bodies the sandbox "acquirer" sends when something changes after its first answer: a payment's (or card
 * check's) outcome, a refund that ended, a dispute that opened or ended.
 */
type SandboxNotificationBody =
  | {
      type: 'charge.updated';
      charge_id: string;
      method?: PaymentMethod;
      status: ChargeRow['status'];
      refusal_code: string | null;
    }
  | {
      type: 'refund.updated';
      charge_id: string;
      /** The sandbox's id of the refund, and the idempotency key it was asked with (our refund id). */
      refund_id: string;
      idempotency_key: string;
      status: 'succeeded' | 'failed';
      failure_code: string | null;
    }
  | { type: 'dispute.updated'; charge_id: string; status: DisputeStatus; amount_pence: number };

const REFUSAL_ON_FAIL: Record<ChallengeKind, string> = {
  three_ds: 'authentication_failed',
  apm: 'apm_declined',
};

export function isApm(method: PaymentMethod): method is ApmMethod {
  return (APM_METHODS as readonly string[]).includes(method);
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

function refusalMessage(code: string): string {
  return DECLINE_MESSAGES[code] ?? 'The payment was refused.';
}

function details(token: TokenRow): CardDetails {
  return { brand: token.brand, last4: token.last4, exp_month: token.exp_month, exp_year: token.exp_year };
}

/**
 * Plays the acquirer, card network, 3DS server, wallets and APM providers. Keeps no state in memory: tokens
 * and charges are rows, so any node (and a restarted one) answers the same.
 */
export class SandboxProcessor implements PaymentProcessor {
  readonly name = SANDBOX_PROCESSOR;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly publicUrl: string,
  ) {}

  clientConfig(): ProcessorClientConfig {
    return {
      name: SANDBOX_PROCESSOR,
      tokenizeUrl: `${this.publicUrl}/sandbox/tokens`,
      walletUrl: `${this.publicUrl}/sandbox/wallet`,
    };
  }

  /** Stores the card's behaviour and display details, never its number or CVC. Validate with cardErrors first. */
  tokenise(card: CardInput): Promise<{ token: string; card: CardDetails }> {
    const digits = card.number.replace(/[\s-]/g, '');
    return this.#insertToken(behaviourOf(digits), null, {
      brand: cardBrand(digits),
      last4: digits.slice(-4),
      exp_month: card.exp_month,
      exp_year: card.exp_year,
    });
  }

  /**
   * The wallet sheet's token: a Visa expiring three years from now, whose payments succeed (Authorise) or
   * are declined with card_declined (Fail).
   */
  tokeniseWallet(
    wallet: WalletMethod,
    outcome: 'authorise' | 'fail',
  ): Promise<{ token: string; card: CardDetails }> {
    const now = this.clock.now();
    return this.#insertToken(outcome === 'authorise' ? 'succeed' : 'card_declined', wallet, {
      brand: 'visa',
      last4: outcome === 'authorise' ? '4242' : '0002',
      exp_month: now.getUTCMonth() + 1,
      exp_year: now.getUTCFullYear() + 3,
    });
  }

  async describeToken(paymentToken: string, method: PaymentMethod): Promise<CardDetails | undefined> {
    const token = await this.#token(paymentToken, method);
    return token && details(token);
  }

  authorise(request: AuthoriseRequest): Promise<ProcessorOutcome> {
    return this.#charge(request, false);
  }

  chargeOffSession(request: AuthoriseRequest): Promise<ProcessorOutcome> {
    return this.#charge(request, true);
  }

  /**
   * Sandbox tokens are reusable already (a real acquirer would exchange a one-time token here). A card that
   * needs 3DS is checked by a zero-amount charge waiting at the 3DS page; a decline card is refused.
   */
  async saveCard(paymentToken: string, idempotencyKey: string): Promise<SaveCardOutcome> {
    const token = await this.#token(paymentToken, 'card');
    if (!token) return { status: 'refused', code: 'invalid_token', message: 'Unknown card token.' };
    const card = details(token);
    // Like Stripe's 4000 0000 0000 0341: the card attaches fine, only its charges are declined.
    const decided =
      token.behaviour === 'charge_customer_fail'
        ? { status: 'authorised' as const, refusalCode: null }
        : await this.#decide(this.db, token, false);
    // Only a check that waits for 3DS is a charge (of nothing); the same key finds it again.
    const check =
      decided.status === 'action_required'
        ? this.#outcome(
            await this.#insertCharge(idempotencyKey, token.id, 0, false, 'card', decided.status, null),
          )
        : undefined;
    if (check?.status === 'action_required') {
      return {
        status: 'action_required',
        processorSetupId: check.processorPaymentId,
        reusableToken: token.id,
        card,
        action: check.action,
      };
    }
    if ((check?.status ?? decided.status) === 'authorised') {
      return { status: 'saved', reusableToken: token.id, card };
    }
    const code = check?.status === 'refused' ? check.code : (decided.refusalCode ?? 'setup_cancelled');
    return { status: 'refused', code, message: refusalMessage(code) };
  }

  async complete(processorPaymentId: string): Promise<ProcessorOutcome> {
    const charge = await firstRow(this.db, charges().where('id', '=', processorPaymentId));
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

  /**
   * Refunds once per idempotency key: the first call decides (and moves the charge's refunded total), every
   * later call with the key answers as the refund stands now. A key reused for another charge or amount is
   * refused. A charge of the refund_pending card has its refunds answered `pending` until settleRefund ends them.
   */
  async refund(request: RefundRequest): Promise<RefundOutcome> {
    return this.db.transaction(async (tx) => {
      const now = this.clock.now();
      // Written refused first, so a refund the charge cannot take is answered as such on every call.
      const inserted = await firstRow(
        tx,
        qb
          .insertInto('sandbox_refunds')
          .columns([
            'idempotency_key',
            'id',
            'charge_id',
            'amount_pence',
            'status',
            'refusal_code',
            'created_at',
          ])
          .expression((eb) =>
            eb
              .selectFrom('sandbox_charges')
              .select((charge) => [
                charge.val(request.idempotencyKey).as('idempotency_key'),
                charge.val(`re_sandbox_${randomBase62(22)}`).as('id'),
                'id as charge_id',
                charge.val(request.amountPence).as('amount_pence'),
                charge.val('refused').as('status'),
                charge.val('refund_refused').as('refusal_code'),
                charge.val(now).as('created_at'),
              ])
              .where('id', '=', request.processorPaymentId),
          )
          .onConflict((conflict) => conflict.column('idempotency_key').doNothing())
          .returning('idempotency_key'),
      );
      if (inserted) {
        // A pending refund counts against what is left to refund, as at Stripe.
        const charged = await firstRow(
          tx,
          qb
            .updateTable('sandbox_charges')
            .set((eb) => ({
              refunded_pence: eb('refunded_pence', '+', request.amountPence),
              updated_at: now,
            }))
            .where('id', '=', request.processorPaymentId)
            .where('status', '=', 'authorised')
            .where((eb) => eb(eb('refunded_pence', '+', request.amountPence), '<=', eb.ref('amount_pence')))
            .returning((eb) =>
              eb
                .selectFrom('sandbox_tokens')
                .select('behaviour')
                .whereRef('sandbox_tokens.id', '=', 'sandbox_charges.token_id')
                .$narrowType<{ behaviour: CardBehaviour }>()
                .as('behaviour'),
            ),
        );
        if (charged) {
          await tx.query(
            'UPDATE sandbox_refunds SET status = $2, refusal_code = NULL WHERE idempotency_key = $1',
            [request.idempotencyKey, charged.behaviour === 'refund_pending' ? 'pending' : 'refunded'],
          );
        }
      }
      // A refund at the sandbox is `refused` (the charge cannot be refunded by that much), `refunded`, `pending` (one
      // of the refund_pending card, until settleRefund ends it), or `failed` (settled so, from pending or after it
      // was refunded).
      const refund = await firstRow(
        tx,
        qb
          .selectFrom('sandbox_refunds')
          .select(['id', 'charge_id', 'amount_pence', 'status', 'refusal_code'])
          .where('idempotency_key', '=', request.idempotencyKey),
      );
      if (!refund) {
        return { status: 'refused', code: 'unknown_charge', message: 'There is no such charge.' };
      }
      if (
        refund.charge_id !== request.processorPaymentId ||
        Number(refund.amount_pence) !== request.amountPence
      ) {
        return {
          status: 'refused',
          code: 'idempotency_key_reused',
          message: 'This idempotency key was used for another refund.',
        };
      }
      switch (refund.status) {
        case 'refunded':
          return { status: 'refunded' };
        case 'pending':
          return { status: 'pending', processorRefundId: refund.id! };
        case 'failed':
          return {
            status: 'refused',
            code: refund.refusal_code ?? SANDBOX_REFUND_FAILURE,
            message: 'The refund did not reach the cardholder.',
          };
        case 'refused':
          return {
            status: 'refused',
            code: 'refund_refused',
            message: 'The charge cannot be refunded by that amount.',
          };
      }
    });
  }

  /**
   * Ends a refund as the card network would: a `pending` one succeeds (`succeed`) or fails (`fail`), and one that
   * succeeded may still fail (the card was closed), giving its amount back to the charge. The outcome reaches the
   * engine as a notification (a job, in the same transaction). `refundKey` is the idempotency key the refund was
   * asked with (our refund id). False when no refund of that key can end so.
   */
  async settleRefund(refundKey: string, settlement: RefundSettlement): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const succeed = settlement === 'succeed';
      const refund = await firstRow(
        tx,
        qb
          .updateTable('sandbox_refunds')
          .set((eb) => ({
            status: succeed ? 'refunded' : 'failed',
            refusal_code: succeed ? null : SANDBOX_REFUND_FAILURE,
            id: eb.fn.coalesce('id', eb.val(`re_sandbox_${randomBase62(22)}`)),
          }))
          .where('idempotency_key', '=', refundKey)
          // A pending refund ends either way; one that was refunded may only fail.
          .where('status', 'in', succeed ? ['pending'] : ['pending', 'refunded'])
          .returning(['id', 'charge_id', 'amount_pence'])
          // The id is set (COALESCE) by this very update.
          .$narrowType<{ id: NotNull }>(),
      );
      if (!refund) return false;
      if (!succeed) {
        await tx.query(
          'UPDATE sandbox_charges SET refunded_pence = refunded_pence - $2, updated_at = $3 WHERE id = $1',
          [refund.charge_id, refund.amount_pence, this.clock.now()],
        );
      }
      await this.#notify(tx, {
        type: 'refund.updated',
        charge_id: refund.charge_id,
        refund_id: refund.id,
        idempotency_key: refundKey,
        status: succeed ? 'succeeded' : 'failed',
        failure_code: succeed ? null : SANDBOX_REFUND_FAILURE,
      });
      return true;
    });
  }

  /**
   * The cardholder disputes a succeeded charge (`open`: of what is not refunded of it), or its open dispute ends
   * (`won`, `lost`), as the card network would say; the engine hears of it through a notification (a job, in the
   * same transaction). False when the charge has no dispute that can move so (open twice, end one not open).
   */
  async disputeCharge(chargeId: string, status: DisputeStatus): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const charge = await firstRow(
        tx,
        qb
          .updateTable('sandbox_charges')
          .set((eb) => ({
            dispute_status: status,
            updated_at: this.clock.now(),
            // Opened: of what is not refunded; ended: of what it was opened for.
            ...(status === 'open'
              ? { disputed_pence: eb('amount_pence', '-', eb.ref('refunded_pence')) }
              : {}),
          }))
          .where('id', '=', chargeId)
          .where('status', '=', 'authorised')
          .where('amount_pence', '>', 0)
          .where('dispute_status', 'is not distinct from', status === 'open' ? null : 'open')
          .returning('disputed_pence'),
      );
      if (!charge) return false;
      await this.#notify(tx, {
        type: 'dispute.updated',
        charge_id: chargeId,
        status,
        amount_pence: Number(charge.disputed_pence),
      });
      return true;
    });
  }

  parseNotification(body: unknown): ProcessorNotification | undefined {
    const note = body as Partial<Record<string, unknown>> | null;
    if (typeof note?.charge_id !== 'string') return undefined;
    const processorPaymentId = note.charge_id;
    switch (note.type) {
      case 'charge.updated': {
        const status = note.status;
        if (status !== 'authorised' && status !== 'refused' && status !== 'action_required') return undefined;
        return {
          processorPaymentId,
          outcome: this.#outcome({
            id: processorPaymentId,
            method: (note.method as PaymentMethod | undefined) ?? 'card',
            status,
            refusal_code: typeof note.refusal_code === 'string' ? note.refusal_code : null,
          }),
        };
      }
      case 'refund.updated': {
        if (typeof note.refund_id !== 'string' || typeof note.idempotency_key !== 'string') return undefined;
        if (note.status !== 'succeeded' && note.status !== 'failed') return undefined;
        return {
          processorPaymentId,
          refund: {
            processorRefundId: note.refund_id,
            status: note.status,
            failureCode: typeof note.failure_code === 'string' ? note.failure_code : null,
            refundId: note.idempotency_key,
          },
        };
      }
      case 'dispute.updated': {
        if (note.status !== 'open' && note.status !== 'won' && note.status !== 'lost') return undefined;
        if (typeof note.amount_pence !== 'number') return undefined;
        return { processorPaymentId, dispute: note.status, disputedPence: note.amount_pence };
      }
      default:
        return undefined;
    }
  }

  /**
   * An off-session card charge refused with `authentication_required`, confirmed again now that its customer is
   * here: it waits for the 3DS page, like an on-session charge of the card. Any other charge answers how it stands.
   */
  async confirmWithCustomer(processorPaymentId: string, paymentToken: string): Promise<ProcessorOutcome> {
    await this.db.query(
      `UPDATE sandbox_charges SET status = 'action_required', refusal_code = NULL, updated_at = $3
        WHERE id = $1 AND token_id = $2 AND status = 'refused' AND refusal_code = 'authentication_required'`,
      [processorPaymentId, paymentToken, this.clock.now()],
    );
    const charge = await firstRow(this.db, charges().where('id', '=', processorPaymentId));
    if (!charge) {
      return {
        status: 'refused',
        processorPaymentId: null,
        code: 'unknown_charge',
        message: 'There is no such charge.',
      };
    }
    return this.#outcome(charge);
  }

  /** A charge waiting (or once waiting) for this kind of answer, for its page; undefined if there is none. */
  async challenge(chargeId: string, kind: ChallengeKind): Promise<SandboxChallenge | undefined> {
    const charge = await firstRow(
      this.db,
      qb
        .selectFrom('sandbox_charges')
        .select(['id', 'method', 'amount_pence', 'status'])
        .where('id', '=', chargeId)
        .where('token_id', kind === 'apm' ? 'is' : 'is not', null)
        .$narrowType<ChargeNarrowing>(),
    );
    return charge && { ...charge, amount_pence: Number(charge.amount_pence) };
  }

  /**
   * The customer's answer on a sandbox page: the 3DS server's Authorise or Fail for a card charge or card
   * check, or the APM provider's for an APM charge. Like a real provider, the outcome reaches the engine as a
   * notification (a job, in the same transaction), not as the answer to this call. False when no charge of
   * that kind is waiting.
   */
  async answerChallenge(chargeId: string, kind: ChallengeKind, approve: boolean): Promise<boolean> {
    return this.db.transaction(async (tx) => {
      const charge = await firstRow(
        tx,
        qb
          .updateTable('sandbox_charges')
          .set({
            status: approve ? 'authorised' : 'refused',
            authenticated: approve && kind === 'three_ds',
            refusal_code: approve ? null : REFUSAL_ON_FAIL[kind],
            updated_at: this.clock.now(),
          })
          .where('id', '=', chargeId)
          .where('status', '=', 'action_required')
          .where('token_id', kind === 'apm' ? 'is' : 'is not', null)
          .returning(CHARGE_OUTCOME)
          .$narrowType<ChargeNarrowing>(),
      );
      if (!charge) return false;
      await this.#notify(tx, {
        type: 'charge.updated',
        charge_id: charge.id,
        method: charge.method,
        status: charge.status,
        refusal_code: charge.refusal_code,
      });
      return true;
    });
  }

  /** Sends a notification, as the acquirer's webhook would: a job the engine applies, in the caller's transaction. */
  async #notify(tx: Queryable, body: SandboxNotificationBody): Promise<void> {
    await enqueue(tx, this.clock, paymentNotificationJob, { processor: SANDBOX_PROCESSOR, body });
  }

  async #insertToken(
    behaviour: CardBehaviour,
    wallet: WalletMethod | null,
    card: CardDetails,
  ): Promise<{ token: string; card: CardDetails }> {
    const token = `${TOKEN_PREFIX}${randomBase62(24)}`;
    await this.db.query(
      `INSERT INTO sandbox_tokens (id, behaviour, brand, last4, exp_month, exp_year, wallet, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [token, behaviour, card.brand, card.last4, card.exp_month, card.exp_year, wallet, this.clock.now()],
    );
    return { token, card };
  }

  /** A token that pays by `method`: a card token for card, that wallet's token for a wallet. */
  async #token(id: string, method: PaymentMethod): Promise<TokenRow | undefined> {
    if (!id.startsWith(TOKEN_PREFIX)) return undefined;
    const row = await this.#tokens.run(id);
    return row && paysBy(row, method) ? row : undefined;
  }

  /** The tokens read in one turn of the event loop are read in one statement. */
  readonly #tokens = new StatementBatcher<string, TokenRow | undefined>(
    async (ids) => {
      const found = await TOKENS.rows(this.db, [[...new Set(ids)]]);
      return ids.map((id) => found.find((token) => token.id === id));
    },
    { maxInFlight: 2 },
  );

  async #charge(request: AuthoriseRequest, offSession: boolean): Promise<ProcessorOutcome> {
    const token =
      isApm(request.method) || !request.paymentToken
        ? undefined
        : await this.#token(request.paymentToken, request.method);
    const planned = await this.#plan(this.db, request, offSession, token);
    return 'refused' in planned ? planned.refused : this.#outcome(await this.#charges.run(planned.charge));
  }

  /**
   * New payments charged inside the transaction that writes them: the sandbox's rows live in the same database, so
   * a payment is written once, already decided, in one commit, and a rollback takes its charge with it.
   */
  async authoriseInTransaction(
    tx: Queryable,
    requests: readonly AuthoriseRequest[],
  ): Promise<ProcessorOutcome[]> {
    const known = await this.#readTokens(
      tx,
      requests.flatMap((request) => (request.paymentToken ? [request.paymentToken] : [])),
    );
    const planned: Planned[] = [];
    for (const request of requests) {
      const row = request.paymentToken ? known.get(request.paymentToken) : undefined;
      const token = row && paysBy(row, request.method) ? row : undefined;
      planned.push(await this.#plan(tx, request, false, isApm(request.method) ? undefined : token));
    }
    const toWrite = planned.flatMap((plan) => ('charge' in plan ? [plan.charge] : []));
    const written = toWrite.length === 0 ? [] : await INSERT_CHARGES.rows(tx, [toWrite, this.clock.now()]);
    const byKey = new Map(written.map((charge) => [charge.idempotency_key, charge]));
    return planned.map((plan) => {
      if ('refused' in plan) return plan.refused;
      const charge = byKey.get(plan.charge.idempotency_key);
      // Only another transaction's charge of the same key, written meanwhile, could be missing: payment ids are new.
      if (!charge) throw new Error(`Sandbox charge ${plan.charge.idempotency_key} exists already`);
      return this.#outcome(charge);
    });
  }

  async describeTokensInTransaction(
    tx: Queryable,
    tokens: readonly { paymentToken: string; method: PaymentMethod }[],
  ): Promise<(CardDetails | undefined)[]> {
    const known = await this.#readTokens(
      tx,
      tokens.map(({ paymentToken }) => paymentToken),
    );
    return tokens.map(({ paymentToken, method }) => {
      const row = known.get(paymentToken);
      return row && paysBy(row, method) ? details(row) : undefined;
    });
  }

  /** Tokens a transaction has read, kept for the rest of it: its authorisation does not read them again. */
  readonly #transactionTokens = new WeakMap<Queryable, Map<string, TokenRow>>();

  /** The transaction's rows of these tokens (those it has not read yet are read in one statement). */
  async #readTokens(tx: Queryable, ids: readonly string[]): Promise<Map<string, TokenRow>> {
    let known = this.#transactionTokens.get(tx);
    if (!known) {
      known = new Map();
      this.#transactionTokens.set(tx, known);
    }
    const missing = [...new Set(ids.filter((id) => id.startsWith(TOKEN_PREFIX) && !known.has(id)))];
    if (missing.length > 0) for (const row of await TOKENS.rows(tx, [missing])) known.set(row.id, row);
    return known;
  }

  /** The charge a request makes, decided from its token; or, for a token unknown here, the refusal. */
  async #plan(
    db: Queryable,
    request: AuthoriseRequest,
    offSession: boolean,
    token: TokenRow | undefined,
  ): Promise<Planned> {
    const charge = (tokenId: string | null, status: ChargeRow['status'], refusalCode: string | null) =>
      newCharge(
        request.idempotencyKey,
        tokenId,
        request.amountPence,
        offSession,
        request.method,
        status,
        refusalCode,
      );
    if (isApm(request.method)) {
      // The customer approves at the provider: there is no off-session APM payment.
      return {
        charge: offSession
          ? charge(null, 'refused', 'authentication_required')
          : charge(null, 'action_required', null),
      };
    }
    if (!token) {
      return {
        refused: {
          status: 'refused',
          processorPaymentId: null,
          code: 'invalid_token',
          message: 'Unknown card token.',
        },
      };
    }
    const { status, refusalCode } = await this.#decide(db, token, offSession);
    return { charge: charge(token.id, status, refusalCode) };
  }

  /** The key is unique: a repeated call finds the first charge and answers as it did, charging nothing. */
  #insertCharge(
    idempotencyKey: string,
    tokenId: string | null,
    amountPence: number,
    offSession: boolean,
    method: PaymentMethod,
    status: ChargeRow['status'],
    refusalCode: string | null,
  ): Promise<ChargeRow> {
    return this.#charges.run(
      newCharge(idempotencyKey, tokenId, amountPence, offSession, method, status, refusalCode),
    );
  }

  /** The charges of one turn of the event loop are written in one statement, as an acquirer takes many at once. */
  readonly #charges = new StatementBatcher<NewCharge, ChargeRow>(async (batch) => {
    const found = await INSERT_CHARGES.rows(this.db, [batch, this.clock.now()]);
    const byKey = new Map(found.map((charge) => [charge.idempotency_key, charge]));
    // A key another transaction wrote while this statement ran (or twice in this batch) is read again, committed.
    const missing = batch.filter((charge) => !byKey.has(charge.idempotency_key));
    if (missing.length > 0) {
      const again = await rows(
        this.db,
        charges()
          .select('idempotency_key')
          .where(
            'idempotency_key',
            'in',
            missing.map((charge) => charge.idempotency_key),
          ),
      );
      for (const charge of again) byKey.set(charge.idempotency_key, charge);
    }
    return batch.map((charge) => {
      const row = byKey.get(charge.idempotency_key);
      if (!row) throw new Error(`No sandbox charge of key ${charge.idempotency_key}`);
      return row;
    });
  });

  async #decide(
    db: Queryable,
    token: TokenRow,
    offSession: boolean,
  ): Promise<{ status: ChargeRow['status']; refusalCode: string | null }> {
    switch (token.behaviour) {
      case 'succeed':
      case 'refund_pending':
        return { status: 'authorised', refusalCode: null };
      case 'three_ds_first': {
        if (offSession) return { status: 'authorised', refusalCode: null };
        // Any authenticated charge of this token counts, the zero-amount check of a saved card included.
        const [previous] = await db.query(
          `SELECT 1 FROM sandbox_charges WHERE token_id = $1 AND authenticated AND status = 'authorised' LIMIT 1`,
          [token.id],
        );
        return { status: previous ? 'authorised' : 'action_required', refusalCode: null };
      }
      case 'three_ds_always':
        return offSession
          ? { status: 'refused', refusalCode: 'authentication_required' }
          : { status: 'action_required', refusalCode: null };
      case 'charge_customer_fail':
        return { status: 'refused', refusalCode: 'card_declined' };
      default:
        return { status: 'refused', refusalCode: token.behaviour };
    }
  }

  /** The APM provider's page for a charge: where a redirect goes, and what a QR code encodes. */
  apmPageUrl(chargeId: string): string {
    return `${this.publicUrl}/sandbox/apm/${chargeId}`;
  }

  #action(charge: ChargeRow): NextAction {
    const apm = this.apmPageUrl(charge.id);
    switch (charge.method) {
      case 'alipay':
      case 'unionpay':
        return { type: 'redirect', url: apm };
      case 'wechat_pay':
        return { type: 'qr', url: apm, image_url: `${apm}/qr.svg` };
      default:
        return { type: 'three_ds', url: `${this.publicUrl}/sandbox/3ds/${charge.id}` };
    }
  }

  #outcome(charge: ChargeRow): ProcessorOutcome {
    switch (charge.status) {
      case 'authorised':
        return { status: 'authorised', processorPaymentId: charge.id };
      case 'action_required':
        return { status: 'action_required', processorPaymentId: charge.id, action: this.#action(charge) };
      case 'cancelled':
        return { status: 'cancelled', processorPaymentId: charge.id };
      case 'refused': {
        const code = charge.refusal_code ?? 'card_declined';
        return { status: 'refused', processorPaymentId: charge.id, code, message: refusalMessage(code) };
      }
    }
  }
}
