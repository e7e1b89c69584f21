import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { Analytics, EquityPoint } from '../../api/types';
import { formatAmount, formatMoney } from '../../components/format';
import { ErrorMessage } from '../../components/QueryState';

/**
 * At most this many points are asked for: the server downsamples any range to it (keeping each
 * bucket's low and high, so a breach stays visible), which is more than a chart's width in pixels.
 */
export const EQUITY_MAX_POINTS = 1000;

export interface Levels {
  dailyFloor?: number;
  totalFloor?: number;
  target?: number;
}

/**
 * The breach and target levels from the analytics' headroom: the loss limits as they are (their
 * remaining room stops at 0 once equity is below them), the target relative to equity now.
 */
export function levelsOf(analytics: Analytics | undefined): Levels {
  if (!analytics) return {};
  const { equity, headroom } = analytics;
  return {
    dailyFloor: headroom.daily_loss_limit,
    totalFloor: headroom.total_loss_limit,
    target: headroom.profit_target_remaining > 0 ? equity + headroom.profit_target_remaining : undefined,
  };
}

function describe(number: number, points: EquityPoint[], levels: Levels, currency: string): string {
  if (points.length === 0) return `Equity curve of account ${number}: no history yet.`;
  const first = points[0]!;
  const last = points[points.length - 1]!;
  const low = Math.min(...points.map((p) => p.equity));
  const high = Math.max(...points.map((p) => p.equity));
  const parts = [
    `Equity curve of account ${number}: ${points.length} points from ${first.time.slice(0, 10)} to ${last.time.slice(0, 10)}`,
    `equity now ${formatMoney(last.equity)}, lowest ${formatMoney(low)}, highest ${formatMoney(high)}`,
  ];
  if (levels.dailyFloor !== undefined) parts.push(`daily loss limit at ${formatMoney(levels.dailyFloor)}`);
  if (levels.totalFloor !== undefined) parts.push(`total loss limit at ${formatMoney(levels.totalFloor)}`);
  if (levels.target !== undefined) parts.push(`profit target at ${formatMoney(levels.target)}`);
  return `${parts.join('; ')}. Amounts in ${currency}, times in UTC.`;
}

const COLORS = { equity: '#1f5fd6', balance: '#6b7687', daily: '#c2410c', total: '#b42318', target: '#137333' };

const wholeMoney = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
/** A curve of a few points (a new account) is drawn with its points, so one point is still seen. */
const FEW_POINTS = 60;
/** A curve that spans less than this is widened around its middle, so its time axis reads sensibly. */
const MIN_SPAN_SECONDS = 3600;

interface LevelLine {
  label: string;
  value: number;
  color: string;
}

function levelLines(levels: Levels): LevelLine[] {
  const lines: LevelLine[] = [];
  if (levels.dailyFloor !== undefined) lines.push({ label: 'Daily loss limit', value: levels.dailyFloor, color: COLORS.daily });
  if (levels.totalFloor !== undefined) lines.push({ label: 'Total loss limit', value: levels.totalFloor, color: COLORS.total });
  if (levels.target !== undefined) lines.push({ label: 'Profit target', value: levels.target, color: COLORS.target });
  return lines;
}

/** The levels are drawn across the whole plot, whatever the span of the curve, as dashed lines. */
function drawLevels(lines: LevelLine[]): (u: uPlot) => void {
  return (u) => {
    const { ctx, bbox } = u;
    ctx.save();
    ctx.lineWidth = 1.5 * devicePixelRatio;
    ctx.setLineDash([6 * devicePixelRatio, 4 * devicePixelRatio]);
    for (const line of lines) {
      const y = Math.round(u.valToPos(line.value, 'y', true));
      ctx.strokeStyle = line.color;
      ctx.beginPath();
      ctx.moveTo(bbox.left, y);
      ctx.lineTo(bbox.left + bbox.width, y);
      ctx.stroke();
    }
    ctx.restore();
  };
}

/**
 * The time axis in UTC and 24-hour time, like every time on the page (formatTime): uPlot's own
 * tick table with its 12-hour templates replaced. Columns: the tick spacing it applies from, the
 * tick's text, then the text added when the year, month, day, hour, minute or second changed.
 */
const UTC_TIME_TICKS: uPlot.Axis.Values = [
  [3600 * 24 * 365, '{YYYY}', null, null, null, null, null, null, 1],
  [3600 * 24 * 28, '{MMM}', '\n{YYYY}', null, null, null, null, null, 1],
  [3600 * 24, '{D} {MMM}', '\n{YYYY}', null, null, null, null, null, 1],
  [3600, '{HH}:{mm}', '\n{D} {MMM} {YYYY}', null, '\n{D} {MMM}', null, null, null, 1],
  [60, '{HH}:{mm}', '\n{D} {MMM} {YYYY}', null, '\n{D} {MMM}', null, null, null, 1],
  [1, ':{ss}', '\n{D} {MMM} {YYYY} {HH}:{mm}', null, '\n{D} {MMM} {HH}:{mm}', null, '\n{HH}:{mm}', null, 1],
];

