import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { HOLD_WORDS, holdWords } from '../../web/dashboard/payouts/payout-words.ts';
import {
  balanceChart,
  balanceSummary,
  balanceWords,
  frequencyName,
  isKyc,
  nextDueText,
  owedText,
  poundsText,
  scheduleActions,
} from '../../web/dashboard/tenants/tenant-words.ts';

describe('the tenants pages’ words', () => {
  for (const [frequency, words] of [
    ['every_1_month', 'every month'],
    ['every_3_month', 'every 3 months'],
    ['every_half_year', 'every 6 months'],
    ['every_year', 'every year'],
  ] as const) {
    it(`${frequency} reads “${words}”`, () => assert.equal(frequencyName(frequency), words));
  }

  for (const [status, actions] of [
    ['active', ['pause', 'cancel']],
    ['paused', ['resume', 'cancel']],
    ['canceled', []],
    ['completed', []],
  ] as const) {
    it(`a ${status} schedule may be: ${actions.join(', ') || 'nothing'}`, () =>
      assert.deepEqual(scheduleActions(status), actions));
  }

  it('KYC files are the identity document and the photo, not the agreement', () => {
    assert.deepEqual((['agreement', 'pii_front', 'pii_back', 'photo'] as const).map(isKyc), [
      false,
      true,
      true,
      true,
    ]);
  });

  for (const [owed, text] of [
    [{ arrears: '0.00', days_overdue: 0 }, '£0.00'],
    [{ arrears: '1200.00', days_overdue: 1 }, '£1,200.00, 1 day overdue'],
    [{ arrears: '2400.00', days_overdue: 28 }, '£2,400.00, 28 days overdue'],
  ] as const) {
    it(`owed ${JSON.stringify(owed)} reads “${text}”`, () => assert.equal(owedText(owed), text));
  }

  it('the next due date, or that nothing more falls due', () => {
    assert.equal(nextDueText({ date: '2026-04-01', amount: '1200.00' }), '£1,200.00 on 1 April 2026');
    assert.equal(nextDueText(null), 'Nothing more falls due');
  });

  for (const [balance, words] of [
    ['1200.00', 'the tenant owes £1,200.00'],
    ['0.00', 'nothing is owed'],
    ['-50.00', 'the tenant has paid £50.00 ahead'],
  ] as const) {
    it(`a balance of ${balance}: ${words}`, () => assert.equal(balanceWords(balance), words));
  }

  it('the balance chart: a point per day, its value in pounds, long labels for the table and short ones for the axis', () => {
    const series = [
      { date: '2026-01-01', balance: '1200.00' },
      { date: '2026-02-01', balance: '-50.25' },
    ];
    assert.deepEqual(balanceChart(series), {
      labels: ['1 January 2026', '1 February 2026'],
      axisLabels: ['1 Jan', '1 Feb'],
      values: [1200, -50.25],
    });
    assert.equal(poundsText(-50.25), '-£50.25');
    assert.equal(poundsText(2500), '£2,500.00');
  });

  it('the chart’s summary: first, last and highest balance, or that there is nothing yet', () => {
    assert.equal(
      balanceSummary({
        as_of: '2026-03-01',
        balance_series: [
          { date: '2026-01-01', balance: '1200.00' },
          { date: '2026-02-01', balance: '2400.00' },
          { date: '2026-03-01', balance: '0.00' },
        ],
      }),
      'The balance was £1,200.00 on 1 January 2026 and is £0.00 on 1 March 2026: nothing is owed. Highest: £2,400.00 on 1 February 2026.',
    );
    assert.equal(
      balanceSummary({ as_of: '2026-03-01', balance_series: [] }),
      'Nothing has fallen due or been paid yet.',
    );
  });

  it('every kind of held payout says what it means and what unblocks it; an unknown kind still reads', () => {
    for (const [kind, words] of Object.entries(HOLD_WORDS)) {
      assert.ok(words.name && words.means && words.unblocks, kind);
    }
    assert.equal(holdWords('payee_awaiting_approval').name, 'Waiting for the operator’s approval');
    assert.deepEqual(holdWords('new_kind'), { name: 'new kind', means: '', unblocks: 'See the reason.' });
  });
});
