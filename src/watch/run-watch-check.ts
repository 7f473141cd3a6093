import type { DiagnosisReport } from '../contracts/report-json.js';
import { LATENT_CAUSES } from '../diagnosis/finding.js';
import type { Doctor } from '../doctor.js';
import { summarizeCheck } from '../state/minute-sample.js';
import { createClockSampling } from './clock-sampling.js';
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
 * next check is warm) however many are watched.
 */
export const KEEP_CLIENTS_UNDER_S = 30;
/**
 * Up to this many watched clusters per worker process keep their connections between checks
 * whatever their interval; the others open and close them each check. bench/watch-check.ts: a kept
 * cluster costs ~240 KiB of RSS (200 kept: +48 MiB) and saves about a quarter of a check's CPU
 * (the channels' set-up, an untimed warm-up read per member, the TCP connects). 250 keeps the
 * worker's RSS within the Deployment's limit with room for a digest.
 */
export const KEPT_CLUSTERS_MAX = 250;

/** Which clusters keep their connections: the first KEPT_CLUSTERS_MAX checked in this process, and every fast one. */
function keptClusters(max: number): (cluster: string, intervalSeconds: number) => boolean {
  const kept = new Set<string>();
  return (cluster, intervalSeconds) => {
    if (intervalSeconds < KEEP_CLIENTS_UNDER_S || kept.has(cluster)) return true;
    if (kept.size >= max) return false;
    kept.add(cluster);
    return true;
  };
}

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
  /** For how long the clocks agreed (clock-sampling.ts); default Date.now. */
  now?: () => number;
}

/**
 * One check of a watched cluster: a diagnose whose /metrics window is the time since the previous
 * check (one scrape per member, the previous one kept in Redis), its sample in the minute history,
 * and its outcome kept for `/etcd watch`. Returns the outcome, which BullMQ keeps as the job's result.
 */
export function createWatchCheck(deps: WatchCheckDeps): (job: WatchJob) => Promise<LastCheck> {
  const keep = keptClusters(KEPT_CLUSTERS_MAX);
  const clock = createClockSampling(deps.now ?? Date.now);
  return async (job) => {
    const ttlMs = job.intervalSeconds * 1000 * KEEP_INTERVALS + KEEP_GRACE_MS;
    let evidence: Evidence | undefined;
    const state = await deps.state.checkState(job.cluster, ttlMs);
    const clockSamples = clock.samples(job.cluster);
    const report = await deps.doctor.run(job.cluster, 'diagnose', {
      keepClients: keep(job.cluster, job.intervalSeconds),
      scrapes: { ...state.scrapes, clockSamples },
      onEvidence: (e) => {
        evidence = e;
      },
    });
    clock.after(job.cluster, clockSamples, report, evidence);
    const sample = summarizeCheck(report, evidence);
    const previous = state.last;
    const streak = nextStreak(report, previous ?? { bad: 0, good: 0 });
    const check: LastCheck = {
      ...streak,
      t: sample.t,
      status: report.status,
      // A known bug of the release is a risk, not a cause of what the watch sees (LATENT_CAUSES).
      causes: report.findings
        .filter((f) => f.severity !== 'info' && !LATENT_CAUSES.has(f.cause))
        .map((f) => [f.cause, f.members]),
      intervalSeconds: job.intervalSeconds,
      durationMs: Math.round(report.durationMs),
    };
    // One MULTI: the minute sample, the scrapes kept for the next window and the streak, saved
    // before the incident acts on it, so a check that dies posting still counts.
    await deps.history.record(job.cluster, sample, state.writes(check));
    await deps.afterCheck?.(job.cluster, report, streak, {
      evidence,
      previousRoot: previous && rootCauseOf(previous.causes),
    });
    deps.logger.debug({ cluster: job.cluster, status: check.status, causes: check.causes }, 'watch check');
    return check;
  };
}
