/**
 * What a chart shows, as plain data: one series per member (timestamps and values), a threshold,
 * a title and a unit. The probe window gives one point per member; history (later) gives many. The
 * renderers know nothing about etcd, probes or Slack.
 */

/** `ms` values are milliseconds; `count` values are plain numbers (leader changes, failed sends). */
export type ChartUnit = 'ms' | 'count' | 'MB';

export interface ChartPoint {
  atMs: number;
  value: number;
  /** Shown beside the value in a one-point chart, e.g. `mean 120 ms`. */
  note?: string;
}

export interface ChartSeries {
  /** The member's name: the bar's label or the line's legend entry. */
  name: string;
  points: readonly ChartPoint[];
}

export interface ChartThreshold {
  value: number;
  /** Said under the title beside "dashed line:", e.g. `etcd FAQ: p99 < 10 ms`. */
  label: string;
}

export interface MemberChart {
  /** The file name's stem and the first words of the title, e.g. the cluster name. */
  cluster: string;
  /** What is measured, lower case: `wal fsync p99`. */
  metric: string;
  unit: ChartUnit;
  /** Over what time: `over the 3 s probe window at 14:02:07 UTC`. */
  period: string;
  series: readonly ChartSeries[];
  threshold?: ChartThreshold;
  /** The members the finding names: drawn in warm colours and thicker, the rest in cool ones. */
  highlight: readonly string[];
  /** A line chart's time axis, epoch ms (the last hour of history); default: the data's extent. */
  xDomain?: readonly [number, number];
}

/** A rendered chart, ready to upload. */
export interface ChartImage {
  png: Buffer;
  widthPx: number;
  heightPx: number;
  filename: string;
  /** Says what the chart shows and which member stands out (the Slack file title). */
  title: string;
  /** The numbers in words, for screen readers (Slack `alt_txt`, at most 1000 characters). */
  altText: string;
  /** The colour of each member's series, `#rrggbb`. */
  colors: Readonly<Record<string, string>>;
  /** Where the data is drawn, in PNG pixels (the first panel for small multiples). */
  plot: { x: number; y: number; width: number; height: number };
}
