import type { DiagnosisReport } from '../contracts/report-json.js';
import { BUSY_CLOCK_SAMPLES } from '../probes/collect-options.js';
import type { Evidence } from '../probes/evidence.js';

/**
 * How many GET /version a watch check sends each member for its clock. The clock's samples were
 * most of a check's CPU after the probes themselves (bench/watch-check.ts: 4 samples a member cost
 * ~6-8 ms of a ~22 ms check, 1 sample ~2 ms). A clock does not drift in a minute: once a check with
 * BUSY_CLOCK_SAMPLES found every member's clock and no skew, the checks after it take one sample a
 * member, which still sees a jump of more than ~2 s (the clock-skew rule allows for a lone
 * sample's ±500 ms), until CLOCK_FULL_EVERY_MS has passed or a check finds skew or a member's
 * clock unread; then a check takes the full samples again.
 */
export const AGREED_CLOCK_SAMPLES = 1;
/** At least this often a cluster's check takes BUSY_CLOCK_SAMPLES (a tick pins the offset to ~±100 ms). */
export const CLOCK_FULL_EVERY_MS = 10 * 60_000;

export interface ClockSampling {
  /** The samples per member for the cluster's next check. */
  samples(cluster: string): number;
  /** What the check that took `samples` found. */
  after(cluster: string, samples: number, report: DiagnosisReport, evidence: Evidence | undefined): void;
}

/**
 * Per worker process (a map of cluster to when its clocks last agreed under full samples): a
 * restarted worker, or another one taking the cluster's job, starts with full samples.
 */
export function createClockSampling(now: () => number): ClockSampling {
  const agreedAt = new Map<string, number>();
  return {
    samples(cluster) {
      const at = agreedAt.get(cluster);
      return at !== undefined && now() - at < CLOCK_FULL_EVERY_MS ? AGREED_CLOCK_SAMPLES : BUSY_CLOCK_SAMPLES;
    },
    after(cluster, samples, report, evidence) {
      if (!clocksAgree(report, evidence)) agreedAt.delete(cluster);
      else if (samples >= BUSY_CLOCK_SAMPLES) agreedAt.set(cluster, now());
    },
  };
}

/**
 * An answer this slow sends the next check back to full samples: well under the cpu-starvation
 * rule's 30 ms stall mean (rules/cpu-starvation.ts), which a lone sample never decides.
 */
export const QUICK_ANSWER_MS = 15;

/** Every member's clock was read, each answer was quick, and no finding is about clocks. */
function clocksAgree(report: DiagnosisReport, evidence: Evidence | undefined): boolean {
  if (!evidence?.members.length) return false;
  const quick = evidence.members.every((m) => m.clock.ok && m.clock.data.maxRttMs < QUICK_ANSWER_MS);
  return quick && !report.findings.some((f) => f.cause.startsWith('clock'));
}
