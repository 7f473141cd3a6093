import type { Doctor } from '../doctor.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { describeError } from '../errors.js';
import type { DayTrends } from '../state/day-trends.js';
import type { ScrapeMemory } from '../probes/member-context.js';
import type { MinuteHistory } from '../state/minute-history.js';
import {
  clusterCostBytes,
  createMemoryBudget,
  type MemoryBudget,
  scrapeCostBytes,
  windowCostBytes,
} from './memory-budget.js';

const DAY_MS = 24 * 3600_000;

/** Full reports in the digest's thread for this many unhealthy clusters; the rest get a brief summary. */
export const MAX_THREAD_REPORTS = 10;

/**
 * What a `digest-part` job returns for each of its clusters, and what the digest keeps until its
 * message is rendered: a compact report (compactReport) except for the few that may get a full
 * report in the thread, and the day of minute history when the cluster is watched.
 */
export type PartOutcome =
  | { cluster: string; ok: true; report: DiagnosisReport; day?: DayTrends }
  | { cluster: string; ok: false; reason: string };

export interface ClusterDiagnosisDeps {
  doctor: Pick<Doctor, 'run'> & Partial<Pick<Doctor, 'cluster' | 'firstScrapes'>>;
  /** The runs in flight: each holds its cluster's channels, sockets and evidence. */
  budget: MemoryBudget;
  /**
   * Clusters from their first /metrics scrapes to the end of their run (each holds its kept
   * scrapes while it waits out the window). Default: only `budget` bounds them.
   */
  windows?: MemoryBudget;
  now: () => number;
  /** Waits out a metrics window (default setTimeout). */
  sleep?: (ms: number) => Promise<void>;
  /** The watch's minute history: a watched cluster's day comes from it, with one scrape per member. */
  minutes?: Pick<MinuteHistory, 'day'>;
  /** The watch's kept /metrics scrapes (state/watch-state.ts), read and never written by a digest. */
  watchScrapes?: (cluster: string) => ScrapeMemory;
}

/**
 * The report without what the digest never shows for a cluster that gets one line: probe records,
 * rule traces, the timeline, remediation steps, evidence past the three the thread's brief quotes.
 * About 1-2 KB instead of ~20 KB for a 3-member cluster.
 */
export function compactReport(r: DiagnosisReport): DiagnosisReport {
  return {
    cluster: r.cluster,
    status: r.status,
    durationMs: r.durationMs,
    kind: r.kind,
    collectedAt: r.collectedAt,
    members: r.members,
    findings: r.findings.map((f) => ({
      ...f,
      evidence: f.evidence.slice(0, 3),
      remediation: [],
      steps: [],
      unknowns: [],
    })),
    probes: [],
    // The line's newest good backup: at most ten snapshots and the backup jobs, a few hundred bytes.
    ...(r.backups ? { backups: r.backups } : {}),
  };
}

/** A watch's kept scrapes, read only: the digest's one scrape must not move the watch's window. */
function readOnly(scrapes: ScrapeMemory | undefined): ScrapeMemory {
  return {
    previous: (url) => scrapes?.previous(url) ?? Promise.resolve(undefined),
    keep: async () => undefined,
  };
}

/** The day of minute history of a watched cluster (its 5-minute roll-ups); undefined when there is none. */
async function dayOf(deps: ClusterDiagnosisDeps, cluster: string): Promise<DayTrends | undefined> {
  if (!deps.minutes) return undefined;
  return deps.minutes.day(cluster, deps.now() - DAY_MS).catch(() => undefined);
}

/**
 * One cluster. A watched one (a day of minute history) is diagnosed on one scrape per member,
 * against the watch's last kept scrape. An unwatched one takes its window's first scrapes first
 * and waits the window out holding only those (a few kB a member, inside `windows`), then runs
 * inside the memory budget: its channels and sockets are open only for the run itself, so many
 * clusters' waits overlap while few hold connections (when the run held them through its 3 s
 * window, a large digest held every cluster's connections at once).
 */
