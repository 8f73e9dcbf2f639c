import type { ExpressionBuilder } from 'kysely';
import { hasFeature, type Integrator } from '../integrators/service.ts';
import type { Clock } from '../platform/clock/clock.ts';
import type { Db, Queryable } from '../platform/db/db.ts';
import { firstRow, qb, rows } from '../platform/db/query-builder.ts';
import type { Tables } from '../platform/db/tables.ts';
import { FieldValidationError, ServiceError } from '../platform/errors.ts';
import { newId, sha256Hex } from '../platform/ids.ts';
import type { PaymentProcessor, ProcessorOutcome } from '../processors/processor.ts';
import type { ClientContext } from '../sessions/service.ts';
import { declineOwner, isIssuerDecline, reserveCardAttempt, settleCardAttempt } from './card-testing.ts';
import type { CardOnFileView, SavedCardNarrowing, SavedCardRow } from './view.ts';

export const UNKNOWN_CARD_TOKEN = 'Unknown card token; tokenise the card again.';

/** Saved cards can be turned off per integrator (feature `savedCards`): then every use of them answers 409. */
export function assertSavedCardsEnabled(integrator: Pick<Integrator, 'features'>): void {
  if (!hasFeature(integrator, 'savedCards')) {
    throw new ServiceError('feature_disabled', 'Saved cards are not enabled for this integration.');
  }
}
const NO_SUCH_CARD = 'No such saved card.';

/** Saved cards belong to a user of an integrator, whichever of the user's sessions asks. */
interface Owner {
  integratorId: string;
  userId: string;
}

function ownerOf(client: ClientContext): Owner {
  return { integratorId: client.session.integrator_id, userId: client.session.user_id };
}

/**
 * Every change to a user's cards queues on the user's row, so "is there a default?" and "which card is the
 * default now?" are answered once at a time (the partial unique index would refuse a second default anyway).
 */
async function lockUser(tx: Queryable, userId: string): Promise<void> {
  await tx.query('SELECT id FROM users WHERE id = $1 FOR NO KEY UPDATE', [userId]);
}

/** Saved cards, every column, typed as the service writes them. */
function savedCards() {
  return qb.selectFrom('saved_cards').selectAll().$narrowType<SavedCardNarrowing>();
}

/** `wanted`, and the user has no default card yet: whether a card saved or made active now becomes the default. */
function defaultIfNone(eb: ExpressionBuilder<Tables, 'saved_cards'>, wanted: boolean, userId: string) {
  return eb
    .and([
      eb.val(wanted),
      eb.not(
        eb.exists(
          eb
            .selectFrom('saved_cards')
            .select(eb.lit(1).as('one'))
            .where('user_id', '=', userId)
            .where((inner) => inner.ref('is_default')),
        ),
      ),
    ])
    .$castTo<boolean>();
}

/**
 * A user's active saved cards, the default first, then newest first: brand, last 4 digits and expiry only (the
 * processor's token and everything else stay here).
 */
export function cardsOnFile(db: Queryable, integratorId: string, userId: string): Promise<CardOnFileView[]> {
  return rows(
    db,
    qb
      .selectFrom('saved_cards')
      .select(['brand', 'last4', 'exp_month', 'exp_year', 'is_default'])
      .where('user_id', '=', userId)
      .where('integrator_id', '=', integratorId)
      .where('status', '=', 'active')
      .orderBy('is_default', 'desc')
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc'),
  );
}