function chartOptions(width: number, lines: LevelLine[], pointCount: number, currency: string): uPlot.Options {
  const few = pointCount <= FEW_POINTS;
  return {
    width,
    // Dates are drawn in UTC, whatever the viewer's time zone.
    tzDate: (seconds) => uPlot.tzDate(new Date(seconds * 1000), 'Etc/UTC'),
    height: width < 500 ? 220 : 300,
    series: [
      {},
      { label: 'Equity', stroke: COLORS.equity, width: 2, points: { show: few, size: 6, fill: COLORS.equity } },
      { label: 'Balance', stroke: COLORS.balance, width: 1, points: { show: few, size: 4 } },
    ],
    scales: {
      x: {
        time: true,
        // From the data itself: for a single point uPlot passes a day's span of its own.
        range: (u, min, max) => {
          const times = u.data[0];
          const first = times[0];
          const last = times[times.length - 1];
          if (first === undefined || last === undefined) return [min, max];
          if (last - first >= MIN_SPAN_SECONDS) return [first, last];
          const middle = (first + last) / 2;
          return [middle - MIN_SPAN_SECONDS / 2, middle + MIN_SPAN_SECONDS / 2];
        },
      },
      // The levels are always in view, with a margin above and below.
      y: {
        range: (_u, min, max) => {
          const low = Math.min(min, ...lines.map((l) => l.value));
          const high = Math.max(max, ...lines.map((l) => l.value));
          const pad = Math.max((high - low) * 0.08, 1);
          return [low - pad, high + pad];
        },
      },
    },
    axes: [
      { values: UTC_TIME_TICKS, label: 'Time (UTC)', labelSize: 24 },
      { size: 72, values: (_u, ticks) => ticks.map((t) => wholeMoney.format(t)), label: currency, labelSize: 24 },
    ],
    legend: { live: false },
    cursor: { drag: { x: true, y: false } },
    hooks: { draw: [drawLevels(lines)] },
  };
}

function chartData(points: EquityPoint[]): uPlot.AlignedData {
  return [points.map((p) => Date.parse(p.time) / 1000), points.map((p) => p.equity), points.map((p) => p.balance)];
}

/**
 * The curve runs up to now: the minute buckets end at the last change, and the analytics carry the
 * live equity and balance, so the line is drawn on to the present instead of stopping short.
 */
function upToNow(points: EquityPoint[], analytics: Analytics | undefined): EquityPoint[] {
  const last = points[points.length - 1];
  if (!last || !analytics) return points;
  const now = Date.now();
  if (now - Date.parse(last.time) < 1000) return points;
  return [...points, { time: new Date(now).toISOString(), equity: analytics.equity, balance: analytics.balance }];
}

/** The equity curve drawn from /equity, with the breach and target levels as dashed lines. */
export function EquityChart({ number, analytics, analyticsSettled, currency }: { number: number; analytics: Analytics | undefined; analyticsSettled: boolean; currency: string }) {
  const equity = useQuery({ queryKey: [...queryKeys.account(number), 'equity'], queryFn: () => panelApi.accounts.equity(number, EQUITY_MAX_POINTS) });
  const holder = useRef<HTMLDivElement>(null);
  const [drawn, setDrawn] = useState(false);
  const points = equity.data?.data;
  const levels = levelsOf(analytics);

  useEffect(() => {
    const element = holder.current;
    // Drawn once the analytics are in (or failed): the levels and the point at now come from them.
    if (!element || !points || points.length === 0 || !analyticsSettled) return;
    const drawnPoints = upToNow(points, analytics);
    const chart = new uPlot(chartOptions(element.clientWidth, levelLines(levels), drawnPoints.length, currency), chartData(drawnPoints), element);
    setDrawn(true);
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: element.clientWidth < 500 ? 220 : 300 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
      setDrawn(false);
    };
    // levels derive from analytics: the chart is redrawn when the points or the analytics change
  }, [points, analytics, analyticsSettled, currency]);

  if (equity.error) return <ErrorMessage error={equity.error}>The equity curve could not be loaded: </ErrorMessage>;
  const label = points ? describe(number, points, levels, currency) : `Equity curve of account ${number}: loading.`;
  return (
    <figure className="chart" role="img" aria-label={label} data-state={drawn ? 'drawn' : points && points.length === 0 ? 'empty' : 'loading'}>
      {points && points.length === 0 ? <p className="muted">No equity history yet.</p> : <div ref={holder} className="chart-area" />}
      {points && points.length > 0 ? (
        <ul className="chart-levels">
          {levelLines(levels).map((line) => (
            <li key={line.label} className={`level-${line.label.split(' ')[0]?.toLowerCase() ?? ''}`}>
              {line.label} {formatAmount(line.value, currency)}
            </li>
          ))}
        </ul>
      ) : null}
    </figure>
  );
}
