/** The page's money and date wording, as the tenant types and reads it (table tests of web/page/money.ts). */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseTypedPence } from '../../src/shared/money.ts';
import { longDate, money, moneyOf } from '../../web/page/money.ts';

describe('page money: parsing what the tenant types', () => {
  const cases: [string, number | undefined][] = [
    ['1200', 120_000],
    ['1200.5', 120_050],
    ['1200.50', 120_050],
    ['1,200.50', 120_050],
    ['£1,200.50', 120_050],
    ['£ 1200', 120_000],
    [' 12,345,678.9 ', 1_234_567_890],
    ['0.01', 1],
    ['1,20.00', undefined],
    ['1200,00', undefined],
    ['12,00', undefined],
    [',100', undefined],
    ['1.234', undefined],
    ['-5', undefined],
    ['£', undefined],
    ['', undefined],
    ['1e3', undefined],
  ];
  for (const [typed, pence] of cases) {
    it(`${JSON.stringify(typed)} → ${pence ?? 'refused'}`, () => {
      assert.equal(parseTypedPence(typed), pence);
    });
  }
});

describe('page money: what the tenant reads', () => {
  const cases: [number, string][] = [
    [0, '£0.00'],
    [1, '£0.01'],
    [29, '£0.29'],
    [121_740, '£1,217.40'],
    [10_000_000, '£100,000.00'],
    [123_456_789, '£1,234,567.89'],
  ];
  for (const [pence, shown] of cases) {
    it(`${pence} pence → ${shown}`, () => {
      assert.equal(money(pence), shown);
    });
  }
  it('amounts from the API read the same way', () => {
    assert.equal(moneyOf('1217.40'), '£1,217.40');
    assert.equal(moneyOf('0.50'), '£0.50');
  });
  it('dates read "1 December 2026", whatever the time zone', () => {
    assert.equal(longDate('2026-12-01'), '1 December 2026');
    assert.equal(longDate('2028-02-29'), '29 February 2028');
    assert.equal(longDate('2026-12-31T23:30:00.000Z'), '31 December 2026');
    assert.equal(longDate('not a date'), 'not a date');
  });
});
