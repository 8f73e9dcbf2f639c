import type { Selectable } from 'kysely';
import { type Static, Type } from 'typebox';
import type { SavedCardsTable } from '../platform/db/tables.ts';
import { Timestamp } from '../platform/http/schemas.ts';
import type { NextAction } from '../processors/processor.ts';
import { SAVED_CARD_STATUSES } from '../shared/vocabulary.ts';

/** The saved_cards column the database types loosely (JSON), as the service writes it. */
export interface SavedCardNarrowing {
  next_action: NextAction | null;
}

/** A saved_cards row: the generated table type, with its JSON column narrowed. */
export type SavedCardRow = Omit<Selectable<SavedCardsTable>, keyof SavedCardNarrowing> & SavedCardNarrowing;

/** A saved card in the Client API: display details only; the processor's token never leaves the service. */
export const SavedCardView = Type.Object(
  {
    card_id: Type.String(),
    brand: Type.String(),
    last4: Type.String(),
    exp_month: Type.Integer(),
    exp_year: Type.Integer(),
    is_default: Type.Boolean(),
    status: Type.Enum(SAVED_CARD_STATUSES),
    next_action: Type.Union([
      Type.Object({ type: Type.Literal('three_ds'), url: Type.String() }),
      Type.Object({ type: Type.Literal('stripe_next_action'), client_secret: Type.String() }),
      Type.Null(),
    ]),
    created_at: Timestamp,
  },
  { title: 'SavedCard' },
);
export type SavedCardView = Static<typeof SavedCardView>;

/** A card check asks for 3DS: the sandbox's challenge page, or Stripe.js with the SetupIntent's secret. */
function cardAction(action: NextAction): SavedCardView['next_action'] {
  return action.type === 'stripe_next_action'
    ? { type: 'stripe_next_action', client_secret: action.client_secret }
    : { type: 'three_ds', url: action.url };
}

export function savedCardView(row: SavedCardRow): SavedCardView {
  return {
    card_id: row.id,
    brand: row.brand,
    last4: row.last4,
    exp_month: Number(row.exp_month),
    exp_year: Number(row.exp_year),
    is_default: row.is_default,
    // Deleted cards are never shown (404), so the status is one of the three.
    status: row.status as SavedCardView['status'],
    next_action: row.status === 'requires_action' && row.next_action ? cardAction(row.next_action) : null,
    created_at: new Date(row.created_at).toISOString(),
  };
}

/** A saved card as the dashboard shows it to a platform's staff: what tells one card from another, nothing more. */
export const CardOnFileView = Type.Object(
  {
    brand: Type.String(),
    last4: Type.String(),
    exp_month: Type.Integer(),
    exp_year: Type.Integer(),
    is_default: Type.Boolean(),
  },
  { title: 'CardOnFile' },
);
export type CardOnFileView = Static<typeof CardOnFileView>;
