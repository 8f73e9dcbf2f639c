import { declineBlock, isCardAttempt, tooManyAttempts } from '../cards/card-testing.ts';
import { assertSavedCardsEnabled, type SavedCardService, UNKNOWN_CARD_TOKEN } from '../cards/service.ts';
import { hasFeature, type Integrator } from '../integrators/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import { StatementBatcher } from '../platform/db/batcher.ts';
import type { Db } from '../platform/db/db.ts';
import { isDatabaseUnavailable } from '../platform/db/unavailable.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { newId } from '../platform/ids.ts';
import type { CardDetails, PaymentProcessor } from '../processors/processor.ts';
import { type ClientContext, checkPureAmount, checkSessionAmount } from '../sessions/service.ts';
import { formatPence } from '../shared/money.ts';
import { APM_METHODS, type PaymentMethod, WALLET_METHODS } from '../shared/vocabulary.ts';
import { type PaymentAmounts, paymentAmounts } from './fees.ts';
import { countedBatches } from './metrics.ts';
import {
  insertNewPayments,
  type NewPayment,
  type NewPaymentResult,
  type PaymentCheckInput,
  type PaymentChecks,
  readPaymentChecks,
} from './new-payments.ts';
import type { OutcomeServices } from './outcomes.ts';
import type { PaymentRow } from './view.ts';

/**
 * The most transactions of new payments running at once on this node; payments arriving meanwhile wait and then
 * share one. One at a time, under load each takes a dozen payments or more: fewer statements and less CPU per
 * payment, on the database and here, than two smaller ones, and no slower (card-payment's p99 94 ms against 120 ms).
 */
const NEW_PAYMENT_TRANSACTIONS = 1;

const WRITES = countedBatches('write');

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
 * features checked, the source resolved, and the row written: `processing` with its reconciliation and expiry
 * jobs, or, with a processor that charges inside the transaction (the sandbox), as the processor answered.
 */
export class NewPaymentWriter {
  private readonly clock: Clock;
  private readonly processor: PaymentProcessor;

  constructor(
    private readonly db: Db,
    private readonly services: OutcomeServices,
    private readonly cards: SavedCardService,
  ) {
    this.clock = services.clock;
    this.processor = services.processor;
  }

  /**
   * The new payment, `processing` and not yet sent to the processor (or already decided, see above); or,
   * `replayed`, the one an earlier request with the same idempotency key made.
   */
  async write(input: CreatePaymentInput): Promise<CreatePaymentResult> {
    const { session, integrator } = input.client;
    checkPureAmount(input.purePence);
    checkSessionAmount(session, input.purePence);
    const amounts = paymentAmounts(input.purePence, integrator.fees[input.method]);
    const { source } = input;
    if (
      this.processor.describeTokensInTransaction &&
      (source.type === 'card_token' || source.type === 'wallet_token')
    ) {
      return this.#writeDescribedInTransaction(input, amounts, source);
    }
    const { earlier, declines } = await this.#checksOf(input);
    if (earlier) return { payment: checkReplay(earlier, input), replayed: true };
    checkExpectedAmount(input, amounts);
    // 429 too_many_attempts before anything is sent to the processor, once a decline limit is reached.
    const block = declineBlock(declines, session, this.clock.now());
    if (block) throw tooManyAttempts(block);

    checkFeatures(integrator, input);
    const resolved = await this.#resolve(input);
    return this.#insert(input, amounts, resolved, null);
  }

  /**
   * A payment by token with a processor that charges inside the transaction: nothing is read before it. The
   * transaction finds a payment the key made before, the declines, the token's card and the session's state, and
   * refuses in the order the other path checks them; a request refused before it (the total, the method) is first
   * looked up as a repeat, which is answered with its payment as on the other path.
   */
  async #writeDescribedInTransaction(
    input: CreatePaymentInput,
    amounts: PaymentAmounts,
    source: { type: 'card_token' | 'wallet_token'; token: string },
  ): Promise<CreatePaymentResult> {
    try {
      checkExpectedAmount(input, amounts);
      checkFeatures(input.client.integrator, input);
    } catch (error) {
      const { earlier } = await this.#checksOf(input);
      if (earlier) return { payment: checkReplay(earlier, input), replayed: true };
      throw error;
    }
    return this.#insert(
      input,
      amounts,
      { processorToken: source.token, card: null, savedCardId: null },
      { unknown: () => unknownToken(source.type) },
    );
  }

  async #insert(
    input: CreatePaymentInput,
    amounts: PaymentAmounts,
    source: ResolvedSource,
    described: NewPayment['described'],
  ): Promise<CreatePaymentResult> {
    const { session } = input.client;
    const written = await this.#inserts.run({
      id: newId('pay'),
      session,
      idempotencyKey: input.idempotencyKey,
      amounts,
      method: input.method,
      reference: input.reference ?? input.client.tenancy.payment_reference,
      processor: this.processor.name,
      processorToken: source.processorToken,
      card: source.card,
      savedCardId: source.savedCardId,
      // A card attempt by its method and a card being given, not the card's details (a token described in the
      // transaction has those only there).
      cardAttempt: isCardAttempt(input.method, described ? { brand: null } : source.card),
      described,
      who: {
        external_id: input.client.user.external_id,
        email: input.client.user.email,
        payment_reference: input.client.tenancy.payment_reference,
      },
    });
    if ('refused' in written) throw written.refused;
    // Another request with the same key got in while we were looking up the card.
    if ('raced' in written) return { payment: checkReplay(written.raced, input), replayed: true };
    return { payment: written.inserted, replayed: false };
  }

  #checksOf({ client: { session }, idempotencyKey }: CreatePaymentInput): Promise<PaymentChecks> {
    return this.#checks.run({ sessionId: session.id, idempotencyKey, userId: session.user_id });
  }

  /** The checks of one turn's new payments are read together (see readPaymentChecks). */
  readonly #checks = new StatementBatcher<PaymentCheckInput, PaymentChecks>(
    (inputs) => readPaymentChecks(this.db, this.clock.now(), inputs),
    { splits: (error) => !isDatabaseUnavailable(error), maxInFlight: 2 },
  );

  /** New payments of one turn of the event loop share a transaction (see insertNewPayments). */
  readonly #inserts = new StatementBatcher<NewPayment, NewPaymentResult>(
    (batch) => {
      WRITES.observe(batch.length);
      return this.db.transaction((tx) => insertNewPayments(tx, this.services, batch));
    },
    {
      splits: (error) => !isDatabaseUnavailable(error),
      onSplit: WRITES.onSplit,
      maxInFlight: NEW_PAYMENT_TRANSACTIONS,
    },
  );

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
        throw unknownToken(source.type);
      }
    }
  }
}

/** 400 for a token the processor does not know (for the method). */
function unknownToken(type: 'card_token' | 'wallet_token'): FieldValidationError {
  return new FieldValidationError(
    type === 'card_token'
      ? { card_token: [UNKNOWN_CARD_TOKEN] }
      : { wallet_token: ['Unknown wallet token; open the wallet sheet again.'] },
  );
}

/** 409 amount_changed when the customer was shown another total than the one that would be charged. */
function checkExpectedAmount(input: CreatePaymentInput, amounts: PaymentAmounts): void {
  if (input.expectedAmountPence !== undefined && input.expectedAmountPence !== amounts.amountPence) {
    throw amountChanged(input.expectedAmountPence, amounts);
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
