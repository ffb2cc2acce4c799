import { priceBoxes, priceScale } from '../lib/price-chart.ts';
import { moneyIn } from '../lib/format.ts';
import { HeadRow } from './common.tsx';
import type { PriceStatsEntry } from '../types.ts';

/** Box plots of `price_stats`, one line per statistics entry, with the numbers as a table for screen readers. */
export function PriceChart({ stats }: { stats: PriceStatsEntry[] | null | undefined }) {
  const boxes = priceBoxes(stats);
  if (!boxes.length) return <p class="hint">No price statistics.</p>;
  const width = 220;
  const left = 110;
  const line = 26;
  const { x, max } = priceScale(boxes, width);
  const height = boxes.length * line + 18;
  // the axis in the boxes' currency where they share one; figures alone where they do not
  const currencies = new Set(boxes.map((b) => b.currency));
  const axis = (v: number) => (currencies.size === 1 ? moneyIn(v, boxes[0]!.currency) : String(Math.round(v * 100) / 100));
  return (
    <figure class="price-chart">
      <svg viewBox={`0 0 ${left + width + 10} ${height}`} role="img" aria-label={`Price statistics, up to ${axis(max)}`}>
        {boxes.map((b, i) => {
          const y = i * line + 12;
          return (
            <g key={b.label}>
              <text x={0} y={y + 4} class="axis">
                {b.label}
              </text>
              <line x1={left + x(b.min)} x2={left + x(b.max)} y1={y} y2={y} class="whisker" />
              <rect x={left + x(b.q1)} y={y - 7} width={Math.max(1, x(b.q3) - x(b.q1))} height={14} class="box" />
              <line x1={left + x(b.median)} x2={left + x(b.median)} y1={y - 8} y2={y + 8} class="median" />
              {b.latest !== null ? <circle cx={left + x(b.latest)} cy={y} r={3} class="latest" /> : null}
            </g>
          );
        })}
        <text x={left} y={height - 2} class="axis">
          {axis(0).replace(/\.00$/, '')}
        </text>
        <text x={left + width} y={height - 2} class="axis" text-anchor="end">
          {axis(max)}
        </text>
      </svg>
      {/* the figures in a table of their own, each row headed by its period; then a short caption, the figure's last
          child, saying what the marks mean (the caption held the table: the figure's name was the whole table, h240) */}
      <table class="mini">
        <caption class="sr-only">Price statistics by period</caption>
        <HeadRow columns={['Period', 'Median', 'Range', 'Latest']} />
        <tbody>
          {boxes.map((b) => (
            <tr key={b.label}>
              <th scope="row">{b.label}</th>
              <td>{moneyIn(b.median, b.currency)}</td>
              <td>
                {moneyIn(b.min, b.currency)}–{moneyIn(b.max, b.currency)}
              </td>
              <td>{b.latest !== null ? moneyIn(b.latest, b.currency) : '—'}</td>
            </tr>
          ))}
        </tbody>
      </table>
      <figcaption class="hint">Price statistics: the line spans lowest to highest, the box the middle half, the dark bar the median, the red dot the latest sale.</figcaption>
    </figure>
  );
}
