import type { RatePoint } from '../lib/rate';
import { fmtCompact, fmtDuration } from '../lib/format';

/**
 * The delivery rate over the task's whole life, from its first recorded
 * sample: recipients confirmed per second (already smoothed by the caller),
 * as an SVG area chart (no chart library: one path and a few axis labels are
 * all it needs). `live`: the right edge is now; else the task's last sample.
 * `empty` says why there is no curve when there is none.
 */
export function RateChart({
  points,
  live,
  empty,
  width = 640,
  height = 140,
}: {
  points: RatePoint[];
  live: boolean;
  empty: string;
  width?: number;
  height?: number;
}) {
  const pad = { left: 44, right: 8, top: 8, bottom: 18 };
  const w = width - pad.left - pad.right;
  const h = height - pad.top - pad.bottom;
  if (points.length < 2) {
    return (
      <svg className="chart" viewBox={`0 0 ${width} ${height}`} role="img" aria-label="delivery rate chart">
        <text x={width / 2} y={height / 2} textAnchor="middle" className="chart-empty">
          {empty}
        </text>
      </svg>
    );
  }
  const t0 = points[0]!.at;
  const t1 = points[points.length - 1]!.at;
  const max = Math.max(1, ...points.map((p) => p.perSecond));
  const x = (at: number) => pad.left + ((at - t0) / Math.max(1, t1 - t0)) * w;
  const y = (v: number) => pad.top + h - (v / max) * h;
  const line = points
    .map((p, i) => `${i === 0 ? 'M' : 'L'}${x(p.at).toFixed(1)},${y(p.perSecond).toFixed(1)}`)
    .join(' ');
  const area = `${line} L${x(t1).toFixed(1)},${y(0)} L${x(t0).toFixed(1)},${y(0)} Z`;
  return (
    <svg
      className="chart"
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label="delivery rate chart"
      data-points={points.length}
    >
      <line x1={pad.left} x2={width - pad.right} y1={y(max)} y2={y(max)} className="gridline" />
      <line x1={pad.left} x2={width - pad.right} y1={y(max / 2)} y2={y(max / 2)} className="gridline" />
      <line x1={pad.left} x2={width - pad.right} y1={y(0)} y2={y(0)} className="axis" />
      <text x={pad.left - 6} y={y(max) + 4} textAnchor="end" className="tick">
        {fmtCompact(max)}/s
      </text>
      <text x={pad.left - 6} y={y(0) + 4} textAnchor="end" className="tick">
        0
      </text>
      <text x={width - pad.right} y={height - 4} textAnchor="end" className="tick">
        {live ? 'now' : 'last sample'}
      </text>
      <text x={pad.left} y={height - 4} className="tick">
        first sample, {fmtDuration(t1 - t0)} {live ? 'ago' : 'before the last'}
      </text>
      <path d={area} className="area" />
      <path d={line} className="line" />
    </svg>
  );
}
