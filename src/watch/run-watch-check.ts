import type { DiagnosisReport } from '../contracts/report-json.js';
import type { Doctor } from '../doctor.js';
import { summarizeCheck } from '../history/minute-sample.js';
import { nextStreak, rootCauseOf, type Streak } from './incident-decision.js';
import type { Logger } from '../logger.js';
import type { Evidence } from '../probes/evidence.js';
import type { WatchJob } from '../queue/job-schemas.js';
import type { MinuteHistory } from '../state/minute-history.js';
import type { LastCheck, WatchState } from '../state/watch-state.js';

/** Kept scrapes and the last check outlive a few missed checks, then go (a stale window would mislead). */
const KEEP_INTERVALS = 3;
const KEEP_GRACE_MS = 60_000;
/**
 * A cluster checked this often keeps its gRPC channels and HTTP agent open between checks (the
 * next check is warm); one checked less often closes them after each check. Measured with 200
 * clusters at 60 s in one compiled worker (bench/watch-fleet.ts, docs/BENCHMARKS.md): the kept
 * clients were most of the peak RSS, and reopening them once a minute costs little CPU.
 */
export const KEEP_CLIENTS_UNDER_S = 30;

/** What an incident needs of a check besides its report. */
export interface CheckContext {
  /** The evidence behind the report (the incident's chart is drawn from it). */
  evidence?: Evidence | undefined;
  /** The root cause of the check before this one, if it had one. */
  previousRoot?: string | undefined;
}

export interface WatchCheckDeps {
  /** The plain doctor, not the recording one: the 30-day digest history keeps one sample per diagnosis. */
  doctor: Doctor;
  history: MinuteHistory;
  state: WatchState;
  /** Opens, updates and resolves the cluster's incident after each check (incident-runner.ts). */
  afterCheck?: (
    cluster: string,
    report: DiagnosisReport,
    streak: Streak,
    context: CheckContext,
  ) => Promise<unknown>;
  logger: Logger;
}

/**
 * One check of a watched cluster: a diagnose whose /metrics window is the time since the previous
 * check (one scrape per member, the previous one kept in Redis), its sample in the minute history,
 * and its outcome kept for `/etcd watch`. Returns the outcome, which BullMQ keeps as the job's result.
 */
export function createWatchCheck(deps: WatchCheckDeps): (job: WatchJob) => Promise<LastCheck> {
  return async (job) => {
    const ttlMs = job.intervalSeconds * 1000 * KEEP_INTERVALS + KEEP_GRACE_MS;
    let evidence: Evidence | undefined;
    const report = await deps.doctor.run(job.cluster, 'diagnose', {
      keepClients: job.intervalSeconds < KEEP_CLIENTS_UNDER_S,
      scrapes: deps.state.scrapes(job.cluster, ttlMs),
      onEvidence: (e) => {
        evidence = e;
      },
    });
    const sample = summarizeCheck(report, evidence);
    const previous = await deps.state.lastCheck(job.cluster);
    const streak = nextStreak(report, previous ?? { bad: 0, good: 0 });
    const check: LastCheck = {
      ...streak,
      t: sample.t,
      status: report.status,
      causes: report.findings.filter((f) => f.severity !== 'info').map((f) => [f.cause, f.members]),
      intervalSeconds: job.intervalSeconds,
      durationMs: Math.round(report.durationMs),
    };
    await deps.history.record(job.cluster, sample);
    // The streak is saved before the incident acts on it, so a check that dies posting still counts.
    await deps.state.saveLastCheck(job.cluster, check, ttlMs);
    await deps.afterCheck?.(job.cluster, report, streak, {
      evidence,
      previousRoot: previous && rootCauseOf(previous.causes),
    });
    deps.logger.debug({ cluster: job.cluster, status: check.status, causes: check.causes }, 'watch check');
    return check;
  };
}
