import { describe, expect, it } from '@jest/globals';
import type { MemberChart } from '../../../src/charts/chart-data.js';
import { createChartRenderer } from '../../../src/charts/chart-renderer.js';
import { keepPeaks } from '../../../src/charts/member-chart-spec.js';
import { decodePng, drawnRow, drawnTop, pixelsOf, topOf } from '../../support/chat/png-pixels.js';

const renderer = createChartRenderer();
const AT = Date.UTC(2026, 11, 1, 14, 2, 7);
const THRESHOLD_COLOR = '#333333';

function windowChart(values: Record<string, number>, highlight: string[]): MemberChart {
  return {
    cluster: 'prod',
    metric: 'wal fsync p99',
    unit: 'ms',
    period: 'over the 3 s probe window at 14:02:07 UTC',
    series: Object.entries(values).map(([name, value]) => ({
      name,
      points: [{ atMs: AT, value, note: `mean ${value / 2} ms` }],
    })),
    threshold: { value: 10, label: 'etcd FAQ: p99 < 10 ms' },
    highlight,
  };
}

/** An hour per minute: every member near 3 ms, `slow` jumps to ~150 ms from minute `from`. */
function hourChart(cluster: string, slow: string | undefined, from = 20): MemberChart {
  const names = ['etcd-1', 'etcd-2', 'etcd-3'];
  return {
    cluster,
    metric: 'wal fsync p99',
    unit: 'ms',
    period: 'over the last hour',
    series: names.map((name, i) => ({
      name,
      points: Array.from({ length: 60 }, (_, k) => ({
        atMs: AT - (60 - k) * 60_000,
        value: name === slow && k >= from ? 150 + (k % 7) : 2 + i * 2.5 + (k % 3) * 0.2,
      })),
    })),
    threshold: { value: 10, label: 'etcd FAQ: p99 < 10 ms' },
    highlight: slow ? [slow] : [],
  };
}

describe('member chart over the probe window (bars)', () => {
  it('draws the slow member higher than the others, above the threshold line they stay under', async () => {
    const image = await renderer.member(
      windowChart({ 'etcd-1': 2.1, 'etcd-2': 186, 'etcd-3': 2.4 }, ['etcd-2']),
    );
    const img = decodePng(image.png);
    expect([img.width, img.height]).toEqual([image.widthPx, image.heightPx]);
    expect(img.width).toBeGreaterThan(800);
    expect(img.height).toBeGreaterThan(400);

    const tops = Object.fromEntries(
      Object.entries(image.colors).map(([member, color]) => [member, topOf(img, color, image.plot)]),
    );
    const threshold = drawnRow(img, THRESHOLD_COLOR, image.plot, 'threshold line');
    // Screen y grows downwards: the slow bar reaches far above the threshold, the others stay below it.
    expect(tops['etcd-2']).toBeLessThan(threshold - 100);
    expect(tops['etcd-1']).toBeGreaterThan(threshold);
    expect(tops['etcd-3']).toBeGreaterThan(threshold);
    // Bar heights are to scale: 186 ms stands ~80 times as tall as 2.1 ms above the baseline.
    const base = image.plot.y + image.plot.height;
    const bar = (m: string) => drawnTop(img, image.colors[m], image.plot, `bar of ${m}`);
    const ratio = (base - bar('etcd-2')) / (base - bar('etcd-1'));
    expect(ratio).toBeGreaterThan(40);
  });

  it('gives the slow member a warm colour and the others cool ones, and says so in words', async () => {
    const image = await renderer.member(
      windowChart({ 'etcd-1': 2.1, 'etcd-2': 186, 'etcd-3': 2.4 }, ['etcd-2']),
    );
    expect(image.colors['etcd-2']).toBe('#e45756');
    expect(image.colors['etcd-1']).not.toBe(image.colors['etcd-3']);
    expect(image.title).toBe('prod: wal fsync p99 per member (etcd-2 above 10 ms)');
    expect(image.altText).toBe(
      'Bar chart of wal fsync p99 per member of prod over the 3 s probe window at 14:02:07 UTC: ' +
        'etcd-2 186 ms (mean 93 ms), above the 10 ms bound; etcd-3 2.4 ms (mean 1.2 ms); ' +
        'etcd-1 2.1 ms (mean 1.05 ms). Dashed line: etcd FAQ: p99 < 10 ms.',
    );
    expect(image.filename).toBe('prod-wal-fsync-p99.png');
  });

  it('still draws a member without data, and a healthy chart shows every bar under the line', async () => {
    const chart = windowChart({ 'etcd-1': 3, 'etcd-2': 4 }, []);
    const image = await renderer.member({
      ...chart,
      series: [...chart.series, { name: 'etcd-3', points: [] }],
    });
    const img = decodePng(image.png);
    const threshold = drawnRow(img, THRESHOLD_COLOR, image.plot, 'threshold line');
    expect(drawnTop(img, image.colors['etcd-1'], image.plot, 'bar of etcd-1')).toBeGreaterThan(threshold);
    expect(drawnTop(img, image.colors['etcd-2'], image.plot, 'bar of etcd-2')).toBeGreaterThan(threshold);
    expect(image.title).toBe('prod: wal fsync p99 per member');
    expect(image.altText).toContain('etcd-3 no data');
  });
});

