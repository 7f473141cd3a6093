/**
 * Warm colours for the members a finding names, cool muted ones for the rest, so the slow member
 * stands out at a glance (and still does for red-green colour blindness: it differs in lightness and
 * line width too). Colours are Tableau 10's, which Vega-Lite uses by default.
 */
const WARM = ['#e45756', '#f58518', '#b279a2', '#9d755d'] as const;
const COOL = ['#4c78a8', '#72b7b2', '#54a24b', '#9d9d9d', '#79706e', '#bab0ac'] as const;

/**
 * A colour per member, in the order given; highlighted members take the warm palette. Built with
 * Object.fromEntries, so a member named `__proto__` or `constructor` is an own key like any other.
 */
export function memberColors(names: readonly string[], highlight: readonly string[]): Record<string, string> {
  let warm = 0;
  let cool = 0;
  const list = names.map((name) => {
    if (highlight.includes(name)) return WARM[warm++ % WARM.length] ?? '#e45756';
    return COOL[cool++ % COOL.length] ?? '#4c78a8';
  });
  return Object.fromEntries(names.map((name, i) => [name, list[i] ?? '#4c78a8']));
}

/** The colour of `name` in `colors`: own keys only, never one inherited from Object.prototype. */
export function colorOf(colors: Readonly<Record<string, string>>, name: string): string | undefined {
  return Object.hasOwn(colors, name) ? colors[name] : undefined;
}

/**
 * Untrusted text: no control character reaches the image, nor a private-use one (they separate the
 * label lines in member-chart-spec.ts's keys).
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
export const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\ue000-\uf8ff]/g;

/** Longest member name a chart draws in full: a 5,000-character name made a 72,017 px wide PNG. */
export const MAX_LABEL_CHARS = 40;

/** The chart's member names, printable and capped at MAX_LABEL_CHARS (an ellipsis, still unique: `#2`, `#3`). */
export function cappedLabels<C extends { series: readonly { name: string }[]; highlight: readonly string[] }>(
  chart: C,
): C {
  const seen = new Map<string, number>();
  const short = new Map<string, string>();
  for (const { name } of chart.series) {
    const printable = name.replace(UNPRINTABLE, '');
    const cut =
      printable.length > MAX_LABEL_CHARS ? `${printable.slice(0, MAX_LABEL_CHARS - 1)}…` : printable;
    const n = (seen.get(cut) ?? 0) + 1;
    seen.set(cut, n);
    short.set(name, n === 1 ? cut : `${cut} #${n}`);
  }
  const label = (name: string) => short.get(name) ?? name;
  return {
    ...chart,
    series: chart.series.map((s) => ({ ...s, name: label(s.name) })),
    highlight: chart.highlight.map(label),
  };
}
