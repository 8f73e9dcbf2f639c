/** The home page's words and chart data from its figures: pure, so they are tested without a browser. */

import type { ArrearsAge, HomeFigures } from './types.ts';

export const ARREARS_AGE_NAMES: Record<ArrearsAge, string> = {
  '0-7': '0–7 days overdue',
  '8-30': '8–30 days overdue',
  '31-60': '31–60 days overdue',
  over_60: 'Over 60 days overdue',
};

const DAY_LONG = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'long', timeZone: 'UTC' });
const DAY_SHORT = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', timeZone: 'UTC' });

const dayOf = (isoDate: string) => new Date(`${isoDate}T00:00:00Z`);

/** The 30-day chart's points: labels for the table and the axis, collected and due as numbers of pounds. */
export function collectionSeries(series: HomeFigures['series']) {
  return {
    labels: series.map((day) => DAY_LONG.format(dayOf(day.date))),
    axisLabels: series.map((day) => DAY_SHORT.format(dayOf(day.date))),
    collected: series.map((day) => Number(day.collected)),
    due: series.map((day) => Number(day.due)),
  };
}

/** The chart's summary in words: the totals of the period and the day most was collected. */
export function collectionSummary(series: HomeFigures['series'], money: (amount: string) => string): string {
  if (series.length === 0) return 'No days to show.';
  const pence = (amount: string) => Math.round(Number(amount) * 100);
  const collected = series.reduce((sum, day) => sum + pence(day.collected), 0);
  const due = series.reduce((sum, day) => sum + pence(day.due), 0);
  const best = series.reduce((most, day) => (pence(day.collected) > pence(most.collected) ? day : most));
  const first = DAY_LONG.format(dayOf(series[0]!.date));
  const last = DAY_LONG.format(dayOf(series[series.length - 1]!.date));
  const total = (p: number) => money((p / 100).toFixed(2));
  const most =
    collected > 0
      ? ` The most was collected on ${DAY_LONG.format(dayOf(best.date))}: ${money(best.collected)}.`
      : '';
  return `From ${first} to ${last}, ${total(collected)} of rent was collected and ${total(due)} fell due.${most}`;
}
