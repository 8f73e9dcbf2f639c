import type { RefObject } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
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
  // Deleting asks first, in the card's row: "Delete Visa ending 4242?" with Delete card / Keep it.
  const [confirming, setConfirming] = useState<string>();
  const question = useRef<HTMLParagraphElement>(null);
  /** The card whose question was just answered "Keep it": its Delete button takes focus back. */
  const kept = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (confirming) question.current?.focus();
    else if (kept.current) document.getElementById(`delete-${kept.current}`)?.focus();
    kept.current = undefined;
  }, [confirming]);
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
            {confirming === card.card_id ? (
              <span class="card-actions confirm">
                <p ref={question} tabIndex={-1}>
                  Delete {cardName(card)}?
                </p>
                <button
                  type="button"
                  class="danger"
                  onClick={() => {
                    setConfirming(undefined);
                    props.onDelete(card);
                  }}
                >
                  Delete card
                </button>
                <button
                  type="button"
                  onClick={() => {
                    kept.current = card.card_id;
                    setConfirming(undefined);
                  }}
                >
                  Keep it
                </button>
              </span>
            ) : (
              <span class="card-actions">
                {card.is_default ? null : (
                  <button type="button" class="link" onClick={() => props.onMakeDefault(card)}>
                    Make default<span class="visually-hidden"> ({cardName(card)})</span>
                  </button>
                )}
                <button
                  type="button"
                  id={`delete-${card.card_id}`}
                  class="link danger"
                  onClick={() => setConfirming(card.card_id)}
                >
                  Delete<span class="visually-hidden"> {cardName(card)}</span>
                </button>
              </span>
            )}
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
