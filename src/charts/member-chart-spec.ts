import type { ChartPoint, ChartSeries, MemberChart } from './chart-data.js';
import { formatValue, peakOf } from './chart-words.js';
import { colorOf } from './member-colors.js';

/** A Vega-Lite unit or layer spec as plain JSON (vega-lite's own types are checked at compile). */
export type VegaLiteJson = Record<string, unknown>;

export const CHART_FONT = 'DejaVu Sans';
const THRESHOLD_COLOR = '#333333';
/** Room above the tallest bar or line (or the threshold line). */
const HEADROOM = 1.18;
const LINE_WIDTH = 2;
const HIGHLIGHT_LINE_WIDTH = 3.5;
/** Fewer points than this per series get dots on the line, so a short series is still visible. */
const DOTS_BELOW = 25;
const DAY_MS = 24 * 3600_000;
/** A line needs no more points than this many chart units apart: a day per minute is 1,440 on 620. */
const PX_PER_POINT = 1.5;

/**
 * At most `max` points, each the highest of its run of neighbours: a latency spike must survive
 * the thinning (an average would hide it). Rendering cost grows with points (bench: a day per minute).
 */
export function keepPeaks(points: readonly ChartPoint[], max: number): readonly ChartPoint[] {
  if (points.length <= max) return points;
  const step = Math.ceil(points.length / max);
  const out: ChartPoint[] = [];
  for (let i = 0; i < points.length; i += step) {
    const run = points.slice(i, i + step);
    out.push(run.reduce((best, p) => (p.value > best.value ? p : best)));
  }
  return out;
}

export interface PanelSize {
  widthPx: number;
  heightPx: number;
}

/** One value per member (the probe window) is a bar chart; longer series are lines over time. */
export function chartKind(chart: MemberChart): 'bar' | 'line' {
  return chart.series.every((s) => s.points.length <= 1) ? 'bar' : 'line';
}

/** The layers of one member chart: bars or lines, and the threshold's dashed line. */
export function memberChartLayers(
  chart: MemberChart,
  colors: Readonly<Record<string, string>>,
  size: PanelSize,
): VegaLiteJson {
  const names = chart.series.map((s) => s.name);
  const keys = chart.series.map((s, i) =>
    memberKey(i, chartKind(chart) === 'bar' ? barLines(chart, s) : [s.name]),
  );
  const color = {
    field: 'member',
    type: 'nominal',
    scale: { domain: keys, range: names.map((n) => colorOf(colors, n) ?? '#4c78a8') },
  };
  const yMax = HEADROOM * Math.max(chart.threshold?.value ?? 0, ...chart.series.map(peakOf), 1e-9);
  const y = {
    field: 'value',
    type: 'quantitative',
    title: `${chart.metric}${chart.unit === 'count' ? '' : ` (${chart.unit})`}`,
    scale: { domain: [0, yMax], nice: false },
  };
  const layers =
    chartKind(chart) === 'bar'
      ? barLayers(chart, keys, color, y)
      : lineLayers(
          size,
          chart,
          color,
          y,
          chart.series.some((s) => s.points.length < DOTS_BELOW),
        );
  return {
    width: size.widthPx,
    height: size.heightPx,
    layer: [...layers, ...thresholdLayers(chart)],
  };
}

/** Each member's numbers go under its name (no labels over the bars to collide with the threshold). */
function barLines(chart: MemberChart, s: ChartSeries): string[] {
  const point = s.points[0];
  const lines = point
    ? [s.name, formatValue(point.value, chart.unit), point.note ?? '']
    : [s.name, 'no data'];
  return lines.filter((l) => l !== '');
}

function barLayers(chart: MemberChart, keys: string[], color: VegaLiteJson, y: VegaLiteJson): VegaLiteJson[] {
  const rows = chart.series.map((s, i) => ({ member: keys[i], value: s.points[0]?.value ?? 0 }));
  const axis = {
    title: null,
    labelAngle: 0,
    labelFontSize: 12,
    labelLineHeight: 15,
    labelPadding: 6,
    labelLimit: 0,
    labelExpr: `split(${LABEL_OF_KEY}, ${JSON.stringify(SEP)})`,
  };
  return [
    {
      data: { values: rows },
      mark: { type: 'bar', width: { band: 0.55 } },
      encoding: {
        x: { field: 'member', type: 'nominal', sort: keys, axis },
        y,
        color: { ...color, legend: null },
      },
    },
  ];
}

