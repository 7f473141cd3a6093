/**
 * The apiserver's /metrics of a fixture, with counters that advance as a running apiserver's do: a
 * fixture's `metrics-growth.json` names events that happen at a steady rate (a LIST of pods across
 * all namespaces, three a second) and the series each one adds to (its `apiserver_request_total`
 * row by one, `apiserver_response_sizes_sum` by its 85 MB, its flow schema's
 * `apiserver_flowcontrol_dispatched_requests_total` by one, ...). A series then reads its
 * `metrics.txt` value plus the whole events since the fake started times what each adds, so two
 * scrapes three seconds apart differ by three seconds of events, every series of one event in step,
 * as client_golang's counters are. Without the file, `metrics.txt` is served as it is.
 */
import type { KubeFixture } from './kube-fixtures.js';

interface GrowthEvent {
  /** What happens, for the reader of the fixture. */
  what: string;
  perSecond: number;
  /** `name{labels}` exactly as in metrics.txt, and what one event adds to it. */
  add: Record<string, number>;
}

interface Growth {
  description?: string;
  events: GrowthEvent[];
}

/** The page at `elapsedMs` since the fake started; undefined when the fixture has no metrics.txt. */
export function metricsPage(fixture: KubeFixture, elapsedMs: number): string | undefined {
  const page = fixture.readText('metrics.txt');
  const spec = fixture.readText('metrics-growth.json');
  if (page === undefined || spec === undefined) return page;
  const growth = JSON.parse(spec) as Growth;
  const added = new Map<string, number>();
  for (const event of growth.events) {
    const happened = Math.floor((event.perSecond * Math.max(0, elapsedMs)) / 1000);
    for (const [series, n] of Object.entries(event.add))
      added.set(series, (added.get(series) ?? 0) + happened * n);
  }
  const seen = new Set<string>();
  const lines = page.split('\n').map((line) => {
    if (line.startsWith('#')) return line;
    const space = line.lastIndexOf(' ');
    const series = line.slice(0, space);
    const more = added.get(series);
    if (space < 0 || more === undefined) return line;
    seen.add(series);
    return `${series} ${formatValue(Number(line.slice(space + 1)) + more)}`;
  });
  const unknown = [...added.keys()].filter((s) => !seen.has(s));
  if (unknown.length > 0)
    throw new Error(
      `${fixture.name}/metrics-growth.json names series metrics.txt does not have: ${unknown.join(', ')}`,
    );
  return lines.join('\n');
}

/** client_golang writes integers plainly and large sums in exponent form (`1.836e+12`). */
function formatValue(v: number): string {
  return Number.isInteger(v) && Math.abs(v) < 1e15 ? String(v) : v.toExponential();
}
