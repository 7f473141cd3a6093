import type { ConfigFile } from '../config/schema.js';
import type { Rule } from '../diagnosis/rule.js';
import type { DayOfChecks } from '../state/history-sample.js';
import type { Metrics } from '../metrics/metrics.js';
import type { RunProgress } from '../probes/collect-options.js';
import type { Evidence } from '../probes/evidence.js';
import type { ScrapeMemory } from '../probes/member-context.js';

export interface DoctorDeps {
  config: ConfigFile;
  readFileBuffer: (path: string) => Promise<Buffer>;
  /** The time rules judge ages against (restarts per day, uptime). etcd probes always use the real clock. */
  now?: () => number;
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  rules?: readonly Rule[];
  /** Diagnosis and probe durations and findings on /metrics. */
  metrics?: Pick<Metrics, 'observeReport'>;
}

export interface RunOptions {
  explain?: boolean;
  onProgress?: (progress: RunProgress) => void;
  /** Receives the evidence behind the report (history keeps leader-change counters and restarts from it). */
  onEvidence?: (evidence: Evidence) => void;
  /**
   * Default true: the cluster's gRPC channels and HTTP agent stay open, so the next check is warm.
   * False (the digest, which visits every cluster once a day): they are closed after the run unless
   * a kept run uses them, so a 200-cluster digest does not leave ~1,000 sockets open.
   */
  keepClients?: boolean;
  /**
   * The caller gave up (an MCP client's request was cancelled): every probe stops at once and run()
   * rejects with the signal's reason instead of returning a report built from cancelled probes.
   */
  signal?: AbortSignal;
  /** A watch check (src/watch/): each member's /metrics is scraped once and compared with the kept scrape. */
  scrapes?: ScrapeMemory;
  /** The digest read this day of watch checks for the cluster: the history sample keeps it (history/doctor-for.ts). */
  dayOfChecks?: DayOfChecks;
  /**
   * Read the cluster's backups (`clusters[].backups`) at any depth, every listed snapshot
   * (`/etcd backups`); a diagnosis reads them anyway, newest first until a good one.
   */
  backups?: boolean;
}