function lineLayers(
  size: PanelSize,
  chart: MemberChart,
  color: VegaLiteJson,
  y: VegaLiteJson,
  dots: boolean,
): VegaLiteJson[] {
  const rows = chart.series.flatMap((s: ChartSeries, i) =>
    withGaps(keepPeaks(s.points, Math.ceil(size.widthPx / PX_PER_POINT))).map((p) => ({
      member: memberKey(i, [s.name]),
      at: p.atMs,
      value: p.value,
      w: chart.highlight.includes(s.name) ? HIGHLIGHT_LINE_WIDTH : LINE_WIDTH,
    })),
  );
  const spanMs = chart.xDomain
    ? chart.xDomain[1] - chart.xDomain[0]
    : Math.max(0, ...rows.map((r) => r.at)) - Math.min(...rows.map((r) => r.at));
  const x = {
    field: 'at',
    type: 'temporal',
    title: null,
    scale: { type: 'utc', ...(chart.xDomain ? { domain: [...chart.xDomain] } : {}) },
    // Times are UTC, like the rest of the report: an on-call rota spans time zones.
    axis: {
      labelExpr: `utcFormat(datum.value, '${spanMs > 2 * DAY_MS ? '%b %d' : '%H:%M'}')`,
      labelOverlap: true,
    },
  };
  return [
    {
      data: { values: rows },
      mark: { type: 'line', point: dots ? { size: 28 } : false },
      encoding: {
        x,
        y,
        color: {
          ...color,
          legend: {
            title: null,
            orient: 'bottom',
            direction: 'horizontal',
            symbolType: 'stroke',
            labelExpr: LABEL_OF_KEY,
          },
        },
        strokeWidth: { field: 'w', type: 'quantitative', scale: null, legend: null },
      },
    },
  ];
}

/** Checks further apart than this many typical intervals are a gap (a watch that stopped, a member down). */
const GAP_INTERVALS = 3;

/**
 * The points with a null between two that are more than GAP_INTERVALS typical (median) intervals
 * apart: Vega-Lite breaks a line at a null, so a gap in the history shows as a gap, not a slope.
 */
function withGaps(points: readonly ChartPoint[]): Array<{ atMs: number; value: number | null }> {
  const steps = points.slice(1).map((p, i) => p.atMs - (points[i]?.atMs ?? p.atMs));
  const typical = [...steps].sort((a, b) => a - b)[Math.floor(steps.length / 2)] ?? 0;
  if (steps.length < 2 || typical <= 0) return [...points];
  return points.flatMap((p, i) => {
    const before = points[i - 1];
    const gap = before !== undefined && p.atMs - before.atMs > GAP_INTERVALS * typical;
    return gap ? [{ atMs: (before.atMs + p.atMs) / 2, value: null }, p] : [p];
  });
}

function thresholdLayers(chart: MemberChart): VegaLiteJson[] {
  const bound = chart.threshold;
  if (!bound) return [];
  const data = { values: [{ value: bound.value }] };
  const y = { field: 'value', type: 'quantitative' };
  return [
    {
      data,
      mark: { type: 'rule', strokeDash: [6, 4], strokeWidth: 1.5, color: THRESHOLD_COLOR },
      encoding: { y },
    },
  ];
}

/** Title, fonts and the white background every chart shares. */
export function chartConfig(): VegaLiteJson {
  return {
    font: CHART_FONT,
    background: '#ffffff',
    view: { stroke: null },
    axis: { labelFontSize: 12, titleFontSize: 12, titleFontWeight: 'normal', gridColor: '#e8e8e8' },
    legend: { labelFontSize: 12 },
    title: { anchor: 'start', fontSize: 15, subtitleFontSize: 12, subtitleColor: '#555555' },
  };
}

/**
 * Vega never sees a member name as a name. A name such as `__proto__` or `constructor` broke its
 * lookups as a data value, and as a string literal in an expression it ended the render ("Operator
 * not defined"), after which resvg aborted the whole process on the broken SVG. So each member's
 * value is `<index><SEP><label lines>` (unique, never a property name) and the axis and legend
 * draw it with one fixed expression that cuts the index off: no name is ever part of an expression.
 * SEP is a private-use character (legal in the SVG's aria labels, which hold the values):
 * cappedLabels drops those and control characters from names, so it cannot occur in a label.
 */
const SEP = '\ue000';
const LABEL_OF_KEY = `slice(datum.value, indexof(datum.value, ${JSON.stringify(SEP)}) + 1)`;

/** The value Vega sees for the `i`th member, carrying the lines its label shows. */
function memberKey(i: number, lines: readonly string[]): string {
  return `${i}${SEP}${lines.join(SEP)}`;
}
