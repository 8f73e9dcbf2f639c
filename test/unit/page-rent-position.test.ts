/**
 * What the page says about the tenant's rent, from the session's ledger: the headline, the suggested amount, the
 * choices of amount and what an amount pays. Pure functions, as tables (the browser suites check they are shown).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  amountChoices,
  headline,
  paysWhat,
  type RentLedger,
  suggestedAmount,
  type UnpaidDue,
} from '../../web/page/rent-position.ts';

const due = (date: string, amount = '1200.00', rent = amount): UnpaidDue => ({
  date,
  amount,
  rent,
  installment_number: null,
});
const AS_OF = '2026-11-27';
const MONTHS_AHEAD = ['2026-12-01', '2027-01-01', '2027-02-01'].map((date) => due(date));

const ARREARS: RentLedger = {
  as_of: AS_OF,
  arrears: '4800.00',
  days_overdue: 118,
  unpaid: [
    ...['2026-08-01', '2026-09-01', '2026-10-01', '2026-11-01'].map((date) => due(date)),
    ...MONTHS_AHEAD,
  ],
  paid_ahead: null,
};
const UP_TO_DATE: RentLedger = {
  as_of: AS_OF,
  arrears: '0.00',
  days_overdue: 0,
  unpaid: [due('2026-12-01', '950.00'), due('2027-01-01', '950.00')],
  paid_ahead: null,
};
const PAID_AHEAD: RentLedger = {
  as_of: AS_OF,
  arrears: '0.00',
  days_overdue: 0,
  unpaid: [due('2027-01-01', '950.00')],
  paid_ahead: { date: '2026-12-01', rent: '950.00', paid_on: '2026-11-27' },
};
const DUE_TODAY: RentLedger = {
  as_of: '2026-12-01',
  arrears: '950.00',
  days_overdue: 0,
  unpaid: [due('2026-12-01', '950.00'), due('2027-01-01', '950.00')],
  paid_ahead: null,
};
const CREDIT: RentLedger = { ...UP_TO_DATE, unpaid: [due('2026-12-01', '750.00', '950.00')] };
const PLAN: RentLedger = {
  as_of: AS_OF,
  arrears: '1000.00',
  days_overdue: 12,
  unpaid: [
    { ...due('2026-11-15', '1000.00'), installment_number: 2 },
    { ...due('2027-02-15', '1000.00'), installment_number: 3 },
  ],
  paid_ahead: null,
};
const PAID_TO_END: RentLedger = {
  as_of: AS_OF,
  arrears: '0.00',
  days_overdue: 0,
  unpaid: [],
  paid_ahead: null,
};
const OLD_SERVER: RentLedger = { arrears: '0.00', days_overdue: 0 };

const monthly = (ledger: RentLedger) => ({ frequency: 'every_1_month', ledger });

describe('the headline', () => {
  const cases: [string, RentLedger, ReturnType<typeof headline>][] = [
    [
      'in arrears: what is owed, how many months and since when',
      ARREARS,
      { title: 'You owe £4,800.00', detail: '4 months overdue, oldest 1 August' },
    ],
    ['up to date: the next rent', UP_TO_DATE, { title: 'December rent £950.00', detail: 'due 1 December' }],
    [
      'paid ahead: what is paid, when, and what comes next',
      PAID_AHEAD,
      { title: 'December rent is paid (27 Nov)', detail: 'Next rent £950.00 on 1 January' },
    ],
    ['due today is not overdue', DUE_TODAY, { title: 'December rent £950.00', detail: 'due today' }],
    [
      'credit paid part of the next rent: what is left, and of what',
      CREDIT,
      { title: 'December rent £750.00 (of £950.00)', detail: 'due 1 December' },
    ],
    [
      'an installment plan counts installments',
      PLAN,
      { title: 'You owe £1,000.00', detail: '1 installment overdue, oldest 15 November' },
    ],
    ['paid to the end', PAID_TO_END, { title: 'Your rent is paid', detail: 'No more rent is due.' }],
    ['a server without the due dates: none', OLD_SERVER, null],
  ];
  for (const [name, ledger, expected] of cases)
    it(name, () => assert.deepEqual(headline(monthly(ledger)), expected));

  it('rent every 3 months counts payments, not months', () => {
    assert.equal(
      headline({ frequency: 'every_3_month', ledger: ARREARS })?.detail,
      '4 payments overdue, oldest 1 August',
    );
  });
});

describe('the amount suggested, and the choices', () => {
  const cases: [string, RentLedger, string, [string, string][]][] = [
    [
      'in arrears: the overdue total; overdue and the next month',
      ARREARS,
      '4800.00',
      [
        ['Overdue', '4800.00'],
        ['Overdue and December', '6000.00'],
      ],
    ],
    ['up to date: the next rent', UP_TO_DATE, '950.00', [['December rent', '950.00']]],
    [
      'paid ahead: nothing by default; paying early is a choice',
      PAID_AHEAD,
      '',
      [['January 2027 rent, early', '950.00']],
    ],
    [
      'due today: that rent',
      DUE_TODAY,
      '950.00',
      [
        ['December rent', '950.00'],
        ['December and January 2027', '1900.00'],
      ],
    ],
    ['paid to the end: nothing', PAID_TO_END, '', []],
    ['an old server: nothing', OLD_SERVER, '', []],
  ];
  for (const [name, ledger, suggested, choices] of cases) {
    it(name, () => {
      assert.equal(suggestedAmount(ledger), suggested);
      assert.deepEqual(
        amountChoices(ledger).map((choice) => [choice.label, choice.amount]),
        choices,
      );
    });
  }
});

describe('what an amount pays', () => {
  const cases: [string, RentLedger, number | undefined, string][] = [
    ['£1,200 while owing since August pays August', ARREARS, 120_000, 'Pays August rent'],
    ['two months', ARREARS, 240_000, 'Pays August and September rent'],
    [
      'and part of the next',
      ARREARS,
      260_000,
      'Pays August and September rent and £200.00 towards October rent',
    ],
    ['part of the oldest', ARREARS, 50_000, 'Pays £500.00 towards August rent'],
    ['next year’s month has its year', PAID_AHEAD, 95_000, 'Pays January 2027 rent'],
    [
      'beyond the listed dues: later rent',
      PAID_AHEAD,
      100_000,
      'Pays January 2027 rent and £50.00 towards later rent',
    ],
    ['installments by number', PLAN, 200_000, 'Pays installment 2 and installment 3'],
    ['no amount: nothing', ARREARS, undefined, ''],
  ];
  for (const [name, ledger, pence, expected] of cases)
    it(name, () => assert.equal(paysWhat(ledger, pence), expected));
});
