/**
 * The tenant page's state changes as a pure reducer: each action's effect and the totals shown, table by table.
 * (The page's behaviour in a browser is tested by the page-* suites; this pins the rules they rest on.)
 */

import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SavedCard, Session } from '../../web/page/api.ts';
import type { EmbedOptions } from '../../web/page/embed.ts';
import { initialState, NEW_CARD, type PageState, pageReducer, totalsOf } from '../../web/page/state.ts';

const session = {
  fees: { card: { percent: '1.45', fixed: '0.00' }, apple_pay: { percent: '1.00', fixed: '0.20' } },
} as unknown as Session;

function card(card_id: string, is_default: boolean): SavedCard {
  return { card_id, is_default } as SavedCard;
}

const options: EmbedOptions = {
  pure_amount: '100.00',
  isAmountEditable: true,
  reference: undefined,
  features: {},
  appearance: undefined,
  debug: false,
};

describe('page state: loading chooses the card to pay with', () => {
  const cases: [string, SavedCard[], string][] = [
    ['no saved card: a new card', [], NEW_CARD],
    ['the default card', [card('card_a', false), card('card_b', true)], 'card_b'],
    ['no default: the first', [card('card_a', false), card('card_b', false)], 'card_a'],
  ];
  for (const [name, cards, choice] of cases) {
    it(name, () => {
      const state = pageReducer(initialState, { type: 'loaded', session, amount: '1200.00', cards });
      assert.equal(state.choice, choice);
      assert.deepEqual(state.phase, { name: 'ready' });
      assert.equal(state.amount, '1200.00');
    });
  }
});

describe('page state: alerts and where focus goes', () => {
  const ready = pageReducer(initialState, { type: 'loaded', session, amount: '1200.00', cards: [] });
  const cases: [string, PageState, Partial<PageState>][] = [
    [
      'an alert the tenant caused takes focus',
      pageReducer(ready, { type: 'alert', problem: 'No.', focus: true }),
      { problem: 'No.', notice: undefined, alertFocus: 1 },
    ],
    [
      'an alert shown on load does not',
      pageReducer(ready, { type: 'loadFailed', message: 'Down.' }),
      { problem: 'Down.', alertFocus: 0 },
    ],
    [
      'a failed payment: back to the form, the reason focused',
      pageReducer({ ...ready, busy: true }, { type: 'failed', message: 'Declined.' }),
      { problem: 'Declined.', alertFocus: 1, phase: { name: 'ready' } },
    ],
    [
      'choosing another method clears the problem',
      pageReducer({ ...ready, problem: 'Declined.' }, { type: 'method', method: 'alipay' }),
      { problem: undefined, method: 'alipay' },
    ],
    [
      'clearing both alerts keeps the focus count',
      pageReducer({ ...ready, problem: 'a', notice: 'b', alertFocus: 3 }, { type: 'alert', focus: false }),
      { problem: undefined, notice: undefined, alertFocus: 3 },
    ],
  ];
  for (const [name, state, expected] of cases) {
    it(name, () => {
      for (const [key, value] of Object.entries(expected)) {
        assert.deepEqual(state[key as keyof PageState], value, key);
      }
    });
  }
});

describe('page state: the SDK’s options', () => {
  it('an update before init changes nothing; after it, a new amount is the form’s amount', () => {
    assert.equal(
      pageReducer(initialState, { type: 'optionsChanged', changes: { pure_amount: '5.00' } }),
      initialState,
    );
    const initialised = pageReducer(initialState, { type: 'options', options });
    const updated = pageReducer(initialised, { type: 'optionsChanged', changes: { pure_amount: '5.00' } });
    assert.equal(updated.amount, '5.00');
    assert.equal(updated.options?.pure_amount, '5.00');
    const referenced = pageReducer(updated, { type: 'optionsChanged', changes: { reference: 'INV-1' } });
    assert.equal(referenced.amount, '5.00');
    assert.equal(referenced.options?.reference, 'INV-1');
  });
});

describe('page state: the totals shown', () => {
  const ready = pageReducer(initialState, { type: 'loaded', session, amount: '1200.00', cards: [] });
  const quote = { pure_amount: '1200.00', fee: '24.20', amount: '1224.20' };
  const quoted = pageReducer(ready, { type: 'quoted', method: 'card', quote, session, notice: 'Changed.' });
  const cases: [string, PageState, ReturnType<typeof totalsOf>][] = [
    ['card: 1.45 %', ready, { purePence: 120_000, fee: 1_740, total: '1217.40' }],
    [
      'Apple Pay: 1 % + £0.20',
      { ...ready, method: 'apple_pay' },
      { purePence: 120_000, fee: 1_220, total: '1212.20' },
    ],
    [
      'no fee for a method without one',
      { ...ready, method: 'alipay' },
      { purePence: 120_000, fee: 0, total: '1200.00' },
    ],
    [
      'typed with £ and a comma',
      { ...ready, amount: '£1,200.50' },
      { purePence: 120_050, fee: 1_741, total: '1217.91' },
    ],
    ['not an amount', { ...ready, amount: '12,00' }, { purePence: undefined, fee: 0, total: undefined }],
    [
      'the service’s quote after a price change',
      quoted,
      { purePence: 120_000, fee: 2_420, total: '1224.20' },
    ],
    [
      'the quote no longer applies to another amount',
      { ...quoted, amount: '1000.00' },
      { purePence: 100_000, fee: 1_450, total: '1014.50' },
    ],
    [
      'nor to another method',
      { ...quoted, method: 'alipay' },
      { purePence: 120_000, fee: 0, total: '1200.00' },
    ],
  ];
  for (const [name, state, expected] of cases) {
    it(name, () => assert.deepEqual(totalsOf(state), expected));
  }
  it('a quote moves focus to its notice and back to the form', () => {
    assert.deepEqual(
      { phase: quoted.phase, notice: quoted.notice, alertFocus: quoted.alertFocus },
      { phase: { name: 'ready' }, notice: 'Changed.', alertFocus: 1 },
    );
  });
});
