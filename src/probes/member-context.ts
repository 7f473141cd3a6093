import type { MemberClients } from '../clients/etcd-clients.js';
import { grpcDeadline } from '../clients/grpc-deadline.js';
import type { HttpGet } from '../clients/http.js';
import type { EtcdMetricsSnapshot } from './etcd-metrics.js';
import type { MemberTarget } from './evidence.js';

/**
 * Where a watch keeps each member's last /metrics scrape between checks (src/state/watch-state.ts):
 * with it the metrics probe scrapes once and compares with the previous check's scrape, so the
 * window is the watch interval instead of a 3-second wait.
 */
export interface ScrapeMemory {
  /** The scrape kept for this /metrics URL, if any. */
  previous(metricsUrl: string): Promise<EtcdMetricsSnapshot | undefined>;
  keep(metricsUrl: string, snapshot: EtcdMetricsSnapshot): Promise<void>;
  /**
   * The kept scrapes are the first of this run's own metrics window, taken a window before it (the
   * digest's, digest/diagnose-clusters.ts): the run scrapes once more and widens a thin window as the
   * two-scrape path does, and a member without a kept scrape is scraped twice around the window.
   */
  firstScrapes?: boolean;
  /**
   * A watch check's clock samples per member, at most BUSY_CLOCK_SAMPLES (its default): fewer while
   * the cluster's recent clocks agreed (src/watch/clock-sampling.ts).
   */
  clockSamples?: number;
}

/** What a per-member probe gets: the member, its own clients, and injected I/O. */
export interface MemberProbeContext {
  target: MemberTarget;
  clients: MemberClients;
  httpGet: HttpGet;
  now: () => number;
  sleep: (ms: number, signal: AbortSignal) => Promise<void>;
  metricsWindowMs: number;
  /** Says why the run takes longer than its window (collect-options.ts onNote). */
  onNote?: (note: string) => void;
  /** Set by a watch check: one scrape, compared with the one kept from the previous check. */
  scrapes?: ScrapeMemory;
  /** How many GET /version the clock probe may send this member (probe-member.ts). */
  clockSamples?: number;
}

/**
 * The gRPC deadline sits this long after the probe's own timeout, so that timeout decides (it
 * lets an answer already received be read first, probe.ts afterPendingIo); the deadline only
 * ends calls that outlive it.
 */
export const GRPC_DEADLINE_GRACE_MS = 1000;

/** gRPC deadline for a call of a probe with this timeout (on the wall clock: clients/grpc-deadline.ts). */
export function deadline(timeoutMs: number): { deadline: Date } {
  return grpcDeadline(timeoutMs + GRPC_DEADLINE_GRACE_MS);
}
