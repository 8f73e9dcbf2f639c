import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { axisTicks, CHART_HEIGHT, chartScale, niceCeiling } from '../../web/dashboard/chart-scale.ts';

describe('the dashboard charts’ scale', () => {
  for (const [value, ceiling] of [
    [0, 1],
    [-5, 1],
    [Number.NaN, 1],
    [0.3, 0.5],
    [1, 1],
    [1.01, 2],
    [2, 2],
    [2.5, 5],
    [7, 10],
    [10, 10],
    [120_000, 200_000],
    [499_999, 500_000],
    [500_001, 1_000_000],
  ] as const) {
    it(`tops an axis holding ${value} at ${ceiling}`, () => assert.equal(niceCeiling(value), ceiling));
  }

  it('puts 0 at the bottom for positive values and the largest at or below the top', () => {
    const scale = chartScale(3, [10, 35, null]);
    assert.deepEqual([scale.bottom, scale.top], [0, 50]);
    assert.ok(scale.y(0) > scale.y(35) && scale.y(35) > scale.y(50));
    assert.ok(scale.y(0) < CHART_HEIGHT);
    assert.ok(scale.x(0) < scale.x(1) && scale.x(1) < scale.x(2));
  });

  it('reaches below 0 for a negative value (a balance in credit)', () => {
    const scale = chartScale(2, [-120, 900]);
    assert.deepEqual([scale.bottom, scale.top], [-200, 1000]);
    assert.ok(scale.y(-120) > scale.y(0));
  });

  it('has a scale for no data at all', () => {
    const scale = chartScale(0, []);
    assert.deepEqual([scale.bottom, scale.top], [0, 1]);
    assert.ok(Number.isFinite(scale.y(0)));
  });

  for (const [count, ticks] of [
    [0, []],
    [1, [0]],
    [2, [0, 1]],
    [30, [0, 14, 29]],
  ] as const) {
    it(`labels ${JSON.stringify(ticks)} of ${count} points`, () => assert.deepEqual(axisTicks(count), ticks));
  }
});
