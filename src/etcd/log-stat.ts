/** The counters every etcd log signal is made of (scan-logs.ts, scan-faults.ts). */

export interface CountStat {
  count: number;
  /** The last matching line, cut to 240 characters. */
  example: string | undefined;
  /**
   * When the first and last matching lines were written (ISO 8601), from the line's own timestamp
   * (zap `ts`, capnslog, raft's logger) or the `kubectl logs --timestamps` prefix, when it has one.
   */
  firstSeenAt?: string;
  lastSeenAt?: string;
}

export interface DurationStat extends CountStat {
  maxSeconds: number | undefined;
}

/** A stat a line touched: scanLine stamps its first and last time. */
export type Seen = { count: number; firstSeenAt?: string; lastSeenAt?: string };

export const EXAMPLE_CHARS = 240;

// µs (micro sign) and μs (Greek mu) escaped: the CLI bundle stays ASCII (scripts/build-cli.mjs).
const DURATION_PART = /(\d+(?:\.\d*)?|\.\d+)(ns|us|\u00b5s|\u03bcs|ms|s|m|h)/g;
const UNIT_SECONDS: Record<string, number> = {
  ns: 1e-9,
  us: 1e-6,
  '\u00b5s': 1e-6,
  '\u03bcs': 1e-6,
  ms: 1e-3,
  s: 1,
  m: 60,
  h: 3600,
};

/** Go's `time.Duration.String()` form (`1.328471093s`, `512.3ms`, `1m2.5s`) in seconds. */
export function parseGoDuration(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === '0') return 0;
  const sign = trimmed.startsWith('-') ? -1 : 1;
  const body = trimmed.replace(/^[-+]/, '');
  let total = 0;
  let consumed = 0;
  for (const match of body.matchAll(DURATION_PART)) {
    if (match.index !== consumed) return undefined;
    total += Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? Number.NaN);
    consumed += match[0].length;
  }
  if (consumed === 0 || consumed !== body.length || Number.isNaN(total)) return undefined;
  return sign * total;
}
