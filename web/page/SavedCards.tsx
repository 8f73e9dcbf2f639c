import type { RefObject } from 'preact';
import type { SavedCard } from './api.ts';
import { BRAND_NAMES } from './card.ts';

function cardName(card: SavedCard): string {
  return `${BRAND_NAMES[card.brand] ?? card.brand} ending ${card.last4}`;
}

export function SavedCards(props: {
  /** Takes focus after a delete (the deleted card's button is gone). */
  legendRef?: RefObject<HTMLLegendElement | null>;
  cards: SavedCard[];
  choice: string;
  newCard: string;
  onChoose(id: string): void;
  onDelete(card: SavedCard): void;
  onMakeDefault(card: SavedCard): void;
}) {
  return (
    <fieldset class="saved-cards">
      <legend ref={props.legendRef} tabIndex={-1}>
        Saved cards
      </legend>
      <ul>
        {props.cards.map((card) => (
          <li key={card.card_id}>
            <label class="check">
              <input
                type="radio"
                name="saved-card"
                value={card.card_id}
                checked={props.choice === card.card_id}
                onChange={() => props.onChoose(card.card_id)}
              />
              {cardName(card)}, expires {String(card.exp_month).padStart(2, '0')}/
              {String(card.exp_year).slice(-2)}
              {card.is_default ? <span class="badge">Default</span> : null}
            </label>
            <span class="card-actions">
              {card.is_default ? null : (
                <button type="button" class="link" onClick={() => props.onMakeDefault(card)}>
                  Make default<span class="visually-hidden"> ({cardName(card)})</span>
                </button>
              )}
              <button type="button" class="link danger" onClick={() => props.onDelete(card)}>
                Delete<span class="visually-hidden"> {cardName(card)}</span>
              </button>
            </span>
          </li>
        ))}
        <li>
          <label class="check">
            <input
              type="radio"
              name="saved-card"
              value={props.newCard}
              checked={props.choice === props.newCard}
              onChange={() => props.onChoose(props.newCard)}
            />
            Use a new card
          </label>
        </li>
      </ul>
    </fieldset>
  );
}
