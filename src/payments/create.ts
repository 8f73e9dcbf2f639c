import { sql } from 'kysely';
import {
  assertCardAttemptsLeft,
  declineOwner,
  isCardAttempt,
  reserveCardAttempt,
} from '../cards/card-testing.ts';
import { assertSavedCardsEnabled, type SavedCardService, UNKNOWN_CARD_TOKEN } from '../cards/service.ts';
import { hasFeature, type Integrator } from '../integrators/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb } from '../platform/db/query-builder.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import { enqueueAll, jobOf } from '../platform/jobs/define.ts';
import type { CardDetails, PaymentProcessor } from '../processors/processor.ts';
import { type ClientContext, checkPureAmount, checkSessionAmount } from '../sessions/service.ts';
import { formatPence } from '../shared/money.ts';
import { APM_METHODS, type PaymentMethod, WALLET_METHODS } from '../shared/vocabulary.ts';
import { type PaymentAmounts, paymentAmounts } from './fees.ts';
import { paymentExpireJob } from './jobs/payment-expire.ts';
import { paymentReconcileJob, RECONCILE_AFTER_MS } from './jobs/payment-reconcile.ts';
import { paymentRows } from './rows.ts';
import type { PaymentRow, PaymentRowNarrowing } from './view.ts';

/**
 * What pays: a new card's token or a saved card (method card), a wallet sheet's token (apple_pay,
 * google_pay), or nothing (APMs: the customer approves at the provider).
 */
export type PaymentSource =
  | { type: 'card_token'; token: string }
  | { type: 'saved_card'; cardId: string }
  | { type: 'wallet_token'; token: string }
  | { type: 'confirmation_token'; token: string }
  | { type: 'none' };

export interface CreatePaymentInput {
  client: ClientContext;
  purePence: number;
  method: PaymentMethod;
  source: PaymentSource;
  reference: string | undefined;
  idempotencyKey: string;
  /** The total (pure amount plus the method's fee) the customer was shown; another total is 409 amount_changed. */
  expectedAmountPence?: number;
}

/** A payment source resolved at the processor: its token, the card's display details, the saved card. */
interface ResolvedSource {
  processorToken: string | null;
  card: CardDetails | null;
  savedCardId: string | null;
}

export interface CreatePaymentResult {
  payment: PaymentRow;
  /** True when the idempotency key named a payment made before: nothing was charged this time. */
  replayed: boolean;
}

/**
 * The Client API's new payments, up to the processor: the amount, the card-testing limits and the integrator's
 * features checked, the source resolved, and the row written `processing` with its reconciliation and expiry jobs.
 */
