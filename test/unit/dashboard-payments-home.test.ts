import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { moneyOf } from '../../src/shared/display.ts';
import { collectionSeries, collectionSummary } from '../../web/dashboard/home/home-figures.ts';

describe('the home page’s figures', () => {
  const series = [
    { date: '2026-05-31', collected: '0.00', due: '1000.00', link: '' },
    { date: '2026-06-01', collected: '1217.40', due: '0.00', link: '' },
    { date: '2026-06-02', collected: '99.99', due: '250.50', link: '' },
  ];

  it('charts the series as pounds, labelled by day', () => {
    assert.deepEqual(collectionSeries(series), {
      labels: ['31 May', '1 June', '2 June'],
      axisLabels: ['31 May', '1 Jun', '2 Jun'],
      collected: [0, 1217.4, 99.99],
      due: [1000, 0, 250.5],
    });
  });

  it('sums the series in words, to the penny', () => {
    assert.equal(
      collectionSummary(series, moneyOf),
      'From 31 May to 2 June, £1,317.39 of rent was collected and £1,250.50 fell due. ' +
        'The most was collected on 1 June: £1,217.40.',
    );
    const none = series.map((day) => ({ ...day, collected: '0.00' }));
    assert.equal(
      collectionSummary(none, moneyOf),
      'From 31 May to 2 June, £0.00 of rent was collected and £1,250.50 fell due.',
    );
    assert.equal(collectionSummary([], moneyOf), 'No days to show.');
  });
});