describe('member chart over longer series (lines)', () => {
  it("shows when the slow member's line left the others: low before, high after", async () => {
    const image = await renderer.member(hourChart('prod', 'etcd-2'));
    const img = decodePng(image.png);
    const { plot } = image;
    const slow = image.colors['etcd-2'] ?? '';
    const topSlow = drawnTop(img, slow, plot, 'line of etcd-2');
    for (const other of ['etcd-1', 'etcd-3'])
      expect(drawnTop(img, image.colors[other], plot, `line of ${other}`)).toBeGreaterThan(topSlow + 150);
    // The first fifth of the hour (before minute 20) the slow line sits near the bottom with the rest.
    const early = { ...plot, width: plot.width * 0.25 };
    const late = { ...plot, x: plot.x + plot.width * 0.5, width: plot.width * 0.5 };
    const threshold = drawnRow(img, THRESHOLD_COLOR, plot, 'threshold line');
    expect(drawnTop(img, slow, early, 'early part of the etcd-2 line')).toBeGreaterThan(threshold);
    expect(drawnTop(img, slow, late, 'late part of the etcd-2 line')).toBeLessThan(threshold - 100);
    expect(image.altText).toMatch(
      /^Line chart of wal fsync p99 per member of prod over the last hour: etcd-2 peak 156 ms/,
    );
  });
});

describe('gaps in the history', () => {
  it('draws a gap as a gap: no line across twenty minutes without checks', async () => {
    const chart = hourChart('prod', undefined);
    // etcd-2 has no checks from minute 20 to 40 (its member was down, or the watch stopped).
    const etcd2 = chart.series.find((s) => s.name === 'etcd-2');
    if (!etcd2) throw new Error('no etcd-2');
    etcd2.points = etcd2.points.filter((_, k) => k < 20 || k >= 40);
    const [image, whole] = await Promise.all([
      renderer.member(chart),
      renderer.member(hourChart('prod', undefined)),
    ]);
    const etcd2In = (drawn: typeof image, from: number) => {
      const { plot } = drawn;
      const region = { ...plot, x: plot.x + (plot.width * from) / 60, width: (plot.width * 10) / 60 };
      return pixelsOf(decodePng(drawn.png), drawn.colors['etcd-2'] ?? '', region).length;
    };
    // Minutes 25-35: the line without the gap draws there; across the gap, next to nothing does (only
    // the anti-aliased edges of the other members' lines come near its colour).
    expect(etcd2In(whole, 25)).toBeGreaterThan(100);
    expect(etcd2In(image, 25)).toBeLessThan(etcd2In(whole, 25) / 10);
    // Before and after the gap its line is there.
    expect(etcd2In(image, 5)).toBeGreaterThan(100);
    expect(etcd2In(image, 45)).toBeGreaterThan(100);
  });
});

describe('the legend', () => {
  it('shows every member, also one with no samples in the history', async () => {
    const chart = hourChart('prod', undefined);
    const etcd3 = chart.series.find((s) => s.name === 'etcd-3');
    if (!etcd3) throw new Error('no etcd-3');
    etcd3.points = [];
    const image = await renderer.member(chart);
    const img = decodePng(image.png);
    const { plot } = image;
    const below = {
      x: 0,
      y: plot.y + plot.height + 5,
      width: img.width,
      height: img.height - plot.y - plot.height - 5,
    };
    for (const name of ['etcd-1', 'etcd-2', 'etcd-3'])
      expect(pixelsOf(img, image.colors[name] ?? '', below).length).toBeGreaterThan(5);
  });
});

