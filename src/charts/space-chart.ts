import { formatBytes, formatPercent } from '../format.js';
import type { SpaceReport } from '../space/space-report.js';
import type { ChartImage } from './chart-data.js';
import { type ChartRendererOptions, drawSpec } from './chart-renderer.js';
import { ALT_TEXT_MAX } from './chart-words.js';
import { chartConfig, type VegaLiteJson } from './member-chart-spec.js';
import { MAX_LABEL_CHARS, UNPRINTABLE } from './member-colors.js';
import { withDescription } from './png-text.js';

/** What the space chart draws: the bytes of the largest resources, and the quota to read them against. */
export interface SpaceChart {
  cluster: string;
  /** Largest first. */
  bars: ReadonlyArray<{ resource: string; bytes: number; share: number }>;
  quota: number | null;
  dbSize: number;
  /** `revision 1234, complete scan` / `partial scan: its time box ran out`. */
  note: string;
}

const TOP_BARS = 10;
/** A quota more than this many times the database is said, not drawn: the bars would be slivers beside it. */
const QUOTA_SCALE_LIMIT = 4;
const WIDTH_PX = 620;
const ROW_PX = 26;
const BAR_COLOR = '#4c78a8';
const QUOTA_COLOR = '#c0392b';
const DB_COLOR = '#333333';
/**
 * Resource names come from keys anyone with write access chose, so none is ever part of a Vega
 * expression (`constructor` as a string literal there broke the render: member-chart-spec.ts): each
 * bar's value is `<index><SEP><label>` and the axis cuts the index off with one fixed expression.
 * Labels are printable (UNPRINTABLE gone, so SEP cannot occur in one) and capped (MAX_LABEL_CHARS).
 */
const SEP = '\ue000';
const LABEL_OF_KEY = `slice(datum.value, indexof(datum.value, ${JSON.stringify(SEP)}) + 1)`;

function barLabel(resource: string): string {
  const printable = resource.replace(UNPRINTABLE, '');
  return printable.length > MAX_LABEL_CHARS ? `${printable.slice(0, MAX_LABEL_CHARS - 1)}…` : printable;
}

export function spaceChartOf(r: SpaceReport): SpaceChart {
  return {
    cluster: r.cluster,
    bars: r.byResource.slice(0, TOP_BARS).map(({ resource, bytes, share }) => ({ resource, bytes, share })),
    quota: r.quota,
    dbSize: r.dbSize,
    note: `revision ${r.revision}, ${r.scan.complete ? 'complete scan' : `partial scan (${r.scan.stoppedBecause ?? 'stopped'})`}`,
  };
}

export function spaceChartTitle(c: SpaceChart): string {
  const top = c.bars[0];
  return `${c.cluster}: what fills etcd${top ? ` (${top.resource} hold the most, ${formatBytes(top.bytes)})` : ''}`;
}

/** `Horizontal bar chart of … : events 600 MB (61 %); pods 200 MB (20 %). Red dashed line: the 2.1 GB quota.` */
export function spaceAltText(c: SpaceChart): string {
  const bars = c.bars.map((b) => `${b.resource} ${formatBytes(b.bytes)} (${formatPercent(b.share)})`);
  const db = ` Grey line: the ${formatBytes(c.dbSize)} database`;
  const quota =
    c.quota === null
      ? `${db}; the quota was not read.`
      : `${db}, ${formatPercent(c.dbSize / c.quota)} of the ${formatBytes(c.quota)} quota${c.quota <= QUOTA_SCALE_LIMIT * Math.max(1, c.dbSize, ...c.bars.map((b) => b.bytes)) ? ' (red dashed line)' : ''}.`;
  const text = `Horizontal bar chart of key and value bytes per resource in ${c.cluster}'s etcd, ${c.note}: ${bars.join('; ') || 'no keys'}.${quota}`;
  return text.length <= ALT_TEXT_MAX ? text : `${text.slice(0, ALT_TEXT_MAX - 1)}…`;
}

/** Vega-Lite: one bar per resource (by index: a name is never a property or code), the quota and db lines. */
export function spaceChartSpec(c: SpaceChart): VegaLiteJson {
  const keys = c.bars.map((b, i) => `${i}${SEP}${barLabel(b.resource)}`);
  const dataMax = Math.max(1, c.dbSize, ...c.bars.map((b) => b.bytes));
  const quotaDrawn = c.quota !== null && c.quota <= QUOTA_SCALE_LIMIT * dataMax ? c.quota : null;
  const xMax = Math.max(dataMax, quotaDrawn ?? 0) * 1.05;
  const x = {
    field: 'bytes',
    type: 'quantitative',
    title: 'key + value bytes',
    scale: { domain: [0, xMax], nice: false },
    axis: { labelExpr: "format(datum.value, '.2~s') + 'B'" },
  };
  const bars = {
    data: { values: c.bars.map((b, i) => ({ r: keys[i], bytes: b.bytes, text: formatBytes(b.bytes) })) },
    layer: [
      {
        mark: { type: 'bar', color: BAR_COLOR, height: { band: 0.7 } },
        encoding: {
          y: {
            field: 'r',
            type: 'nominal',
            sort: keys,
            title: null,
            axis: { labelLimit: 0, labelExpr: LABEL_OF_KEY },
          },
          x,
        },
      },
      {
        mark: { type: 'text', align: 'left', dx: 4, fontSize: 11, color: '#333333' },
        encoding: {
          y: { field: 'r', type: 'nominal', sort: keys },
          x: { field: 'bytes', type: 'quantitative' },
          text: { field: 'text' },
        },
      },
    ],
  };
  const rule = (value: number, color: string, dash: number[]) => ({
    data: { values: [{ bytes: value }] },
    mark: { type: 'rule', color, strokeWidth: 2, strokeDash: dash },
    encoding: { x: { field: 'bytes', type: 'quantitative' } },
  });
  const quotaWords =
    c.quota === null
      ? 'quota not read'
      : quotaDrawn
        ? `red dashed line: quota ${formatBytes(c.quota)}`
        : `quota ${formatBytes(c.quota)}, off the scale (the database is ${formatPercent(c.dbSize / c.quota)} of it)`;
  const subtitle = [quotaWords, `grey line: database ${formatBytes(c.dbSize)}`, c.note].join(' · ');
  return {
    width: WIDTH_PX,
    height: Math.max(4, c.bars.length) * ROW_PX,
    title: { text: spaceChartTitle(c), subtitle },
    layer: [
      bars,
      rule(c.dbSize, DB_COLOR, [2, 2]),
      ...(quotaDrawn ? [rule(quotaDrawn, QUOTA_COLOR, [6, 4])] : []),
    ],
    config: chartConfig(),
  };
}

/** The PNG (its alt text in a tEXt chunk too), ready to upload or save. */
export async function renderSpaceChart(r: SpaceReport, opts: ChartRendererOptions = {}): Promise<ChartImage> {
  const chart = spaceChartOf(r);
  const drawn = await drawSpec(spaceChartSpec(chart), opts);
  const alt = spaceAltText(chart);
  return {
    ...drawn,
    png: withDescription(drawn.png, alt),
    filename: `${r.cluster}-space.png`,
    title: spaceChartTitle(chart),
    altText: alt,
    colors: { bars: BAR_COLOR, quota: QUOTA_COLOR, database: DB_COLOR },
  };
}
