import { formatBytes, formatList, formatMs } from '../format.js';
import type { ChartSeries, ChartUnit, MemberChart } from './chart-data.js';

/** Slack refuses longer alt text (`alt_txt_too_large`: "longer than the limit of 1000 character"). */
export const ALT_TEXT_MAX = 1000;

export function formatValue(value: number, unit: ChartUnit): string {
  if (unit === 'ms') return formatMs(value);
  if (unit === 'MB') return formatBytes(value * 1e6);
  return String(Math.round(value * 10) / 10);
}

/** The highest value of a series (the bar, or the line's peak). */
export function peakOf(series: ChartSeries): number {
  return Math.max(0, ...series.points.map((p) => p.value));
}

/** The members whose series cross the threshold, highest first. */
export function membersAbove(chart: MemberChart): string[] {
  const bound = chart.threshold?.value;
  if (bound === undefined) return [];
  return [...chart.series]
    .filter((s) => peakOf(s) > bound)
    .sort((a, b) => peakOf(b) - peakOf(a))
    .map((s) => s.name);
}

/**
 * `prod: wal fsync p99 per member (etcd-2 above 10 ms)`: the members the finding names, when it names
 * any (a busy shared disk can lift every p99 over the bound while one member is the outlier).
 */
export function chartTitle(chart: MemberChart): string {
  const over = membersAbove(chart);
  const above = chart.highlight.length > 0 ? over.filter((m) => chart.highlight.includes(m)) : over;
  const bound = chart.threshold ? formatValue(chart.threshold.value, chart.unit) : '';
  const tail = above.length > 0 ? ` (${formatList(above)} above ${bound})` : '';
  return `${chart.cluster}: ${chart.metric} per member${tail}`;
}

/**
 * `Bar chart of wal fsync p99 per member over the 3 s probe window: etcd-2 186 ms (mean 120 ms),
 * above the 10 ms bound; etcd-1 2.1 ms; etcd-3 2.4 ms.` Highest first.
 */
export function altText(chart: MemberChart, kind: 'bar' | 'line'): string {
  const bound = chart.threshold;
  const parts = [...chart.series]
    .sort((a, b) => peakOf(b) - peakOf(a))
    .map((s) => describeSeries(s, chart, kind));
  const shape = kind === 'bar' ? 'Bar chart' : 'Line chart';
  const line = bound ? ` Dashed line: ${bound.label}.` : '';
  const text = `${shape} of ${chart.metric} per member of ${chart.cluster} ${chart.period}: ${parts.join('; ')}.${line}`;
  return text.length <= ALT_TEXT_MAX ? text : `${text.slice(0, ALT_TEXT_MAX - 1)}…`;
}

function describeSeries(s: ChartSeries, chart: MemberChart, kind: 'bar' | 'line'): string {
  const peak = peakOf(s);
  const last = s.points.at(-1);
  const value =
    kind === 'bar' || !last
      ? `${formatValue(peak, chart.unit)}${last?.note ? ` (${last.note})` : ''}`
      : `peak ${formatValue(peak, chart.unit)}, last ${formatValue(last.value, chart.unit)}`;
  const above = chart.threshold && peak > chart.threshold.value;
  const bound = chart.threshold ? formatValue(chart.threshold.value, chart.unit) : '';
  return `${s.name} ${s.points.length === 0 ? 'no data' : value}${above ? `, above the ${bound} bound` : ''}`;
}

/** `over the 3 s probe window at 14:02:07 UTC · dashed line: etcd FAQ: p99 < 10 ms`. */
export function chartSubtitle(chart: MemberChart): string {
  return chart.threshold ? `${chart.period} · dashed line: ${chart.threshold.label}` : chart.period;
}