export class SavedCardService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly processor: PaymentProcessor,
  ) {}

  /** Active cards, the default first, then newest first. */
  list(client: ClientContext): Promise<SavedCardRow[]> {
    const owner = ownerOf(client);
    return rows(
      this.db,
      savedCards()
        .where('user_id', '=', owner.userId)
        .where('integrator_id', '=', owner.integratorId)
        .where('status', '=', 'active')
        .orderBy('is_default', 'desc')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc'),
    );
  }

  /** A card of this user in any state but deleted (the page polls one waiting for 3DS); 404 otherwise. */
  async get(
    client: ClientContext,
    cardId: string,
    db: Queryable = this.db,
    lock = false,
  ): Promise<SavedCardRow> {
    const owner = ownerOf(client);
    const query = savedCards()
      .where('id', '=', cardId)
      .where('user_id', '=', owner.userId)
      .where('integrator_id', '=', owner.integratorId)
      .where('status', '<>', 'deleted');
    const card = await firstRow(db, lock ? query.forUpdate() : query);
    // Another user's card, of this integrator or another, answers exactly as an unknown one.
    if (!card) throw new ServiceError('not_found', NO_SUCH_CARD);
    return card;
  }

  /** A card this user can pay with now, or undefined. */
  async payable(client: ClientContext, cardId: string): Promise<SavedCardRow | undefined> {
    const owner = ownerOf(client);
    return firstRow(
      this.db,
      savedCards()
        .where('id', '=', cardId)
        .where('user_id', '=', owner.userId)
        .where('integrator_id', '=', owner.integratorId)
        .where('status', '=', 'active')
        .where('processor', '=', this.processor.name),
    );
  }

  /**
   * Saves a tokenised card: active at once, or `requires_action` until its 3DS check ends (a notification).
   * The same token posted again while its card is active or waiting is that card (`created: false`); a
   * refused card is a field error and stores nothing.
   */
  async save(client: ClientContext, cardToken: string): Promise<{ card: SavedCardRow; created: boolean }> {
    const owner = ownerOf(client);
    // Counted before the processor is asked, so saves sent at once cannot all get past the limits.
    const attempt = `card-save:${newId('dcl')}`;
    await this.db.transaction((tx) =>
      reserveCardAttempt(tx, declineOwner(client), client.session, attempt, this.clock.now()),
    );
    let declined = false;
    try {
      return await this.#save(owner, cardToken, (value) => {
        declined = value;
      });
    } finally {
      await settleCardAttempt(this.db, attempt, declined, this.clock.now());
    }
  }

  /** The save itself, once the attempt is counted; `markDeclined` tells how the processor answered. */
  async #save(
    owner: Owner,
    cardToken: string,
    markDeclined: (declined: boolean) => void,
  ): Promise<{ card: SavedCardRow; created: boolean }> {
    const details = await this.processor.describeToken(cardToken, 'card');
    if (!details) throw new FieldValidationError({ card_token: [UNKNOWN_CARD_TOKEN] });
    const source = sha256Hex(cardToken);
    const existing = await this.#bySource(this.db, owner, source);
    if (existing) return { card: existing, created: false };
    // Requests racing on one token share the processor's key, so the card is checked once; a new attempt
    // after a failed or deleted one gets a new key. (Only ended attempts count: one a racing request has just
    // stored must not change the key.)
    const { attempts } = (await firstRow(
      this.db,
      qb
        .selectFrom('saved_cards')
        .select((eb) => eb.fn.countAll<number>().as('attempts'))
        .where('user_id', '=', owner.userId)
        .where('source_token_sha256', '=', source)
        .where('status', 'in', ['failed', 'deleted']),
    )) ?? { attempts: 0 };
    const outcome = await this.processor.saveCard(
      cardToken,
      `save-card:${owner.userId}:${source}:${attempts}`,
      owner.userId,
    );
    if (outcome.status === 'refused') {
      markDeclined(isIssuerDecline('card', outcome.code));
      throw new FieldValidationError({ card_token: [outcome.message] });
    }
    return this.db.transaction(async (tx) => {
      await lockUser(tx, owner.userId);
      const raced = await this.#bySource(tx, owner, source);
      if (raced) return { card: raced, created: false };
      const active = outcome.status === 'saved';
      const now = this.clock.now();
      const card = await firstRow(
        tx,
        qb
          .insertInto('saved_cards')
          .values((eb) => ({
            id: newId('card'),
            integrator_id: owner.integratorId,
            user_id: owner.userId,
            processor: this.processor.name,
            processor_token: outcome.reusableToken,
            processor_setup_id: outcome.status === 'action_required' ? outcome.processorSetupId : null,
            source_token_sha256: source,
            brand: outcome.card.brand,
            last4: outcome.card.last4,
            exp_month: outcome.card.exp_month,
            exp_year: outcome.card.exp_year,
            status: active ? 'active' : 'requires_action',
            is_default: defaultIfNone(eb, active, owner.userId),
            next_action: outcome.status === 'action_required' ? { ...outcome.action } : null,
            created_at: now,
            updated_at: now,
          }))
          .returningAll()
          .$narrowType<SavedCardNarrowing>(),
      );
      return { card: card!, created: true };
    });
  }

  /**
   * Deletes a card (404 as `get`; 409 while an active or paused schedule charges it); the newest remaining active card
   * becomes the default if this one was.
   */
  async delete(client: ClientContext, cardId: string): Promise<void> {
    const card = await this.get(client, cardId);
    // A check still waiting for 3DS is withdrawn first, so a late Authorise saves nothing.
    if (card.status === 'requires_action' && card.processor_setup_id) {
      await this.processor.cancel(card.processor_setup_id);
    }
    await this.db.transaction(async (tx) => {
      await lockUser(tx, card.user_id);
      const current = await this.get(client, cardId, tx, true);
      // A live schedule would charge a deleted card on each due date. (Set-up reads the card FOR SHARE, so a set-up
      // and this delete cannot both pass.)
      const schedule = await firstRow(
        tx,
        qb
          .selectFrom('schedules')
          .select(['id', 'status'])
          .where('saved_card_id', '=', current.id)
          .where('status', 'in', ['active', 'paused'])
          .orderBy('created_at')
          .orderBy('id')
          .limit(1),
      );
      if (schedule) {
        throw new ServiceError(
          'conflict',
          `This card pays the ${schedule.status} recurring payment ${schedule.id}; cancel that schedule ` +
            '(or have it switched to another card) before deleting the card.',
        );
      }
      await tx.query(
        `UPDATE saved_cards SET status = 'deleted', is_default = false, next_action = NULL, updated_at = $2
          WHERE id = $1`,
        [current.id, this.clock.now()],
      );
      if (current.is_default) await this.#promoteNewest(tx, current.user_id);
    });
  }

  /** Makes an active card the user's one default (404 as `get`; 409 unless active). */
  async setDefault(client: ClientContext, cardId: string): Promise<SavedCardRow> {
    return this.db.transaction(async (tx) => {
      await lockUser(tx, client.session.user_id);
      const card = await this.get(client, cardId, tx, true);
      if (card.status !== 'active') {
        throw new ServiceError(
          'conflict',
          `Only an active card can be the default; this one is ${card.status === 'requires_action' ? 'waiting for 3DS' : card.status}.`,
        );
      }
      if (card.is_default) return card;
      const now = this.clock.now();
      await tx.query(
        'UPDATE saved_cards SET is_default = false, updated_at = $2 WHERE user_id = $1 AND is_default',
        [card.user_id, now],
      );
      const updated = await firstRow(
        tx,
        qb
          .updateTable('saved_cards')
          .set({ is_default: true, updated_at: now })
          .where('id', '=', card.id)
          .returningAll()
          .$narrowType<SavedCardNarrowing>(),
      );
      return updated!;
    });
  }

  /**
   * The processor's notification about a card check (matched by its setup id): authorised makes the card
   * active (and the default if the user has none), anything final else makes it failed. Only a card still
   * waiting moves; a late or repeated notification changes nothing. Undefined when no card has that check.
   */
  async applySetupOutcome(setupId: string, outcome: ProcessorOutcome): Promise<SavedCardRow | undefined> {
    const select = savedCards()
      .where('processor', '=', this.processor.name)
      .where('processor_setup_id', '=', setupId);
    const found = await firstRow(this.db, select);
    if (!found) return undefined;
    if (outcome.status === 'action_required' || outcome.status === 'pending') return found;
    return this.db.transaction(async (tx) => {
      await lockUser(tx, found.user_id);
      const card = await firstRow(tx, select.forUpdate());
      if (card?.status !== 'requires_action') return card;
      const active = outcome.status === 'authorised';
      return firstRow(
        tx,
        qb
          .updateTable('saved_cards')
          .set((eb) => ({
            status: active ? 'active' : 'failed',
            next_action: null,
            updated_at: this.clock.now(),
            is_default: defaultIfNone(eb, active, card.user_id),
          }))
          .where('id', '=', card.id)
          .returningAll()
          .$narrowType<SavedCardNarrowing>(),
      );
    });
  }

  async #bySource(db: Queryable, owner: Owner, source: string): Promise<SavedCardRow | undefined> {
    return firstRow(
      db,
      savedCards()
        .where('user_id', '=', owner.userId)
        .where('integrator_id', '=', owner.integratorId)
        .where('source_token_sha256', '=', source)
        .where('status', 'in', ['requires_action', 'active']),
    );
  }

  async #promoteNewest(tx: Queryable, userId: string): Promise<void> {
    await tx.query(
      `UPDATE saved_cards SET is_default = true, updated_at = $2
        WHERE id = (SELECT id FROM saved_cards WHERE user_id = $1 AND status = 'active'
                     ORDER BY created_at DESC, id DESC LIMIT 1)`,
      [userId, this.clock.now()],
    );
  }
}