describe('small multiples for the digest', () => {
  it('draws one panel per cluster, each with its own slow member on top', async () => {
    const panels = [
      hourChart('prod', 'etcd-2'),
      hourChart('staging', 'etcd-1', 40),
      hourChart('dev', undefined),
    ];
    const image = await renderer.smallMultiples('etcd digest: clusters with a problem', panels);
    const img = decodePng(image.png);
    expect([img.width, img.height]).toEqual([image.widthPx, image.heightPx]);
    // Two panels a row: the image is wider than one panel and about two panels high.
    expect(img.width).toBeGreaterThan(900);
    expect(img.height).toBeGreaterThan(450);
    const half = { y: 0, width: img.width / 2, height: img.height * 0.55 };
    const left = { ...half, x: 0 };
    const right = { ...half, x: img.width / 2 };
    const check = (cluster: string, slow: string, region: typeof left, others: string[]) => {
      const top = drawnTop(img, image.colors[`${cluster}/${slow}`], region, `line of ${cluster}/${slow}`);
      for (const o of others)
        expect(
          drawnTop(img, image.colors[`${cluster}/${o}`], region, `line of ${cluster}/${o}`),
        ).toBeGreaterThan(top + 60);
    };
    check('prod', 'etcd-2', left, ['etcd-1', 'etcd-3']);
    check('staging', 'etcd-1', right, ['etcd-2', 'etcd-3']);
    // The quiet cluster's panel (second row) has no warm colour at all.
    const bottom = { x: 0, y: img.height * 0.55, width: img.width, height: img.height * 0.45 };
    expect(pixelsOf(img, image.colors['prod/etcd-2'] ?? '', bottom)).toHaveLength(0);
    expect(image.altText).toContain('staging');
  });
});

describe('long series', () => {
  it('thins a day per minute to what the width can show, keeping a one-minute spike', async () => {
    const day = hourChart('prod', undefined);
    const points = Array.from({ length: 1440 }, (_, k) => ({
      atMs: AT - (1440 - k) * 60_000,
      value: k === 777 ? 400 : 3,
    }));
    expect(keepPeaks(points, 413).length).toBeLessThanOrEqual(413);
    expect(keepPeaks(points, 413).length).toBeGreaterThan(300);
    expect(Math.max(...keepPeaks(points, 413).map((p) => p.value))).toBe(400);
    const chart = {
      ...day,
      series: [{ name: 'etcd-1', points }, ...day.series.slice(1)],
      highlight: ['etcd-1'],
    };
    const image = await renderer.member(chart);
    const img = decodePng(image.png);
    const spike = drawnTop(img, image.colors['etcd-1'], image.plot, 'line of etcd-1');
    // 400 ms is the top of the scale: the spike's line reaches the top tenth of the plot.
    expect(spike).toBeLessThan(image.plot.y + image.plot.height * 0.2);
  });
});

/** The text chunks of a PNG, keyword -> text (tEXt: `keyword\0text`, Latin-1). */
function textChunks(png: Buffer): Record<string, string> {
  const found: Record<string, string> = {};
  for (let at = 8; at + 12 <= png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    if (type === 'tEXt') {
      const data = png.subarray(at + 8, at + 8 + length);
      const nul = data.indexOf(0);
      found[data.toString('latin1', 0, nul)] = data.toString('latin1', nul + 1);
    }
    at += 12 + length;
  }
  return found;
}

describe('the alt text travels in the PNG', () => {
  it('a member chart and the digest panels carry their alt text as a tEXt Description, and still decode', async () => {
    const chart = await renderer.member(windowChart({ 'etcd-1': 3, 'etcd-2': 186, 'etcd-3': 4 }, ['etcd-2']));
    expect(chart.altText).toContain('etcd-2');
    expect(textChunks(chart.png).Description).toBe(chart.altText);
    // pngjs checks every chunk's CRC: a bad chunk would fail to decode.
    expect(decodePng(chart.png).width).toBe(chart.widthPx);
    const digest = await renderer.smallMultiples('Daily digest', [
      hourChart('prod', 'etcd-2'),
      hourChart('dev', undefined),
    ]);
    expect(textChunks(digest.png).Description).toBe(digest.altText);
    expect(decodePng(digest.png).height).toBe(digest.heightPx);
  });
});

