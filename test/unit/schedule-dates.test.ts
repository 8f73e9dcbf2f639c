import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  addDays,
  chargeFor,
  daysInMonth,
  dueDateAfter,
  dueDateInMonth,
  dueOnOrAfter,
  dueThrough,
  FREQUENCY_MONTHS,
  firstDueDate,
  firstDueFrom,
  isLeapYear,
  nextDueDate,
  type ScheduleTerms,
  utcDate,
} from '../../src/shared/dates.ts';
import { FREQUENCIES, type Frequency } from '../../src/shared/vocabulary.ts';

/** An oracle that shares no code with the module: JavaScript's own calendar (day 0 of the next month is the last). */
function lastDay(year: number, month: number): number {
  return new Date(Date.UTC(year, month, 0)).getUTCDate();
}
function oracleDue(year: number, month: number, day: number): string {
  const d = new Date(Date.UTC(year, month - 1, Math.min(day, lastDay(year, month))));
  return d.toISOString().slice(0, 10);
}

const rent = (frequency: Frequency, rentDueDay: number, endRentDate = '2099-12-31', amountPence = 120_000) =>
  ({ kind: 'rent', frequency, rentDueDay, endRentDate, amountPence }) as const satisfies ScheduleTerms;

describe('due-date arithmetic', () => {
  it('leap years: every fourth year, but not centuries unless divisible by 400', () => {
    assert.deepEqual([1900, 2000, 2024, 2026, 2028, 2100, 2400].map(isLeapYear), [
      false,
      true,
      true,
      false,
      true,
      false,
      true,
    ]);
    for (let year = 1896; year <= 2404; year++) {
      for (let month = 1; month <= 12; month++) assert.equal(daysInMonth(year, month), lastDay(year, month));
    }
  });

  it('every rent_due_day 1 to 31 in every month of 1999 to 2101: the day, or the month’s last day', () => {
    for (let year = 1999; year <= 2101; year++) {
      for (let month = 1; month <= 12; month++) {
        for (let day = 1; day <= 31; day++) {
          assert.equal(
            dueDateInMonth(year, month, day),
            oracleDue(year, month, day),
            `${year}-${month} day ${day}`,
          );
        }
      }
    }
    // The cases named in the issue.
    assert.equal(dueDateInMonth(2026, 2, 29), '2026-02-28');
    assert.equal(dueDateInMonth(2026, 2, 30), '2026-02-28');
    assert.equal(dueDateInMonth(2026, 2, 31), '2026-02-28');
    assert.equal(dueDateInMonth(2028, 2, 29), '2028-02-29');
    assert.equal(dueDateInMonth(2028, 2, 31), '2028-02-29');
    assert.equal(dueDateInMonth(2026, 4, 31), '2026-04-30');
    assert.equal(dueDateInMonth(2026, 6, 31), '2026-06-30');
    assert.equal(dueDateInMonth(2026, 9, 31), '2026-09-30');
    assert.equal(dueDateInMonth(2026, 11, 31), '2026-11-30');
    assert.equal(dueDateInMonth(2100, 2, 29), '2100-02-28');
    assert.equal(dueDateInMonth(2000, 2, 29), '2000-02-29');
  });

  it('every_1_month … every_12_months step 1, 2, 3, 4, 5, 6 and 12 months', () => {
    assert.deepEqual(
      FREQUENCIES.map((f) => FREQUENCY_MONTHS[f]),
      [1, 2, 3, 4, 5, 6, 12],
    );
  });

  it('stepping keeps the due day after a short month (31 → Feb 28 → Mar 31), across year ends, for every frequency', () => {
    assert.equal(dueDateAfter('2026-01-31', 1, 31), '2026-02-28');
    assert.equal(dueDateAfter('2026-02-28', 1, 31), '2026-03-31');
    assert.equal(dueDateAfter('2027-12-31', 2, 31), '2028-02-29');
    assert.equal(dueDateAfter('2026-11-30', 3, 30), '2027-02-28');
    assert.equal(dueDateAfter('2028-02-29', 12, 29), '2029-02-28');
    assert.equal(dueDateAfter('2029-02-28', 12, 29), '2030-02-28');
    assert.equal(dueDateAfter('2031-02-28', 12, 29), '2032-02-29');
    for (const frequency of FREQUENCIES) {
      const months = FREQUENCY_MONTHS[frequency];
      for (let day = 1; day <= 31; day++) {
        // Ten years of steps from January 2024 against the oracle: the k-th due date is k·months months on.
        let date = dueDateInMonth(2024, 1, day);
        for (let k = 1; k * months <= 120; k++) {
          date = nextDueDate(rent(frequency, day), date)!;
          const index = (k * months) % 12;
          const year = 2024 + Math.floor((k * months) / 12);
          assert.equal(date, oracleDue(year, index + 1, day), `${frequency} day ${day} step ${k}`);
        }
      }
    }
  });

  it('the first due date: in the start month if the due day is not before the start, else the next month', () => {
    assert.equal(firstDueDate('2026-01-01', 1), '2026-01-01');
    assert.equal(firstDueDate('2026-01-15', 1), '2026-02-01');
    assert.equal(firstDueDate('2026-01-15', 15), '2026-01-15');
    assert.equal(firstDueDate('2026-01-15', 20), '2026-01-20');
    assert.equal(firstDueDate('2026-02-10', 31), '2026-02-28');
    assert.equal(firstDueDate('2026-02-28', 31), '2026-02-28');
    assert.equal(firstDueDate('2028-02-29', 30), '2028-02-29');
    assert.equal(firstDueDate('2026-12-31', 30), '2027-01-30');
    for (let start = '2027-12-01'; start <= '2029-01-31'; start = addDays(start, 1)) {
      for (let day = 1; day <= 31; day++) {
        const first = firstDueDate(start, day);
        assert.ok(first >= start, `${start} ${day}`);
        const [y, m] = first.split('-').map(Number) as [number, number];
        assert.equal(first, oracleDue(y, m, day));
        // Nothing of the series lies between the start and the first due date.
        const previous = dueDateAfter(first, -1, day);
        assert.ok(previous < start, `${start} day ${day}: ${previous} is on or after the start`);
      }
    }
  });

  it('from a start date, the series steps by the frequency until the tenancy ends (inclusive)', () => {
    const terms = rent('every_3_month', 31, '2027-03-31');
    const first = firstDueDate('2026-01-10', 31);
    const { due, next } = dueThrough(terms, first, '2099-01-01');
    assert.deepEqual(
      due.map((d) => d.due_date),
      ['2026-01-31', '2026-04-30', '2026-07-31', '2026-10-31', '2027-01-31'],
    );
    assert.equal(next, null, 'the next one (2027-04-30) is past the end');
    assert.deepEqual(
      dueThrough(rent('every_1_month', 1, '2026-04-01'), '2026-03-01', '2099-01-01').due.map(
        (d) => d.due_date,
      ),
      ['2026-03-01', '2026-04-01'],
      'a due date on the last day of the tenancy is charged',
    );
    assert.deepEqual(dueThrough(rent('every_1_month', 1, '2026-02-28'), '2026-03-01', '2099-01-01'), {
      due: [],
      next: null,
    });
  });

  it('dueThrough: everything due up to as_of inclusive, with the amount, and the first one after', () => {
    const terms = rent('every_1_month', 30, '2030-01-01', 95_000);
    assert.deepEqual(dueThrough(terms, '2026-01-30', '2026-01-29'), { due: [], next: '2026-01-30' });
    assert.deepEqual(dueThrough(terms, '2026-01-30', '2026-03-30'), {
      due: [
        { due_date: '2026-01-30', installment_number: null, pure_amount_pence: 95_000 },
        { due_date: '2026-02-28', installment_number: null, pure_amount_pence: 95_000 },
        { due_date: '2026-03-30', installment_number: null, pure_amount_pence: 95_000 },
      ],
      next: '2026-04-30',
    });
  });

  it('every frequency over 24 months from 2027-01 across the 2028 leap year, days 28 to 31', () => {
    for (const frequency of FREQUENCIES) {
      const months = FREQUENCY_MONTHS[frequency];
      for (const day of [28, 29, 30, 31]) {
        const terms = rent(frequency, day, '2028-12-31');
        const { due, next } = dueThrough(terms, firstDueDate('2027-01-01', day), '2028-12-31');
        const expected: string[] = [];
        for (let k = 0; k < 24; k += months)
          expected.push(oracleDue(2027 + Math.floor(k / 12), (k % 12) + 1, day));
        assert.deepEqual(
          due.map((d) => d.due_date),
          expected,
          `${frequency} day ${day}`,
        );
        assert.equal(next, null);
        if (day >= 29 && months === 1) assert.ok(expected.includes('2028-02-29'));
        if (day >= 29 && months === 1) assert.ok(expected.includes('2027-02-28'));
      }
    }
  });

  it('dueOnOrAfter (resume, set-up): the first date of the series not before the day, or null past the end', () => {
    const terms = rent('every_2_month', 15, '2026-12-31');
    assert.equal(dueOnOrAfter(terms, '2026-01-15', '2026-01-15'), '2026-01-15');
    assert.equal(dueOnOrAfter(terms, '2026-01-15', '2026-01-16'), '2026-03-15');
    assert.equal(dueOnOrAfter(terms, '2026-01-15', '2026-06-01'), '2026-07-15');
    assert.equal(dueOnOrAfter(terms, '2026-05-15', '2026-01-01'), '2026-05-15', 'never before the anchor');
    assert.equal(dueOnOrAfter(terms, '2026-01-15', '2026-11-16'), null);
    assert.equal(
      firstDueFrom(rent('every_1_month', 31, '2026-12-31'), '2026-01-01', '2026-02-03'),
      '2026-02-28',
    );
    assert.equal(firstDueFrom(rent('every_year', 1, '2026-12-31'), '2026-01-01', '2026-01-02'), null);
    assert.equal(firstDueFrom(rent('every_year', 1, '2027-12-31'), '2026-01-01', '2026-01-02'), '2027-01-01');
  });

  it('installments follow their own due dates and amounts, within the tenancy', () => {
    const terms: ScheduleTerms = {
      kind: 'installments',
      endRentDate: '2026-12-31',
      installments: [
        { installment_number: 1, due_date: '2026-01-05', amount_pence: 50_000 },
        { installment_number: 2, due_date: '2026-02-28', amount_pence: 70_000 },
        { installment_number: 3, due_date: '2026-07-01', amount_pence: 80_050 },
        { installment_number: 4, due_date: '2027-01-05', amount_pence: 1_000 },
      ],
    };
    assert.equal(firstDueFrom(terms, '2026-01-01', '2026-01-01'), '2026-01-05');
    assert.equal(firstDueFrom(terms, '2026-01-01', '2026-01-06'), '2026-02-28');
    assert.equal(firstDueFrom(terms, '2026-01-01', '2026-07-02'), null, 'installment 4 is after the end');
    assert.deepEqual(dueThrough(terms, '2026-01-05', '2026-06-30'), {
      due: [
        { due_date: '2026-01-05', installment_number: 1, pure_amount_pence: 50_000 },
        { due_date: '2026-02-28', installment_number: 2, pure_amount_pence: 70_000 },
      ],
      next: '2026-07-01',
    });
    assert.deepEqual(dueThrough(terms, '2026-07-01', '2030-01-01'), {
      due: [{ due_date: '2026-07-01', installment_number: 3, pure_amount_pence: 80_050 }],
      next: null,
    });
    assert.equal(nextDueDate(terms, '2026-01-10'), '2026-02-28');
    assert.deepEqual(chargeFor(terms, '2026-07-01'), {
      due_date: '2026-07-01',
      installment_number: 3,
      pure_amount_pence: 80_050,
    });
    assert.throws(() => chargeFor(terms, '2026-07-02'), /No installment is due on 2026-07-02/);
    assert.equal(firstDueFrom({ ...terms, installments: [] }, '2026-01-01', '2026-01-01'), null);
  });

  it('day helpers: addDays across month, year and leap days; utcDate is the UTC calendar day', () => {
    assert.equal(addDays('2028-02-28', 1), '2028-02-29');
    assert.equal(addDays('2027-02-28', 1), '2027-03-01');
    assert.equal(addDays('2026-12-31', 1), '2027-01-01');
    assert.equal(addDays('2026-03-01', 3), '2026-03-04');
    assert.equal(addDays('2026-03-01', -1), '2026-02-28');
    assert.equal(utcDate(new Date('2026-03-01T23:59:59.999Z')), '2026-03-01');
    assert.equal(utcDate(new Date('2026-03-02T00:00:00.000Z')), '2026-03-02');
  });
});
