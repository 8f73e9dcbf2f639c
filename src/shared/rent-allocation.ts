/**
 * How money pays rent: oldest due date first. One rule, used by the ledger (what each payment paid), by recurring
 * rent (where it starts) and by the payment page (what an amount would pay).
 */

export interface DueToPay {
  /** "YYYY-MM-DD". */
  date: string;
  /** What is still to pay for it, in pence (> 0). */
  amount_pence: number;
}

export interface AllocatedPart {
  date: string;
  /** What the amount pays towards this due date. */
  pence: number;
  /** True when it pays what was left of the due date in full. */
  settles: boolean;
}

/**
 * Spends `pence` on `dues` (oldest first, as given): each due date takes what is left to pay for it, until the
 * amount runs out. `left_pence` is what remains after every due date (credit).
 */
export function allocateOldestFirst(
  dues: readonly DueToPay[],
  pence: number,
): { parts: AllocatedPart[]; left_pence: number } {
  const parts: AllocatedPart[] = [];
  let left = pence;
  for (const due of dues) {
    if (left <= 0) break;
    const paid = Math.min(left, due.amount_pence);
    parts.push({ date: due.date, pence: paid, settles: paid === due.amount_pence });
    left -= paid;
  }
  return { parts, left_pence: Math.max(0, left) };
}