/** Member names come from the cluster, so they are data, never object keys or unbounded layout. */
describe('member names that are not ordinary', () => {
  it('draws a member named __proto__ in its own colour', async () => {
    const names = ['__proto__', 'etcd-2', 'etcd-3'];
    const chart = windowChart({}, ['__proto__']);
    const named = {
      ...chart,
      series: names.map((name, i) => ({ name, points: [{ atMs: AT, value: [150, 2, 3][i] ?? 1 }] })),
    };
    const drawn = await renderer.member(named);
    const img = decodePng(drawn.png);
    const colors = names.map((n) => Object.getOwnPropertyDescriptor(drawn.colors, n)?.value as unknown);
    for (const c of colors) expect(c).toMatch(/^#[0-9a-f]{6}$/);
    expect(new Set(colors).size).toBe(3);
    for (const c of colors) expect(pixelsOf(img, c as string, drawn.plot).length).toBeGreaterThan(0);
  });

  /** An hour of `names`, `slow` jumping to ~150 ms from minute 20; the others near 3 ms. */
  const namedHour = (names: string[], slow: string): MemberChart => {
    const base = hourChart('prod', 'etcd-2');
    return {
      ...base,
      series: names.map((name, i) => ({
        name,
        points: (base.series[name === slow ? 1 : i === 1 ? 0 : i]?.points ?? []).map((p) => ({ ...p })),
      })),
      highlight: [slow],
    };
  };
  const ownColor = (colors: Record<string, string>, name: string) =>
    Object.getOwnPropertyDescriptor(colors, name)?.value as string | undefined;

  it('draws lines of members named __proto__, constructor and toString, each in its own colour, the slow one on top', async () => {
    const names = ['__proto__', 'constructor', 'toString'];
    const drawn = await renderer.member(namedHour(names, 'constructor'));
    const img = decodePng(drawn.png);
    const colors = names.map((n) => ownColor(drawn.colors, n));
    for (const c of colors) expect(c).toMatch(/^#[0-9a-f]{6}$/);
    expect(new Set(colors).size).toBe(3);
    const tops = colors.map((c) => topOf(img, c as string, drawn.plot));
    for (const t of tops) expect(t).toBeDefined();
    // Image rows grow downwards: the slow member's line reaches highest.
    const [first = Number.NaN, slowest = Number.NaN, last = Number.NaN] = tops;
    expect(slowest).toBeLessThan(Math.min(first, last));
    expect(drawn.altText).toContain('constructor');
  });

  it('draws bars of members named constructor, toString and hasOwnProperty', async () => {
    const names = ['constructor', 'toString', 'hasOwnProperty'];
    const chart = windowChart({}, ['toString']);
    const drawn = await renderer.member({
      ...chart,
      series: names.map((name, i) => ({ name, points: [{ atMs: AT, value: [3, 150, 4][i] ?? 1 }] })),
    });
    const img = decodePng(drawn.png);
    const colors = names.map((n) => ownColor(drawn.colors, n));
    expect(new Set(colors).size).toBe(3);
    for (const c of colors) expect(pixelsOf(img, c as string, drawn.plot).length).toBeGreaterThan(0);
    expect(drawnTop(img, colors[1], drawn.plot, 'bar of toString')).toBeLessThan(
      drawnTop(img, colors[0], drawn.plot, 'bar of constructor'),
    );
  });

  it('draws a digest panel whose members are named __proto__ and constructor', async () => {
    const digest = await renderer.smallMultiples('Daily digest', [
      namedHour(['__proto__', 'constructor', 'etcd-3'], '__proto__'),
      hourChart('dev', undefined),
    ]);
    const img = decodePng(digest.png);
    for (const key of ['prod/__proto__', 'prod/constructor', 'prod/etcd-3']) {
      const color = ownColor(digest.colors, key);
      expect({ key, color }).toEqual({ key, color: expect.stringMatching(/^#[0-9a-f]{6}$/) });
      const left = { x: 0, y: 0, width: img.width / 2, height: img.height };
      expect({ key, pixels: pixelsOf(img, color as string, left).length > 0 }).toEqual({ key, pixels: true });
    }
  });

  it('caps a 5,000-character name in a line chart and in a digest, so the images stay chart-sized', async () => {
    const long = 'y'.repeat(5000);
    const line = await renderer.member(namedHour([long, 'etcd-2', 'etcd-3'], long));
    expect(decodePng(line.png).width).toBeLessThan(2000);
    const digest = await renderer.smallMultiples('Daily digest', [
      namedHour([long, `${long}z`, 'etcd-3'], long),
      hourChart('dev', undefined),
    ]);
    expect(decodePng(digest.png).width).toBeLessThan(2500);
    // Two names cut to the same 40 characters are still two members, each with its colour.
    expect(Object.keys(digest.colors).filter((k) => k.startsWith('prod/'))).toHaveLength(3);
  });

  it('draws a name with control characters without them, in the image and its words', async () => {
    const hostile = 'etcd-1\u001b]0;pwned\u0007\u001b[2J\ue000';
    const drawn = await renderer.member(namedHour([hostile, 'etcd-2', 'etcd-3'], hostile));
    expect(drawn.altText).toContain('etcd-1]0;pwned[2J peak');
    for (const c of ['\u001b', '\u0007', '\ue000']) expect(drawn.altText).not.toContain(c);
    expect(
      pixelsOf(decodePng(drawn.png), ownColor(drawn.colors, 'etcd-1]0;pwned[2J') ?? '', drawn.plot).length,
    ).toBeGreaterThan(0);
  });

  it('caps a very long name, so the image stays chart-sized', async () => {
    const long = 'x'.repeat(5000);
    const image = await renderer.member(windowChart({ [long]: 150, 'etcd-2': 2 }, [long]));
    expect(image.widthPx).toBeLessThan(2000);
    expect(decodePng(image.png).width).toBeLessThan(2000);
  });
});
