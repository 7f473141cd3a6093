/**
 * Warm colours for the members a finding names, cool muted ones for the rest, so the slow member
 * stands out at a glance (and still does for red-green colour blindness: it differs in lightness and
 * line width too). Colours are Tableau 10's, which Vega-Lite uses by default.
 */
const WARM = ['#e45756', '#f58518', '#b279a2', '#9d755d'] as const;
const COOL = ['#4c78a8', '#72b7b2', '#54a24b', '#9d9d9d', '#79706e', '#bab0ac'] as const;

/** A colour per member, in the order given; highlighted members take the warm palette. */
export function memberColors(names: readonly string[], highlight: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  let warm = 0;
  let cool = 0;
  for (const name of names) {
    if (highlight.includes(name)) {
      out[name] = WARM[warm % WARM.length] ?? '#e45756';
      warm += 1;
    } else {
      out[name] = COOL[cool % COOL.length] ?? '#4c78a8';
      cool += 1;
    }
  }
  return out;
}