export class NewPaymentWriter {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
    private readonly cards: SavedCardService,
  ) {}

  /**
   * The new payment, `processing` and not yet sent to the processor; or, `replayed`, the one an earlier request
   * with the same idempotency key made.
   */
  async write(input: CreatePaymentInput): Promise<CreatePaymentResult> {
    const { session, integrator } = input.client;
    checkPureAmount(input.purePence);
    checkSessionAmount(session, input.purePence);
    const amounts = paymentAmounts(input.purePence, integrator.fees[input.method]);
    const earlier = await this.#byKey(session.id, input.idempotencyKey);
    if (earlier) return { payment: checkReplay(earlier, input), replayed: true };
    if (input.expectedAmountPence !== undefined && input.expectedAmountPence !== amounts.amountPence) {
      throw amountChanged(input.expectedAmountPence, amounts);
    }
    await assertCardAttemptsLeft(this.db, declineOwner(input.client), session, this.clock.now());

    checkFeatures(integrator, input);
    const source = await this.#resolve(input);

    const id = newId('pay');
    const now = this.clock.now();
    const attempt = await this.db.transaction<{ raced: PaymentRow } | { inserted: PaymentRow }>(
      async (tx) => {
        // Attempts in one session queue on its row, so each check below sees every attempt committed before it.
        await tx.query('SELECT id FROM sessions WHERE id = $1 FOR UPDATE', [session.id]);
        const raced = await this.#byKey(session.id, input.idempotencyKey, tx);
        if (raced) return { raced };
        const state = await firstRow(
          tx,
          qb
            .selectFrom('sessions as s')
            .select((eb) => [
              eb('s.completed_at', 'is not', null).as('completed'),
              eb
                .selectFrom('payments as p')
                .select('p.id')
                .whereRef('p.session_id', '=', 's.id')
                .where('p.status', 'in', ['processing', 'requires_action'])
                .limit(1)
                .as('in_flight'),
            ])
            .where('s.id', '=', session.id),
        );
        if (state?.completed) {
          throw new ServiceError(
            'conflict',
            'This session has already been paid; log in again for another payment.',
          );
        }
        // A second attempt under another key while one is with the processor, or waiting for 3DS that may
        // still be completed, could become a second charge.
        if (state?.in_flight) {
          throw new ServiceError(
            'conflict',
            `Payment ${state.in_flight} of this session is waiting for authentication or being processed; ` +
              'complete it, or wait for its outcome, before paying again.',
          );
        }
        // Checked again with the user's attempts queued, and this one counted until the issuer has answered.
        if (isCardAttempt(input.method, source.card)) {
          await reserveCardAttempt(tx, declineOwner(input.client), session, id, now);
        }
        const row = await firstRow(
          tx,
          qb
            .insertInto('payments')
            .columns([
              'id',
              'integrator_id',
              'session_id',
              'user_id',
              'tenancy_id',
              'status',
              'pure_amount_pence',
              'fee_pence',
              'amount_pence',
              'method',
              'card_brand',
              'card_last4',
              'card_exp_month',
              'card_exp_year',
              'reference',
              'idempotency_key',
              'processor',
              'processor_token',
              'saved_card_id',
              'created_at',
              'updated_at',
            ])
            .expression(
              qb
                .selectFrom('sessions as s')
                .innerJoin('tenancies as t', 't.id', 's.tenancy_id')
                .select((eb) => [
                  eb.val(id).as('id'),
                  's.integrator_id',
                  's.id as session_id',
                  's.user_id',
                  's.tenancy_id',
                  sql.lit('processing').as('status'),
                  eb.val(amounts.purePence).as('pure_amount_pence'),
                  eb.val(amounts.feePence).as('fee_pence'),
                  eb.val(amounts.amountPence).as('amount_pence'),
                  eb.val(input.method).as('method'),
                  eb.val(source.card?.brand ?? null).as('card_brand'),
                  eb.val(source.card?.last4 ?? null).as('card_last4'),
                  eb.val(source.card?.exp_month ?? null).as('card_exp_month'),
                  eb.val(source.card?.exp_year ?? null).as('card_exp_year'),
                  eb.fn.coalesce(eb.val(input.reference ?? null), 't.payment_reference').as('reference'),
                  eb.val(input.idempotencyKey).as('idempotency_key'),
                  eb.val(this.processor.name).as('processor'),
                  eb.val(source.processorToken).as('processor_token'),
                  eb.val(source.savedCardId).as('saved_card_id'),
                  eb.val(now).as('created_at'),
                  eb.val(now).as('updated_at'),
                ])
                .where('s.id', '=', session.id),
            )
            .returningAll()
            .$narrowType<PaymentRowNarrowing>(),
        );
        await enqueueAll(tx, this.clock, [
          jobOf(
            paymentReconcileJob,
            { payment_id: id },
            { runAt: new Date(now.getTime() + RECONCILE_AFTER_MS) },
          ),
          // A 3DS challenge or APM page nobody answers must not stay open past its session: a late answer would charge.
          jobOf(paymentExpireJob, { payment_id: id }, { runAt: new Date(session.expires_at) }),
        ]);
        return { inserted: row! };
      },
    );
    // Another request with the same key got in while we were looking up the card.
    if ('raced' in attempt) return { payment: checkReplay(attempt.raced, input), replayed: true };
    return { payment: attempt.inserted, replayed: false };
  }

  async #resolve({ client, method, source }: CreatePaymentInput): Promise<ResolvedSource> {
    switch (source.type) {
      case 'none':
        return { processorToken: null, card: null, savedCardId: null };
      case 'saved_card': {
        const saved = await this.cards.payable(client, source.cardId);
        if (!saved) throw new FieldValidationError({ saved_card_id: ['Unknown saved card.'] });
        return {
          processorToken: saved.processor_token,
          card: {
            brand: saved.brand,
            last4: saved.last4,
            exp_month: saved.exp_month,
            exp_year: saved.exp_year,
          },
          savedCardId: saved.id,
        };
      }
      case 'confirmation_token': {
        const preview = await this.processor.previewConfirmationToken?.(source.token, method);
        if (!preview) {
          throw new FieldValidationError({
            confirmation_token: ['Unknown confirmation token; collect the payment details again.'],
          });
        }
        if (!preview.ok) throw new FieldValidationError({ method: [preview.message] });
        return { processorToken: source.token, card: preview.card, savedCardId: null };
      }
      case 'card_token':
      case 'wallet_token': {
        const card = await this.processor.describeToken(source.token, method);
        if (card) return { processorToken: source.token, card, savedCardId: null };
        throw new FieldValidationError(
          source.type === 'card_token'
            ? { card_token: [UNKNOWN_CARD_TOKEN] }
            : { wallet_token: ['Unknown wallet token; open the wallet sheet again.'] },
        );
      }
    }
  }

  async #byKey(
    sessionId: string,
    idempotencyKey: string,
    db: Queryable = this.db,
  ): Promise<PaymentRow | undefined> {
    return firstRow(
      db,
      paymentRows().where('session_id', '=', sessionId).where('idempotency_key', '=', idempotencyKey),
    );
  }
}

/** The integrator's features (operator setting) decide which methods and sources a payment may use. */
function checkFeatures(integrator: Integrator, input: CreatePaymentInput): void {
  const method: string = input.method;
  if (
    ((APM_METHODS as readonly string[]).includes(method) && !hasFeature(integrator, 'apms')) ||
    ((WALLET_METHODS as readonly string[]).includes(method) && !hasFeature(integrator, 'wallets'))
  ) {
    throw new FieldValidationError({ method: ['This payment method is not enabled for this integration.'] });
  }
  if (input.source.type === 'saved_card') assertSavedCardsEnabled(integrator);
}

/** 409 amount_changed with a fresh quote: the total shown to the customer is not the one that would be charged. */
function amountChanged(expectedPence: number, amounts: PaymentAmounts): ServiceError {
  return new ServiceError(
    'amount_changed',
    `The total is now ${formatPence(amounts.amountPence)}, not ${formatPence(expectedPence)} (the fee changed); ` +
      'nothing was charged. Show the new total to the customer and pay again with it as expected_amount.',
    {},
    {
      quote: {
        pure_amount: formatPence(amounts.purePence),
        fee: formatPence(amounts.feePence),
        amount: formatPence(amounts.amountPence),
      },
    },
  );
}

function checkReplay(earlier: PaymentRow, input: CreatePaymentInput): PaymentRow {
  if (Number(earlier.pure_amount_pence) !== input.purePence || earlier.method !== input.method) {
    throw new ServiceError(
      'idempotency_mismatch',
      `Idempotency key "${input.idempotencyKey}" was used for payment ${earlier.id} of ${formatPence(
        Number(earlier.pure_amount_pence),
      )} by ${earlier.method}; use a new key for a different payment.`,
    );
  }
  return earlier;
}
