/** Where a chart's points sit, from its data alone: pure, so it is tested without a browser. */

export const CHART_WIDTH = 640;
export const CHART_HEIGHT = 220;
const PAD = { top: 12, right: 8, bottom: 28, left: 72 };
export const PLOT_LEFT = PAD.left;
export const PLOT_RIGHT = CHART_WIDTH - PAD.right;

/** A round top for an axis, at or above the value: 1, 2 or 5 times a power of ten. */
export function niceCeiling(value: number): number {
  if (!(value > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((m) => m * power >= value * (1 - 1e-12))!;
  return step * power;
}

export interface ChartScale {
  /** The axis's top and bottom values (bottom is 0 unless a value is negative). */
  top: number;
  bottom: number;
  /** The width each point has. */
  slot: number;
  /** The centre of point `index`, and the height of `value`, in the chart's own units. */
  x(index: number): number;
  y(value: number): number;
}

/** The scale of a chart of `count` points whose values are `values` (nulls are gaps). */
export function chartScale(count: number, values: readonly (number | null)[]): ChartScale {
  const known = values.filter((v): v is number => v !== null && Number.isFinite(v));
  const lowest = Math.min(0, ...known);
  const top = niceCeiling(Math.max(0, ...known));
  const bottom = lowest < 0 ? -niceCeiling(-lowest) : 0;
  const plotWidth = PLOT_RIGHT - PLOT_LEFT;
  const plotHeight = CHART_HEIGHT - PAD.top - PAD.bottom;
  const slot = plotWidth / Math.max(1, count);
  return {
    top,
    bottom,
    slot,
    x: (index) => PLOT_LEFT + slot * index + slot / 2,
    y: (value) => PAD.top + plotHeight * (1 - (value - bottom) / (top - bottom)),
  };
}

/** The points whose labels go under the axis: the first, the middle and the last. */
export function axisTicks(count: number): number[] {
  if (count <= 0) return [];
  return [...new Set([0, Math.floor((count - 1) / 2), count - 1])];
}
