/** What each payment paid and what each due date has had, oldest due date first: pure functions, as tables. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LedgerPayment } from '../../src/ledger/balance.ts';
import type { RentDue } from '../../src/ledger/due-dates.ts';
import { firstUnpaid, paidAhead, rentPosition } from '../../src/ledger/position.ts';
import { allocateOldestFirst } from '../../src/shared/rent-allocation.ts';

const monthly = (dates: string[], pence = 120_000): RentDue[] =>
  dates.map((date) => ({ date, amount_pence: pence, installment_number: null }));
const DUES = monthly(['2026-08-01', '2026-09-01', '2026-10-01', '2026-11-01', '2026-12-01', '2027-01-01']);

function paid(id: string, date: string, pence: number, refunds: [string, number][] = []): LedgerPayment {
  return {
    payment_id: id,
    date,
    pure_amount_pence: pence,
    refunds: refunds.map(([d, amount]) => ({ date: d, amount_pence: amount })),
  };
}

describe('allocating an amount oldest due date first', () => {
  const cases: {
    name: string;
    pence: number;
    expected: { parts: [string, number, boolean][]; left: number };
  }[] = [
    { name: 'nothing pays nothing', pence: 0, expected: { parts: [], left: 0 } },
    {
      name: 'part of the oldest',
      pence: 50_000,
      expected: { parts: [['2026-08-01', 50_000, false]], left: 0 },
    },
    {
      name: 'the oldest exactly',
      pence: 120_000,
      expected: { parts: [['2026-08-01', 120_000, true]], left: 0 },
    },
    {
      name: 'two and part of a third',
      pence: 250_000,
      expected: {
        parts: [
          ['2026-08-01', 120_000, true],
          ['2026-09-01', 120_000, true],
          ['2026-10-01', 10_000, false],
        ],
        left: 0,
      },
    },
    {
      name: 'more than every due date: the rest is left',
      pence: 800_000,
      expected: {
        parts: DUES.map((d) => [d.date, 120_000, true] as [string, number, boolean]),
        left: 80_000,
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const { parts, left_pence } = allocateOldestFirst(DUES, c.pence);
      assert.deepEqual(
        parts.map((p) => [p.date, p.pence, p.settles]),
        c.expected.parts,
      );
      assert.equal(left_pence, c.expected.left);
    });
  }
});

describe('a tenancy’s rent position', () => {
  it('in arrears: a payment made in November pays August, the oldest due date', () => {
    const position = rentPosition(DUES, [paid('pay_1', '2026-11-27', 120_000)], '2026-11-27');
    assert.deepEqual(position.applied.get('pay_1'), [{ due_date: '2026-08-01', pence: 120_000 }]);
    assert.equal(firstUnpaid(position)?.date, '2026-09-01');
    assert.equal(position.dues[0]?.settled_on, '2026-11-27');
    assert.equal(paidAhead(position), null);
    assert.equal(position.credit_pence, 0);
  });

  it('paid ahead: December paid on 27 November is the latest due date paid after today', () => {
    const payments = ['2026-08-01', '2026-09-01', '2026-10-01', '2026-11-01', '2026-11-27'].map((date, i) =>
      paid(`pay_${i}`, date, 120_000),
    );
    const position = rentPosition(DUES, payments, '2026-11-27');
    assert.deepEqual(paidAhead(position), {
      date: '2026-12-01',
      installment_number: null,
      rent_pence: 120_000,
      paid_pence: 120_000,
      settled_on: '2026-11-27',
    });
    assert.equal(firstUnpaid(position)?.date, '2027-01-01');
    assert.deepEqual(position.applied.get('pay_4'), [{ due_date: '2026-12-01', pence: 120_000 }]);
  });

  it('a payment spread over due dates, part paying the next; a later one finishes it', () => {
    const position = rentPosition(
      DUES,
      [paid('pay_a', '2026-09-02', 300_000), paid('pay_b', '2026-10-05', 60_000)],
      '2026-11-27',
    );
    assert.deepEqual(position.applied.get('pay_a'), [
      { due_date: '2026-08-01', pence: 120_000 },
      { due_date: '2026-09-01', pence: 120_000 },
      { due_date: '2026-10-01', pence: 60_000 },
    ]);
    assert.deepEqual(position.applied.get('pay_b'), [{ due_date: '2026-10-01', pence: 60_000 }]);
    assert.equal(position.dues[2]?.settled_on, '2026-10-05');
    assert.equal(firstUnpaid(position)?.date, '2026-11-01');
  });

  it('a refund gives the rent back: what the payment paid shrinks and the due date is unpaid again', () => {
    const position = rentPosition(
      DUES,
      [paid('pay_r', '2026-08-01', 120_000, [['2026-08-10', 20_000]])],
      '2026-11-27',
    );
    assert.deepEqual(position.applied.get('pay_r'), [{ due_date: '2026-08-01', pence: 100_000 }]);
    assert.equal(position.dues[0]?.paid_pence, 100_000);
    assert.equal(position.dues[0]?.settled_on, null);
  });

  it('a refund after the day asked about does not count yet; payments after it are left out', () => {
    const position = rentPosition(
      DUES,
      [paid('pay_r', '2026-08-01', 120_000, [['2026-12-10', 120_000]]), paid('pay_late', '2026-12-01', 1)],
      '2026-11-27',
    );
    assert.equal(position.dues[0]?.settled_on, '2026-08-01');
    assert.equal(position.applied.has('pay_late'), false);
  });

  it('paying beyond the last due date is credit, shown as a part with no due date', () => {
    const position = rentPosition(
      monthly(['2026-08-01']),
      [paid('pay_x', '2026-08-01', 150_000)],
      '2026-11-27',
    );
    assert.deepEqual(position.applied.get('pay_x'), [
      { due_date: '2026-08-01', pence: 120_000 },
      { due_date: null, pence: 30_000 },
    ]);
    assert.equal(position.credit_pence, 30_000);
    assert.equal(firstUnpaid(position), null);
  });

  it('installments keep their numbers and own amounts', () => {
    const plan: RentDue[] = [
      { date: '2026-09-15', amount_pence: 50_000, installment_number: 1 },
      { date: '2026-12-15', amount_pence: 70_000, installment_number: 2 },
    ];
    const position = rentPosition(plan, [paid('pay_i', '2026-09-10', 50_000)], '2026-11-27');
    assert.equal(position.dues[0]?.installment_number, 1);
    assert.equal(firstUnpaid(position)?.installment_number, 2);
  });
});
