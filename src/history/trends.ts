import { type HistorySample, worstFsyncMs } from '../state/history-sample.js';

const DAY_MS = 24 * 3600_000;
/** A daily digest runs at the same time each day give or take minutes (or hours, when late). */
const SLACK_MS = 3600_000;
/** Today plus the seven days before it. */
export const TREND_DAYS = 8;

/**
 * Daily values, oldest first, today last: `days[7]` is the 24 h ending now, `days[6]` the 24 h
 * before it, and so on. The windows end an hour after each multiple of 24 h so that yesterday's
 * digest (run at about the same time) falls into "yesterday". A day with no sample is null.
 */
export interface DailySeries {
  /** The worst member fsync p99 of the day (ms); today's is the latest sample. */
  fsyncP99Ms: Array<number | null>;
  /** Leader elections seen during the day, summed over members (counter increases between samples). */
  leaderChanges: Array<number | null>;
  /** Control-plane container restarts during the day, summed over components. */
  restarts: Array<number | null>;
  /**
   * True for a day whose fsync p99 and leader changes come from a day of watch checks (a digest of
   * a watched cluster kept it, HistorySample.d), false for one from diagnoses' 3-second windows.
   * Trends compare only days of the same kind (sameKind).
   */
  fromChecks: boolean[];
}

function dayIndex(t: number, now: number): number | undefined {
  const age = now + SLACK_MS - t;
  if (age < 0) return TREND_DAYS - 1;
  const back = Math.floor(age / DAY_MS);
  return back < TREND_DAYS ? TREND_DAYS - 1 - back : undefined;
}

/** `samples` oldest first, ideally reaching back 8 days before `now`. */
export function dailySeries(samples: HistorySample[], now: number): DailySeries {
  const fsync: Array<number | null> = Array(TREND_DAYS).fill(null);
  const leaders: Array<number | null> = Array(TREND_DAYS).fill(null);
  const restarts: Array<number | null> = Array(TREND_DAYS).fill(null);
  const fromChecks: boolean[] = Array(TREND_DAYS).fill(false);
  const ofChecks = new Map<number, [number | null, number | null, number]>();
  let previous: HistorySample | undefined;
  for (const sample of samples) {
    const day = dayIndex(sample.t, now);
    if (day !== undefined) {
      const worst = worstFsyncMs(sample);
      if (worst !== null) fsync[day] = day === TREND_DAYS - 1 ? worst : Math.max(fsync[day] ?? 0, worst);
      if (previous) {
        add(leaders, day, increase(leaderTotals(previous), leaderTotals(sample)));
        add(restarts, day, increase(previous.r, sample.r));
      }
      if (sample.d) ofChecks.set(day, sample.d);
    }
    previous = sample;
  }
  // A day a digest read from the watch's checks is that day's figure, whatever else ran.
  for (const [day, [dayFsync, dayLeaders]] of ofChecks) {
    fsync[day] = dayFsync;
    leaders[day] = dayLeaders;
    fromChecks[day] = true;
  }
  return { fsyncP99Ms: fsync, leaderChanges: leaders, restarts, fromChecks };
}

/**
 * The series with the days of the other kind than today's blanked out: a day p99 over 1,440
 * checks is not comparable with one 3-second window's (it is higher on the same disk), so a trend
 * between them would be an arrow about the method, not the cluster.
 */
export function sameKind(series: Array<number | null>, fromChecks: readonly boolean[]): Array<number | null> {
  const today = fromChecks[TREND_DAYS - 1] ?? false;
  return series.map((v, i) => ((fromChecks[i] ?? false) === today ? v : null));
}

function add(series: Array<number | null>, day: number, value: number | null): void {
  if (value !== null) series[day] = (series[day] ?? 0) + value;
}

function leaderTotals(sample: HistorySample): Map<string, number> {
  const out = new Map<string, number>();
  for (const m of sample.m) if (m[6] !== null) out.set(m[0], m[6]);
  return out;
}

/**
 * Counter increase between two samples, per name, summed. A counter that went down restarted from 0.
 * Names are member and component names, any text: a Map, so `constructor` or `__proto__` is a name.
 */
function increase(
  before: Map<string, number> | Record<string, number>,
  after: Map<string, number> | Record<string, number>,
): number | null {
  const old = before instanceof Map ? before : new Map(Object.entries(before));
  let total = 0;
  let known = false;
  for (const [name, value] of after instanceof Map ? after : Object.entries(after)) {
    const was = old.get(name);
    if (was === undefined) continue;
    known = true;
    total += value >= was ? value - was : value;
  }
  return known ? total : null;
}

export type Trend = '↑' | '↓' | '→' | '·';

/**
 * Up or down when the value moved by more than `ratio` (25 %) and more than `floor` in absolute
 * terms (so 1 ms -> 2 ms is not "doubled"); `·` when either side is unknown.
 */
export function trend(current: number | null, reference: number | null, floor: number, ratio = 0.25): Trend {
  if (current === null || reference === null) return '·';
  const delta = current - reference;
  if (Math.abs(delta) <= floor || Math.abs(delta) <= Math.abs(reference) * ratio) return '→';
  return delta > 0 ? '↑' : '↓';
}

/** The median of the known values among the seven days before today. */
export function baseline(series: Array<number | null>): number | null {
  const known = series
    .slice(0, TREND_DAYS - 1)
    .filter((v): v is number => v !== null)
    .sort((a, b) => a - b);
  if (known.length === 0) return null;
  const mid = Math.floor(known.length / 2);
  const hi = known[mid] ?? 0;
  return known.length % 2 ? hi : ((known[mid - 1] ?? hi) + hi) / 2;
}

const BARS = '▁▂▃▄▅▆▇█';

/** A text sparkline, one character per day, `·` for a day without data. Scaled from 0 to the max. */
export function sparkline(series: Array<number | null>): string {
  const max = Math.max(0, ...series.filter((v): v is number => v !== null));
  return series
    .map((v) => {
      if (v === null) return '·';
      if (max === 0) return BARS[0];
      return BARS[Math.min(BARS.length - 1, Math.floor((v / max) * (BARS.length - 1) + 0.5))];
    })
    .join('');
}
