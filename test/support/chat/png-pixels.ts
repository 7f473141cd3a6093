import { PNG } from 'pngjs';

/** A decoded PNG: RGBA bytes, row by row. */
export interface Pixels {
  width: number;
  height: number;
  data: Buffer;
}

export interface Region {
  x: number;
  y: number;
  width: number;
  height: number;
}

export function decodePng(png: Buffer): Pixels {
  const decoded = PNG.sync.read(png);
  return { width: decoded.width, height: decoded.height, data: decoded.data };
}

function rgbOf(hex: string): [number, number, number] {
  const n = Number.parseInt(hex.replace('#', ''), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

/**
 * Pixels within `tolerance` (per channel) of `hex`, inside `region` (default: all). Anti-aliased
 * edges blend with the background, so a line's core matches and its fringe does not.
 */
export function pixelsOf(img: Pixels, hex: string, region?: Region, tolerance = 24): Array<[number, number]> {
  const [r, g, b] = rgbOf(hex);
  const area = region ?? { x: 0, y: 0, width: img.width, height: img.height };
  const out: Array<[number, number]> = [];
  const x1 = Math.min(img.width, Math.ceil(area.x + area.width));
  const y1 = Math.min(img.height, Math.ceil(area.y + area.height));
  for (let y = Math.max(0, Math.floor(area.y)); y < y1; y += 1) {
    for (let x = Math.max(0, Math.floor(area.x)); x < x1; x += 1) {
      const i = (y * img.width + x) * 4;
      const close =
        Math.abs((img.data[i] ?? 0) - r) <= tolerance &&
        Math.abs((img.data[i + 1] ?? 0) - g) <= tolerance &&
        Math.abs((img.data[i + 2] ?? 0) - b) <= tolerance;
      if (close) out.push([x, y]);
    }
  }
  return out;
}

/** The smallest y (the highest point on screen) of a colour, or undefined when it is not drawn. */
export function topOf(img: Pixels, hex: string, region?: Region): number | undefined {
  const found = pixelsOf(img, hex, region);
  return found.length === 0 ? undefined : Math.min(...found.map(([, y]) => y));
}

/** The row holding the most pixels of a colour (a horizontal line such as the threshold). */
export function busiestRow(img: Pixels, hex: string, region?: Region): number | undefined {
  const counts = new Map<number, number>();
  for (const [, y] of pixelsOf(img, hex, region, 40)) counts.set(y, (counts.get(y) ?? 0) + 1);
  let best: [number, number] | undefined;
  for (const entry of counts) if (!best || entry[1] > best[1]) best = entry;
  return best?.[0];
}

/**
 * topOf for a colour the chart must draw: throws when it is not drawn (or has no colour), so a
 * missing line or bar fails the test instead of standing in as "lowest" or "highest".
 */
export function drawnTop(
  img: Pixels,
  hex: string | undefined,
  region: Region | undefined,
  what: string,
): number {
  const top = hex ? topOf(img, hex, region) : undefined;
  if (top === undefined) throw new Error(`the chart draws no ${what} (colour ${hex ?? 'none'})`);
  return top;
}

/** busiestRow for a line the chart must draw (the threshold): throws when it is not drawn. */
export function drawnRow(img: Pixels, hex: string, region: Region | undefined, what: string): number {
  const row = busiestRow(img, hex, region);
  if (row === undefined) throw new Error(`the chart draws no ${what} (colour ${hex})`);
  return row;
}
