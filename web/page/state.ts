/**
 * The page's state and every change to it, as one pure reducer: what the tenant sees follows from this state
 * alone, and each thing that happens (a load, a click, a payment's outcome) is one action.
 */

import type { Payment, PaymentMethod, Quote, SavedCard, Session } from './api.ts';
import type { EmbedOptions } from './embed.ts';
import { feePence, formatPence, parseTypedPence } from './money.ts';
import type { ActionView } from './steps.ts';

/** The saved-card choice that means "a new card". */
export const NEW_CARD = 'new';

export type Phase =
  | { name: 'loading' }
  /** `inPage`: it lapsed while the page was open and nothing was paid (else the link was stale when opened). */
  | { name: 'expired'; inPage?: boolean }
  | { name: 'unavailable'; title: string; message: string }
  | { name: 'ready' }
  | { name: 'step'; view: ActionView }
  /** `reopened`: the session was paid before this page opened (a receipt, not a fresh success). */
  | { name: 'succeeded'; payment: Payment; reopened?: boolean }
  /**
   * Still `processing` past the page's deadline: checked more slowly until it ends, with no form to pay again.
   * `unchecked`: the session lapsed meanwhile, so the page can no longer say how it ends.
   */
  | { name: 'pending'; payment: Payment; unchecked?: boolean };

export interface PageState {
  phase: Phase;
  session: Session | undefined;
  /** The SDK's options (inside the SDK's iframe only). */
  options: EmbedOptions | undefined;
  cards: SavedCard[];
  /** The rent as typed (or as the session or the SDK set it). */
  amount: string;
  amountError: string | undefined;
  method: PaymentMethod;
  /** A saved card's id, or NEW_CARD. */
  choice: string;
  problem: string | undefined;
  notice: string | undefined;
  /** Counts alerts the tenant caused (Pay, a card action): each moves focus to the alert; loading never does. */
  alertFocus: number;
  busy: boolean;
  view: 'pay' | 'recurring';
  /** After 409 amount_changed: the service's price, shown (and sent) while the amount and method stay the same. */
  quoted: { method: PaymentMethod; quote: Quote } | undefined;
}

export type PageAction =
  | { type: 'options'; options: EmbedOptions }
  | { type: 'optionsChanged'; changes: Partial<EmbedOptions> }
  | { type: 'loaded'; session: Session; amount: string; cards: SavedCard[] }
  | { type: 'reopened'; session: Session; payment: Payment }
  | { type: 'loadFailed'; message: string }
  | { type: 'phase'; phase: Phase }
  | { type: 'amount'; value: string }
  | { type: 'amountChecked'; error: string | undefined }
  | { type: 'method'; method: PaymentMethod }
  | { type: 'choose'; choice: string }
  | { type: 'cards'; cards: SavedCard[]; choice?: string }
  | { type: 'alert'; problem?: string; notice?: string; focus: boolean }
  | { type: 'busy'; busy: boolean }
  | { type: 'view'; view: PageState['view'] }
  | { type: 'quoted'; method: PaymentMethod; quote: Quote; session: Session; notice: string }
  | { type: 'failed'; message: string };

export const initialState: PageState = {
  phase: { name: 'loading' },
  session: undefined,
  options: undefined,
  cards: [],
  amount: '',
  amountError: undefined,
  method: 'card',
  choice: NEW_CARD,
  problem: undefined,
  notice: undefined,
  alertFocus: 0,
  busy: false,
  view: 'pay',
  quoted: undefined,
};

export function pageReducer(state: PageState, action: PageAction): PageState {
  switch (action.type) {
    case 'options':
      return { ...state, options: action.options };
    case 'optionsChanged': {
      if (!state.options) return state;
      const amount = action.changes.pure_amount;
      return {
        ...state,
        options: { ...state.options, ...action.changes },
        ...(typeof amount === 'string' ? { amount } : {}),
      };
    }
    case 'loaded': {
      const preferred = action.cards.find((card) => card.is_default) ?? action.cards[0];
      return {
        ...state,
        phase: { name: 'ready' },
        session: action.session,
        amount: action.amount,
        cards: action.cards,
        choice: preferred?.card_id ?? NEW_CARD,
      };
    }
    case 'reopened':
      return {
        ...state,
        session: action.session,
        phase: { name: 'succeeded', payment: action.payment, reopened: true },
      };
    case 'loadFailed':
      return { ...state, phase: { name: 'ready' }, problem: action.message };
    case 'phase':
      return { ...state, phase: action.phase };
    case 'amount':
      return { ...state, amount: action.value };
    case 'amountChecked':
      return { ...state, amountError: action.error };
    case 'method':
      return { ...state, method: action.method, problem: undefined };
    case 'choose':
      return { ...state, choice: action.choice };
    case 'cards':
      return { ...state, cards: action.cards, choice: action.choice ?? state.choice };
    case 'alert':
      return {
        ...state,
        problem: action.problem,
        notice: action.notice,
        alertFocus: action.focus ? state.alertFocus + 1 : state.alertFocus,
      };
    case 'busy':
      return { ...state, busy: action.busy };
    case 'view':
      return { ...state, view: action.view };
    case 'quoted':
      return {
        ...state,
        phase: { name: 'ready' },
        session: action.session,
        quoted: { method: action.method, quote: action.quote },
        notice: action.notice,
        alertFocus: state.alertFocus + 1,
      };
    case 'failed':
      return {
        ...state,
        phase: { name: 'ready' },
        problem: action.message,
        alertFocus: state.alertFocus + 1,
      };
  }
}

export interface Totals {
  /** The rent in pence; undefined while the amount typed is not one. */
  purePence: number | undefined;
  fee: number;
  /** The total as a decimal string ("1217.40"); undefined with no valid amount. */
  total: string | undefined;
}

/** The rent, fee and total shown: the service's quote after a price change, else the session's fee rule. */
export function totalsOf(state: PageState): Totals {
  const purePence = parseTypedPence(state.amount);
  const { quoted, session, method } = state;
  const quotedFee =
    quoted?.method === method && purePence === parseTypedPence(quoted.quote.pure_amount)
      ? parseTypedPence(quoted.quote.fee)
      : undefined;
  const fee =
    purePence === undefined || !session ? 0 : (quotedFee ?? feePence(purePence, session.fees[method]));
  return { purePence, fee, total: purePence === undefined ? undefined : formatPence(purePence + fee) };
}