async function diagnoseOne(deps: ClusterDiagnosisDeps, cluster: string): Promise<PartOutcome> {
  const members = membersOf(deps, cluster);
  // Held from the first scrapes until the run starts: the clusters ahead of the runs.
  const ahead = await (deps.windows ?? OPEN).acquire(windowCostBytes(members));
  try {
    const day = await dayOf(deps, cluster);
    const scrapes = day
      ? readOnly(deps.watchScrapes?.(cluster))
      : await waitOutWindow(deps, cluster, members);
    return await deps.budget.run(clusterCostBytes(members), () => {
      ahead();
      return runOne(deps, cluster, day, scrapes);
    });
  } catch (err) {
    return { cluster, ok: false, reason: describeError(err) };
  } finally {
    ahead();
  }
}

/** No bound: `budget` alone decides (callers that pass no `windows`). */
const OPEN = createMemoryBudget(Number.POSITIVE_INFINITY);

/** The first scrapes of an unwatched cluster, once its window is over; undefined: the run scrapes twice itself. */
async function waitOutWindow(
  deps: ClusterDiagnosisDeps,
  cluster: string,
  members: number,
): Promise<ScrapeMemory | undefined> {
  // The scrapes hold the pages' text while they arrive: inside the budget, as runs are.
  const first = await deps.budget.run(scrapeCostBytes(members), () =>
    (deps.doctor.firstScrapes?.(cluster) ?? Promise.resolve(undefined)).catch(() => undefined),
  );
  if (!first) return undefined;
  const waitMs = first.readyAtMs - Date.now();
  if (waitMs > 0) await (deps.sleep ?? sleepMs)(waitMs);
  return first;
}

const sleepMs = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

async function runOne(
  deps: ClusterDiagnosisDeps,
  cluster: string,
  day: DayTrends | undefined,
  scrapes: ScrapeMemory | undefined,
): Promise<PartOutcome> {
  try {
    // Once a day per cluster: do not keep hundreds of clusters' connections open in between.
    const report = await deps.doctor.run(cluster, 'diagnose', {
      keepClients: false,
      ...(scrapes ? { scrapes } : {}),
      ...(day ? { dayOfChecks: day } : {}),
    });
    // A healthy cluster gets one line: its report is compacted at once, not after the part.
    const kept = report.status === 'healthy' ? compactReport(report) : report;
    return { cluster, ok: true, report: kept, ...(day ? { day } : {}) };
  } catch (err) {
    return { cluster, ok: false, reason: describeError(err) };
  }
}

/** The configured member count (endpoints); 3 when they are discovered or the cluster is unknown (run() says so). */
function membersOf(deps: ClusterDiagnosisDeps, cluster: string): number {
  try {
    return deps.doctor.cluster?.(cluster).etcd.endpoints?.length ?? 3;
  } catch {
    return 3;
  }
}

const ORDER: Record<DiagnosisReport['status'], number> = { critical: 0, degraded: 1, unknown: 2, healthy: 3 };

/**
 * Diagnoses the clusters, as many at once as the process's memory budget allows, and keeps full
 * reports only for the worst `MAX_THREAD_REPORTS` unhealthy ones. The digest's thread shows the
 * worst of all (status, then name: a total order), which are among each part's worst, so a part
 * dropping the others loses nothing the thread shows.
 */
export async function diagnoseClusters(deps: ClusterDiagnosisDeps, names: string[]): Promise<PartOutcome[]> {
  const outcomes = await Promise.all(names.map((cluster) => diagnoseOne(deps, cluster)));
  const full = outcomes
    .flatMap((o) => (o.ok && o.report.status !== 'healthy' ? [o] : []))
    .sort((a, b) => ORDER[a.report.status] - ORDER[b.report.status] || a.cluster.localeCompare(b.cluster))
    .slice(0, MAX_THREAD_REPORTS);
  const keep = new Set(full.map((o) => o.cluster));
  return outcomes.map((o) => (o.ok && !keep.has(o.cluster) ? { ...o, report: compactReport(o.report) } : o));
}
