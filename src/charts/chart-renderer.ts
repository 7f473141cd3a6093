import { createRequire } from 'node:module';
import { Resvg } from '@resvg/resvg-js';
import type * as vega from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import type { ChartImage, MemberChart } from './chart-data.js';
import { altText, chartSubtitle, chartTitle } from './chart-words.js';
import { withDescription } from './png-text.js';
import { cappedLabels, memberColors } from './member-colors.js';
import {
  CHART_FONT,
  chartConfig,
  chartKind,
  memberChartLayers,
  type VegaLiteJson,
} from './member-chart-spec.js';
import { smallMultiplesSpec } from './small-multiples-spec.js';

export interface ChartRendererOptions {
  /**
   * TrueType files to draw text with. Default: DejaVu Sans from the `dejavu-fonts-ttf` package (the
   * same DejaVu 2.37 that Debian's fonts-dejavu-core ships), so text renders the same on every
   * machine, offline, with no system fonts at all.
   */
  fontFiles?: readonly string[];
  /** Pixels per chart unit: 1.5 keeps text sharp when Slack scales the image. */
  scale?: number;
}

export interface ChartRenderer {
  /** One chart of a metric per member: bars for one value each, lines for longer series. */
  member(chart: MemberChart): Promise<ChartImage>;
  /** One panel per chart (the digest: a panel per cluster with a problem), two per row. */
  smallMultiples(title: string, panels: readonly MemberChart[]): Promise<ChartImage>;
}

const MEMBER_SIZE = { widthPx: 620, heightPx: 260 };
const PANEL_SIZE = { widthPx: 330, heightPx: 150 };
const DEFAULT_SCALE = 1.5;

/**
 * Vega-Lite spec -> Vega's headless SVG renderer -> resvg to PNG, all in-process: no browser, no
 * canvas, no network (every value is inline and the loader refuses URLs).
 */
export function createChartRenderer(opts: ChartRendererOptions = {}): ChartRenderer {
  const fontFiles = [...(opts.fontFiles ?? defaultFontFiles())];
  const scale = opts.scale ?? DEFAULT_SCALE;
  const draw = (spec: VegaLiteJson) => renderPng(spec, { fontFiles, scale });
  return {
    async member(full) {
      const chart = cappedLabels(full);
      const colors = memberColors(
        chart.series.map((s) => s.name),
        chart.highlight,
      );
      const spec = {
        ...memberChartLayers(chart, colors, MEMBER_SIZE),
        title: { text: chartTitle(chart), subtitle: chartSubtitle(chart) },
        config: chartConfig(),
      };
      const drawn = await draw(spec);
      const alt = altText(chart, chartKind(chart));
      return {
        ...drawn,
        png: withDescription(drawn.png, alt),
        filename: `${chart.cluster}-${slug(chart.metric)}.png`,
        title: chartTitle(chart),
        altText: alt,
        colors,
      };
    },
    async smallMultiples(title, full) {
      const panels = full.map(cappedLabels);
      const { spec, colors } = smallMultiplesSpec(title, panels, PANEL_SIZE);
      const drawn = await draw({ ...spec, config: chartConfig() });
      const words = panels.map((p) => altText(p, chartKind(p)));
      const alt = `${title}. ${words.join(' ')}`.slice(0, 1000);
      return {
        ...drawn,
        png: withDescription(drawn.png, alt),
        filename: `${slug(title)}.png`,
        title,
        altText: alt,
        colors,
      };
    },
  };
}

/** The DejaVu Sans regular and bold files inside the installed `dejavu-fonts-ttf` package. */
export function defaultFontFiles(): string[] {
  const require = createRequire(import.meta.url);
  return ['DejaVuSans.ttf', 'DejaVuSans-Bold.ttf'].map((f) => require.resolve(`dejavu-fonts-ttf/ttf/${f}`));
}

export type Drawn = Pick<ChartImage, 'png' | 'widthPx' | 'heightPx' | 'plot'>;

/** A Vega-Lite spec drawn to PNG with the charts' own fonts and scale (the space chart's one entry). */
export function drawSpec(spec: VegaLiteJson, opts: ChartRendererOptions = {}): Promise<Drawn> {
  return renderPng(spec, {
    fontFiles: [...(opts.fontFiles ?? defaultFontFiles())],
    scale: opts.scale ?? DEFAULT_SCALE,
  });
}

/**
 * Vega and Vega-Lite are ES modules with top-level await, so they load by import(), on the first
 * chart: the CLI's CommonJS bundle (scripts/build-cli.mjs, `health` and `diagnose`) cannot
 * require() them. Once per process, one after the other (Jest's ESM loader fails imports of
 * overlapping graphs started at once).
 */
let vegaModules: Promise<[typeof import('vega'), typeof import('vega-lite')]> | undefined;
const loadVega = () =>
  (vegaModules ??= (async () => {
    const vega = await import('vega');
    return [vega, await import('vega-lite')];
  })());

async function renderPng(spec: VegaLiteJson, opts: { fontFiles: string[]; scale: number }): Promise<Drawn> {
  const [vega, { compile }] = await loadVega();
  const compiled = compile(spec as unknown as TopLevelSpec).spec;
  // Vega logs a dataflow error and renders on: an SVG from a broken view made resvg abort the process.
  const failures: unknown[] = [];
  const logger = vega.logger(vega.Error, undefined, (_method, _level, input) => {
    failures.push((input as unknown[])[0]);
  });
  const view = new vega.View(vega.parse(compiled), { renderer: 'none', loader: offlineLoader(vega), logger });
  try {
    await view.runAsync();
    if (failures.length) throw new Error(`the chart could not be drawn (${String(failures[0])})`);
    const svg = await view.toSVG();
    if (failures.length) throw new Error(`the chart could not be drawn (${String(failures[0])})`);
    const image = new Resvg(svg, {
      // Only our font files: scanning system fonts costs ~15 ms a render and differs per machine.
      font: { loadSystemFonts: false, fontFiles: opts.fontFiles, defaultFontFamily: CHART_FONT },
      fitTo: { mode: 'zoom', value: opts.scale },
    }).render();
    return {
      png: image.asPng(),
      widthPx: image.width,
      heightPx: image.height,
      plot: plotArea(view, opts.scale),
    };
  } finally {
    view.finalize();
  }
}

/** The data rectangle of a single (layered) chart; the whole image for concatenated panels. */
function plotArea(view: vega.View, scale: number): Drawn['plot'] {
  const [originX, originY] = view.origin();
  // The origin is measured inside the view's padding (Vega's default 5 px).
  const padding = view.padding();
  const x = originX + (typeof padding === 'number' ? padding : (padding.left ?? 0));
  const y = originY + (typeof padding === 'number' ? padding : (padding.top ?? 0));
  const signal = (name: string): number | undefined => {
    try {
      const value: unknown = view.signal(name);
      return typeof value === 'number' ? value : undefined;
    } catch {
      return undefined;
    }
  };
  const width = signal('width');
  const height = signal('height');
  if (width === undefined || height === undefined) return { x: 0, y: 0, width: 0, height: 0 };
  return { x: x * scale, y: y * scale, width: width * scale, height: height * scale };
}

function offlineLoader(vega: typeof import('vega')): vega.Loader {
  const refuse = (): Promise<never> =>
    Promise.reject(new Error('charts load nothing: every value is inline'));
  return { ...vega.loader(), load: refuse, sanitize: refuse, http: refuse, file: refuse };
}

function slug(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
