/**
 * Charts drawn as SVG by hand (no library: a few hundred bytes of code instead of tens of kilobytes). Each chart is a
 * figure whose caption states what it shows in words, and whose data is also a table for screen readers and for
 * anyone who wants the numbers; the picture itself is decoration over the same data.
 */

import { useId } from 'preact/hooks';
import { axisTicks, CHART_HEIGHT, CHART_WIDTH, chartScale, PLOT_LEFT, PLOT_RIGHT } from './chart-scale.ts';
import { TableWrap } from './ui.tsx';

/** One series of a chart: a name for the legend and the table, and one value per point (null: no value). */
export interface Series {
  name: string;
  values: readonly (number | null)[];
  /** Drawn as bars (one per point) or as a line through the points. */
  kind: 'bars' | 'line';
  /** A CSS colour (use the page's custom properties, so dark mode follows). */
  color: string;
}

export interface ChartProps {
  /** Short title, shown above the chart. */
  title: string;
  /** What the chart says, in a sentence or two: read first by screen readers, shown under the title. */
  summary: string;
  /** The x axis: one label per point (e.g. dates), as the table shows them. */
  labels: readonly string[];
  /** Shorter labels for the axis under the chart; the first, the middle and the last are drawn. */
  axisLabels?: readonly string[];
  series: readonly Series[];
  /** How a value reads in the table and on the axis (e.g. money). */
  format(value: number): string;
}

export function Chart(props: ChartProps) {
  const id = useId();
  const { labels, series, format } = props;
  const { top, bottom, slot, x, y } = chartScale(
    labels.length,
    series.flatMap((s) => s.values),
  );
  const zero = y(0);
  const barSeries = series.filter((s) => s.kind === 'bars');
  const barWidth = Math.max(1, (slot * 0.8) / Math.max(1, barSeries.length));
  const axis = props.axisLabels ?? labels;
  const ticks = axisTicks(labels.length);
  return (
    <figure class="chart" aria-labelledby={`${id}-title`}>
      <figcaption>
        <h3 id={`${id}-title`}>{props.title}</h3>
        <p id={`${id}-summary`}>{props.summary}</p>
      </figcaption>
      <ul class="legend" aria-hidden="true">
        {series.map((s) => (
          <li key={s.name}>
            <span class={`swatch ${s.kind}`} style={{ background: s.color }} />
            {s.name}
          </li>
        ))}
      </ul>
      <svg
        viewBox={`0 0 ${CHART_WIDTH} ${CHART_HEIGHT}`}
        role="img"
        aria-labelledby={`${id}-title ${id}-summary`}
      >
        <title>{props.title}</title>
        {[bottom, (top + bottom) / 2, top].map((value) => (
          <g key={value} class="grid">
            <line x1={PLOT_LEFT} x2={PLOT_RIGHT} y1={y(value)} y2={y(value)} />
            <text x={PLOT_LEFT - 6} y={y(value)} text-anchor="end" dominant-baseline="middle">
              {format(value)}
            </text>
          </g>
        ))}
        {barSeries.map((s, which) =>
          s.values.map((value, index) =>
            value === null ? null : (
              <rect
                key={`${s.name}-${labels[index]}`}
                class="point"
                data-series={s.name}
                data-label={labels[index]}
                data-value={value}
                x={x(index) - (barWidth * barSeries.length) / 2 + barWidth * which}
                width={barWidth}
                y={Math.min(y(value), zero)}
                height={Math.abs(zero - y(value))}
                fill={s.color}
              />
            ),
          ),
        )}
        {series
          .filter((s) => s.kind === 'line')
          .map((s) => (
            <g key={s.name}>
              <polyline
                fill="none"
                stroke={s.color}
                stroke-width="2"
                vector-effect="non-scaling-stroke"
                points={s.values
                  .map((value, index) => (value === null ? null : `${x(index)},${y(value)}`))
                  .filter(Boolean)
                  .join(' ')}
              />
              {s.values.map((value, index) =>
                value === null ? null : (
                  <circle
                    key={`${s.name}-${labels[index]}`}
                    class="point"
                    data-series={s.name}
                    data-label={labels[index]}
                    data-value={value}
                    cx={x(index)}
                    cy={y(value)}
                    r="2.5"
                    fill={s.color}
                  />
                ),
              )}
            </g>
          ))}
        {ticks.map((index) => (
          <text
            key={index}
            class="axis"
            x={x(index)}
            y={CHART_HEIGHT - 8}
            text-anchor={index === 0 ? 'start' : index === labels.length - 1 ? 'end' : 'middle'}
          >
            {axis[index]}
          </text>
        ))}
      </svg>
      <details class="chart-data">
        <summary>The data as a table</summary>
        <TableWrap label={`${props.title}: the data`}>
          <table>
            <caption class="visually-hidden">{props.title}</caption>
            <thead>
              <tr>
                <th scope="col">Date</th>
                {series.map((s) => (
                  <th key={s.name} scope="col" class="number">
                    {s.name}
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {labels.map((label, index) => (
                <tr key={label}>
                  <th scope="row">{label}</th>
                  {series.map((s) => {
                    const value = s.values[index];
                    return (
                      <td key={s.name} class="number">
                        {value === null || value === undefined ? '—' : format(value)}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </TableWrap>
      </details>
    </figure>
  );
}
