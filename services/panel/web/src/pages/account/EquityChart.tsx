import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { panelApi, queryKeys } from '../../api/panel-api';
import type { Analytics, EquityPoint } from '../../api/types';
import { formatMoney } from '../../components/format';
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

/** The breach and target levels, as the analytics' headroom puts them relative to equity now. */
export function levelsOf(analytics: Analytics | undefined): Levels {
  if (!analytics) return {};
  const { equity, headroom } = analytics;
  return {
    dailyFloor: equity - headroom.daily_loss_remaining,
    totalFloor: equity - headroom.total_loss_remaining,
    target: headroom.profit_target_remaining > 0 ? equity + headroom.profit_target_remaining : undefined,
  };
}

function describe(number: number, points: EquityPoint[], levels: Levels): string {
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
  return `${parts.join('; ')}.`;
}

const COLORS = { equity: '#1f5fd6', balance: '#6b7687', daily: '#c2410c', total: '#b42318', target: '#137333' };

function chartOptions(width: number, levels: Levels): uPlot.Options {
  const level = (label: string, stroke: string): uPlot.Series => ({ label, stroke, width: 1.5, dash: [6, 4], points: { show: false } });
  const series: uPlot.Series[] = [
    {},
    { label: 'Equity', stroke: COLORS.equity, width: 2, points: { show: false } },
    { label: 'Balance', stroke: COLORS.balance, width: 1, points: { show: false } },
  ];
  if (levels.dailyFloor !== undefined) series.push(level('Daily loss limit', COLORS.daily));
  if (levels.totalFloor !== undefined) series.push(level('Total loss limit', COLORS.total));
  if (levels.target !== undefined) series.push(level('Profit target', COLORS.target));
  return {
    width,
    height: width < 500 ? 220 : 300,
    series,
    scales: { x: { time: true } },
    axes: [{}, { size: 80, values: (_u, ticks) => ticks.map((t) => formatMoney(t)) }],
    legend: { live: false },
    cursor: { drag: { x: true, y: false } },
  };
}

function chartData(points: EquityPoint[], levels: Levels): uPlot.AlignedData {
  const xs = points.map((p) => Date.parse(p.time) / 1000);
  const constant = (value: number) => xs.map(() => value);
  const data: uPlot.AlignedData = [xs, points.map((p) => p.equity), points.map((p) => p.balance)];
  for (const value of [levels.dailyFloor, levels.totalFloor, levels.target]) if (value !== undefined) data.push(constant(value));
  return data;
}

/** The equity curve drawn from /equity, with the breach and target levels as dashed lines. */
export function EquityChart({ number, analytics }: { number: number; analytics: Analytics | undefined }) {
  const equity = useQuery({ queryKey: [...queryKeys.account(number), 'equity'], queryFn: () => panelApi.accounts.equity(number, EQUITY_MAX_POINTS) });
  const holder = useRef<HTMLDivElement>(null);
  const figure = useRef<HTMLElement>(null);
  const points = equity.data?.data;
  const levels = levelsOf(analytics);

  useEffect(() => {
    const element = holder.current;
    if (!element || !points || points.length === 0) return;
    const chart = new uPlot(chartOptions(element.clientWidth, levels), chartData(points, levels), element);
    figure.current?.setAttribute('data-state', 'drawn');
    const resize = new ResizeObserver(() => chart.setSize({ width: element.clientWidth, height: element.clientWidth < 500 ? 220 : 300 }));
    resize.observe(element);
    return () => {
      resize.disconnect();
      chart.destroy();
    };
    // levels derive from analytics: the chart is redrawn when the points or the analytics change
  }, [points, analytics]);

  if (equity.error) return <ErrorMessage error={equity.error}>The equity curve could not be loaded: </ErrorMessage>;
  const label = points ? describe(number, points, levels) : `Equity curve of account ${number}: loading.`;
  return (
    <figure ref={figure} className="chart" role="img" aria-label={label} data-state={points && points.length === 0 ? 'empty' : 'loading'}>
      {points && points.length === 0 ? <p className="muted">No equity history yet.</p> : <div ref={holder} className="chart-area" />}
    </figure>
  );
}
