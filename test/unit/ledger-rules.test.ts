/**
 * The ledger's pure rules, table by table: due dates (month ends, leap years, every frequency, changed terms,
 * installments) and balances (partial payments, overpayments, refunds, refunds after payout, days overdue).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  buildLedger,
  daysBetween,
  firstUncovered,
  type LedgerPayment,
  paidThrough,
  refundRentParts,
} from '../../src/ledger/balance.ts';
import { dueSeries, dueThrough, type TenancyDueTerms, termsOn } from '../../src/ledger/due-dates.ts';
import { remindersDue } from '../../src/ledger/reminder-rules.ts';
import type { Frequency } from '../../src/shared/vocabulary.ts';

function monthly(
  start: string,
  end: string,
  day: number,
  frequency: Frequency = 'every_1_month',
  amount = 100_000,
): TenancyDueTerms {
  return {
    start_rent_date: start,
    end_rent_date: end,
    rent_due_day: day,
    terms: [{ effective_on: start, amount_pence: amount, frequency }],
    installments: null,
  };
}

const dates = (tenancy: TenancyDueTerms) => [...dueSeries(tenancy)].map((d) => d.date);

describe('due dates', () => {
  const cases: { name: string; tenancy: TenancyDueTerms; expected: string[] }[] = [
    {
      name: 'day 31 monthly through a non-leap February and the 30-day months',
      tenancy: monthly('2026-01-01', '2026-06-30', 31),
      expected: ['2026-01-31', '2026-02-28', '2026-03-31', '2026-04-30', '2026-05-31', '2026-06-30'],
    },
    {
      name: 'day 31 in a leap year: 29 February',
      tenancy: monthly('2028-01-15', '2028-04-30', 31),
      expected: ['2028-01-31', '2028-02-29', '2028-03-31', '2028-04-30'],
    },
    {
      name: 'day 30 and day 29 in February of a non-leap year',
      tenancy: monthly('2027-02-01', '2027-03-31', 29),
      expected: ['2027-02-28', '2027-03-29'],
    },
    {
      name: 'a start after the due day: the first due date is next month',
      tenancy: monthly('2026-01-15', '2026-04-14', 1),
      expected: ['2026-02-01', '2026-03-01', '2026-04-01'],
    },
    {
      name: 'a start on the due day is due that day; the end date is inclusive',
      tenancy: monthly('2026-01-10', '2026-03-10', 10),
      expected: ['2026-01-10', '2026-02-10', '2026-03-10'],
    },
    {
      name: 'every_2_month',
      tenancy: monthly('2026-01-01', '2026-12-31', 5, 'every_2_month'),
      expected: ['2026-01-05', '2026-03-05', '2026-05-05', '2026-07-05', '2026-09-05', '2026-11-05'],
    },
    {
      name: 'every_3_month across a year end',
      tenancy: monthly('2026-11-01', '2027-08-31', 1, 'every_3_month'),
      expected: ['2026-11-01', '2027-02-01', '2027-05-01', '2027-08-01'],
    },
    {
      name: 'every_4_month',
      tenancy: monthly('2026-01-01', '2027-01-31', 31, 'every_4_month'),
      expected: ['2026-01-31', '2026-05-31', '2026-09-30', '2027-01-31'],
    },
    {
      name: 'every_5_month',
      tenancy: monthly('2026-01-01', '2027-01-31', 30, 'every_5_month'),
      expected: ['2026-01-30', '2026-06-30', '2026-11-30'],
    },
    {
      name: 'every_half_year from a 31st',
      tenancy: monthly('2026-08-31', '2028-03-01', 31, 'every_half_year'),
      expected: ['2026-08-31', '2027-02-28', '2027-08-31', '2028-02-29'],
    },
    {
      name: 'every_year on 29 February',
      tenancy: monthly('2028-02-01', '2033-03-01', 29, 'every_year'),
      expected: ['2028-02-29', '2029-02-28', '2030-02-28', '2031-02-28', '2032-02-29', '2033-02-28'],
    },
    {
      name: 'an end before the first due date: none',
      tenancy: monthly('2026-01-15', '2026-01-31', 1),
      expected: [],
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(dates(c.tenancy), c.expected));
  }

  it('each due date takes the amount and frequency in force on it', () => {
    const tenancy: TenancyDueTerms = {
      ...monthly('2026-01-01', '2026-12-31', 1),
      terms: [
        { effective_on: '2026-01-01', amount_pence: 100_000, frequency: 'every_1_month' },
        // Changed on 15 March: April's rent is the new amount, and from April it is due every 3 months.
        { effective_on: '2026-03-15', amount_pence: 120_000, frequency: 'every_3_month' },
        // Changed on the due date itself: it applies to that due date.
        { effective_on: '2026-10-01', amount_pence: 90_000, frequency: 'every_1_month' },
      ],
    };
    assert.deepEqual(
      [...dueSeries(tenancy)].map((d) => [d.date, d.amount_pence]),
      [
        ['2026-01-01', 100_000],
        ['2026-02-01', 100_000],
        ['2026-03-01', 100_000],
        ['2026-04-01', 120_000],
        ['2026-07-01', 120_000],
        ['2026-10-01', 90_000],
        ['2026-11-01', 90_000],
        ['2026-12-01', 90_000],
      ],
    );
  });

  it('terms on a date: the latest effective on or before it, else the first', () => {
    const terms = [
      { effective_on: '2026-03-01', amount_pence: 1, frequency: 'every_1_month' as const },
      { effective_on: '2026-05-01', amount_pence: 2, frequency: 'every_1_month' as const },
    ];
    const table: [string, number][] = [
      ['2026-01-01', 1],
      ['2026-03-01', 1],
      ['2026-04-30', 1],
      ['2026-05-01', 2],
      ['2030-01-01', 2],
    ];
    for (const [date, amount] of table) assert.equal(termsOn(terms, date).amount_pence, amount, date);
  });

  it('an installment plan: its own dates and amounts, none after the end date', () => {
    const tenancy: TenancyDueTerms = {
      ...monthly('2026-01-01', '2026-09-30', 1),
      installments: [
        { installment_number: 1, due_date: '2026-01-01', amount_pence: 300_000 },
        { installment_number: 2, due_date: '2026-05-20', amount_pence: 250_000 },
        { installment_number: 3, due_date: '2026-10-01', amount_pence: 250_000 },
      ],
    };
    assert.deepEqual(
      [...dueSeries(tenancy)],
      [
        { date: '2026-01-01', amount_pence: 300_000, installment_number: 1 },
        { date: '2026-05-20', amount_pence: 250_000, installment_number: 2 },
      ],
    );
  });

  it('due through a day, and the next one after it', () => {
    const tenancy = monthly('2026-01-01', '2026-04-30', 1);
    const table: [string, number, string | null][] = [
      ['2025-12-31', 0, '2026-01-01'],
      ['2026-01-01', 1, '2026-02-01'],
      ['2026-02-15', 2, '2026-03-01'],
      ['2026-04-01', 4, null],
      ['2027-01-01', 4, null],
    ];
    for (const [through, count, next] of table) {
      const result = dueThrough(tenancy, through);
      assert.equal(result.due.length, count, through);
      assert.equal(result.next?.date ?? null, next, through);
    }
  });
});

describe('balances', () => {
  const due = (date: string, amount_pence = 100_000) => ({ date, amount_pence, installment_number: null });
  const pay = (
    payment_id: string,
    date: string,
    pure: number,
    refunds: { date: string; amount_pence: number }[] = [],
  ): LedgerPayment => ({ payment_id, date, pure_amount_pence: pure, refunds });

  it('refunds give the rent back first and the fee last', () => {
    const table: [number, number[], number[]][] = [
      [100_000, [101_700], [100_000]],
      [100_000, [20_000, 20_000], [20_000, 20_000]],
      [100_000, [90_000, 11_700], [90_000, 10_000]],
      [100_000, [100_000, 1_700], [100_000, 0]],
      [100_000, [], []],
    ];
    for (const [pure, refunds, parts] of table) assert.deepEqual(refundRentParts(pure, refunds), parts);
  });

  it('arrears and days overdue across partial payments, overpayments and refunds', () => {
    const dues = [due('2026-01-01'), due('2026-02-01'), due('2026-03-01')];
    const table: {
      name: string;
      payments: LedgerPayment[];
      asOf: string;
      arrears: number;
      daysOverdue: number;
      balance: number;
    }[] = [
      {
        name: 'nothing paid',
        payments: [],
        asOf: '2026-03-10',
        arrears: 300_000,
        daysOverdue: 68,
        balance: 300_000,
      },
      {
        name: 'paid on time',
        payments: [
          pay('p1', '2026-01-01', 100_000),
          pay('p2', '2026-02-01', 100_000),
          pay('p3', '2026-03-01', 100_000),
        ],
        asOf: '2026-03-10',
        arrears: 0,
        daysOverdue: 0,
        balance: 0,
      },
      {
        name: 'a partial payment covers the oldest due date only in part',
        payments: [pay('p1', '2026-01-05', 60_000)],
        asOf: '2026-02-10',
        arrears: 140_000,
        daysOverdue: 40,
        balance: 140_000,
      },
      {
        name: 'partial payments adding up: the oldest uncovered is February',
        payments: [pay('p1', '2026-01-05', 60_000), pay('p2', '2026-02-03', 60_000)],
        asOf: '2026-03-01',
        arrears: 180_000,
        daysOverdue: 28,
        balance: 180_000,
      },
      {
        name: 'an overpayment: paid ahead, a negative balance and no arrears',
        payments: [pay('p1', '2026-01-01', 250_000)],
        asOf: '2026-02-01',
        arrears: 0,
        daysOverdue: 0,
        balance: -50_000,
      },
      {
        name: 'a full refund brings the arrears back',
        payments: [pay('p1', '2026-01-01', 100_000, [{ date: '2026-01-20', amount_pence: 101_700 }])],
        asOf: '2026-01-25',
        arrears: 100_000,
        daysOverdue: 24,
        balance: 100_000,
      },
      {
        name: 'a refund after as_of does not count yet',
        payments: [pay('p1', '2026-01-01', 100_000, [{ date: '2026-01-20', amount_pence: 101_700 }])],
        asOf: '2026-01-19',
        arrears: 0,
        daysOverdue: 0,
        balance: 0,
      },
      {
        name: 'rent due today is not yet overdue',
        payments: [pay('p1', '2026-01-01', 100_000)],
        asOf: '2026-02-01',
        arrears: 100_000,
        daysOverdue: 0,
        balance: 100_000,
      },
    ];
    for (const c of table) {
      const ledger = buildLedger(dues, null, c.payments, [], c.asOf);
      assert.equal(ledger.arrears_pence, c.arrears, c.name);
      assert.equal(ledger.days_overdue, c.daysOverdue, c.name);
      assert.equal(ledger.entries.at(-1)?.balance_pence ?? 0, c.balance, c.name);
    }
  });

  it('entries in date order, rent due first on a day; payouts leave the balance alone, refunds after payout add back', () => {
    const ledger = buildLedger(
      [due('2026-01-01'), due('2026-02-01')],
      due('2026-03-01'),
      [pay('pay_a', '2026-01-01', 100_000, [{ date: '2026-01-20', amount_pence: 30_000 }])],
      [{ payout_id: 'po_1', date: '2026-01-10', amount_pence: 100_000 }],
      '2026-02-01',
    );
    assert.deepEqual(
      ledger.entries.map((e) => [e.date, e.type, e.amount_pence, e.balance_pence]),
      [
        ['2026-01-01', 'rent_due', 100_000, 100_000],
        ['2026-01-01', 'payment', 100_000, 0],
        ['2026-01-10', 'payout', 100_000, 0],
        ['2026-01-20', 'refund', 30_000, 30_000],
        ['2026-02-01', 'rent_due', 100_000, 130_000],
      ],
    );
    assert.equal(ledger.arrears_pence, 130_000);
    assert.equal(ledger.days_overdue, 31, 'from 1 January, which the refund left part-paid');
    assert.deepEqual(ledger.next_due, due('2026-03-01'));
    assert.equal(ledger.entries[1]?.payment_id, 'pay_a');
    assert.equal(ledger.entries[2]?.payout_id, 'po_1');
  });

  it('a refund of the fee alone is not a ledger entry', () => {
    const ledger = buildLedger(
      [due('2026-01-01')],
      null,
      [
        pay('p', '2026-01-01', 100_000, [
          { date: '2026-01-02', amount_pence: 100_000 },
          { date: '2026-01-03', amount_pence: 1_700 },
        ]),
      ],
      [],
      '2026-01-31',
    );
    assert.deepEqual(
      ledger.entries.map((e) => e.type),
      ['rent_due', 'payment', 'refund'],
    );
  });

  it('helpers: days between dates, paid through a day, the first due date not covered', () => {
    assert.equal(daysBetween('2026-02-28', '2026-03-01'), 1);
    assert.equal(daysBetween('2028-02-28', '2028-03-01'), 2);
    assert.equal(daysBetween('2026-12-31', '2027-01-01'), 1);
    assert.equal(daysBetween('2026-03-01', '2026-03-01'), 0);
    const payments = [
      pay('a', '2026-01-01', 100_000, [{ date: '2026-01-05', amount_pence: 40_000 }]),
      pay('b', '2026-02-01', 50_000),
    ];
    assert.equal(paidThrough(payments, '2026-01-04'), 100_000);
    assert.equal(paidThrough(payments, '2026-01-05'), 60_000);
    assert.equal(paidThrough(payments, '2026-02-01'), 110_000);
    const dues = [due('2026-01-01'), due('2026-02-01')];
    assert.equal(firstUncovered(dues, 0)?.date, '2026-01-01');
    assert.equal(firstUncovered(dues, 100_000)?.date, '2026-02-01');
    assert.equal(firstUncovered(dues, 199_999)?.date, '2026-02-01');
    assert.equal(firstUncovered(dues, 200_000), undefined);
  });
});

describe('rent reminders', () => {
  const tenancy = monthly('2026-01-01', '2026-12-31', 1, 'every_1_month', 100_000);
  const pay = (date: string, pure: number): LedgerPayment => ({
    payment_id: `pay_${date}`,
    date,
    pure_amount_pence: pure,
    refunds: [],
  });
  const summary = (asOf: string, payments: LedgerPayment[] = [], daysBefore = 3) =>
    remindersDue(tenancy, payments, asOf, daysBefore).map(
      (r) => `${r.kind} ${r.due_date} ${r.days_after_due} ${r.amount_due_pence}/${r.arrears_pence}`,
    );

  const table: { name: string; asOf: string; payments?: LedgerPayment[]; expected: string[] }[] = [
    {
      name: 'before the window: nothing for March (January and February paid)',
      asOf: '2026-02-25',
      payments: [pay('2026-01-01', 100_000), pay('2026-02-01', 100_000)],
      expected: [],
    },
    {
      name: '3 days before: due soon',
      asOf: '2026-02-26',
      payments: [pay('2026-01-01', 100_000), pay('2026-02-01', 100_000)],
      expected: ['rent_due_soon 2026-03-01 -3 100000/0'],
    },
    {
      name: 'a late run on the day before still sends it, with the same days_after_due',
      asOf: '2026-02-28',
      payments: [pay('2026-01-01', 100_000), pay('2026-02-01', 100_000)],
      expected: ['rent_due_soon 2026-03-01 -3 100000/0'],
    },
    {
      name: 'paid ahead: no reminder',
      asOf: '2026-02-27',
      payments: [pay('2026-01-01', 300_000)],
      expected: [],
    },
    {
      name: 'part paid ahead: the rest',
      asOf: '2026-02-27',
      payments: [pay('2026-01-01', 250_000)],
      expected: ['rent_due_soon 2026-03-01 -3 50000/0'],
    },
    {
      name: 'on the due date: neither soon nor overdue',
      asOf: '2026-03-01',
      payments: [pay('2026-01-01', 100_000), pay('2026-02-01', 100_000)],
      expected: [],
    },
    {
      name: '1 day after: overdue 1',
      asOf: '2026-03-02',
      payments: [pay('2026-01-01', 100_000), pay('2026-02-01', 100_000)],
      expected: ['rent_overdue 2026-03-01 1 100000/100000'],
    },
    {
      name: '7 days after: overdue 1 and 7 (the caller drops what it already sent)',
      asOf: '2026-03-08',
      payments: [pay('2026-01-01', 100_000), pay('2026-02-01', 100_000)],
      expected: ['rent_overdue 2026-03-01 1 100000/100000', 'rent_overdue 2026-03-01 7 100000/100000'],
    },
    {
      name: 'paid late, before the 7-day reminder: none',
      asOf: '2026-03-08',
      payments: [pay('2026-01-01', 100_000), pay('2026-02-01', 100_000), pay('2026-03-05', 100_000)],
      expected: [],
    },
    {
      name: 'nothing paid for long: only due dates within 35 days get reminders',
      asOf: '2026-03-29',
      payments: [],
      expected: [
        'rent_overdue 2026-03-01 1 100000/300000',
        'rent_overdue 2026-03-01 7 100000/300000',
        'rent_due_soon 2026-04-01 -3 100000/300000',
      ],
    },
    {
      name: 'after the end date: no more due soon',
      asOf: '2026-12-30',
      payments: [pay('2026-01-01', 1_200_000)],
      expected: [],
    },
  ];
  for (const c of table) {
    it(c.name, () => assert.deepEqual(summary(c.asOf, c.payments), c.expected));
  }
});
