import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { etcdSnapshotOf, type ParseEtcdMetricsResult } from '../../../src/probes/etcd-metrics.js';
import { clip, parseFloatText, type ReadResult, type Sample } from '../../../src/probes/prometheus-text.js';

/**
 * The reference reading of an etcd member's /metrics, kept to check the streaming one against
 * (test/unit/probes): parse-prometheus-text-format, a test-only dependency, on every line.
 */

// parse-prometheus-text-format 1.1.1 folds a HISTOGRAM (or SUMMARY) family into one object keyed
// by `le` and drops every other label, so the per-peer `To` histograms collapse into one and their
// _sum/_count vanish. Without the TYPE line the same lines come back as plain samples with all
// their labels, which is all this module needs: so the parser is given no comment lines at all.

/**
 * The reference reading, kept to check the streaming one against (test/unit/probes): every line of
 * the page through parse-prometheus-text-format, comments left out (see above), then the same
 * snapshot. A page costs ~4 ms this way against well under 1 ms streamed and filtered.
 */
export function parseEtcdMetricsReference(text: string, scrapedAtMs: number): ParseEtcdMetricsResult {
  const lines = text.split('\n').filter((l) => !l.trim().startsWith('#'));
  const read = readWithLibrary(lines);
  return read.ok ? etcdSnapshotOf(read.samples, scrapedAtMs) : read;
}

/** The lines as samples by name, through parse-prometheus-text-format (the reference reading). */
function readWithLibrary(kept: string[]): ReadResult {
  let families: parsePrometheusTextFormat.MetricFamily[];
  try {
    // Only the lines read below, and no comments: no TYPE line folds a histogram (see above).
    families = parsePrometheusTextFormat(`${kept.join('\n')}\n`);
  } catch (err) {
    // The parser throws InvalidLineError('Encountered invalid line: <line>').
    const message = err instanceof Error ? err.message : String(err);
    return { ok: false, error: `invalid line ${clip(message.replace(/^Encountered invalid line: /, ''))}` };
  }
  const samples = new Map<string, Sample[]>();
  for (const family of families) {
    for (const metric of family.metrics) {
      const value = parseFloatText(metric.value);
      if (value === undefined) {
        return { ok: false, error: `${family.name} has the value ${clip(metric.value ?? '')}` };
      }
      const list = samples.get(family.name) ?? [];
      list.push({ labels: metric.labels ?? {}, value });
      samples.set(family.name, list);
    }
  }
  return { ok: true, samples };
}
