import type { CheckDepth } from '../contracts/check-depth.js';
import type { EtcdClients, EtcdTlsFiles } from '../clients/etcd-clients.js';
import type { HttpGet, PeerCertificateInfo } from '../clients/http.js';
import type { ResolvedCluster } from '../config/schema.js';
import type { MemberInfo, ProbeRecord } from './evidence.js';
import type { ScrapeMemory } from './member-context.js';
import type { Outcome } from './outcome.js';

/**
 * A run's progress: probes done of total, the probe that just finished, and why the run takes
 * longer than its window when a probe said so (`note`), which the root message shows.
 */
export interface RunProgress {
  done: number;
  total: number;
  probe?: ProbeRecord;
  note?: string;
}

export interface CollectOptions {
  cluster: ResolvedCluster;
  clients: EtcdClients;
  httpGet: HttpGet;
  /** The certificate a member's TLS port presented to httpGet's connections (clients/http.ts). */
  peerCertificate?: (url: string) => PeerCertificateInfo | undefined;
  now: () => number;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  timeoutMs: number;
  metricsWindowMs: number;
  /** A watch check: one /metrics scrape per member against the previous check's (member-context.ts). */
  scrapes?: ScrapeMemory;
  /** `health` asks only what `/etcd health` shows; `diagnose` adds /metrics and clocks. */
  depth: CheckDepth;
  onProgress?: (progress: RunProgress) => void;
  /** A probe says why the run takes longer than its window (a thin /metrics window widened). */
  onNote?: (note: string) => void;
  /** A member list fetched moments ago (warm health checks reuse it instead of asking again). */
  recentMemberList?: Outcome<MemberInfo[]>;
  /** Aborts every probe of the run (the caller gave up); see runProbe. */
  signal?: AbortSignal;
  /** The TLS files the clients use: the access check presents the same ones. */
  tls?: EtcdTlsFiles | undefined;
  /** Where the cluster's etcd block is in the config, for fixes: `clusters[0].etcd`. */
  etcdPath?: string;
  /** etcd-doctor already probes the same hosts from other runs: send fewer clock samples. */
  busy?: boolean;
}

/**
 * The access check runs only after Status failed, and gets at most this long: it is one TCP
 * connection and one GET /version, so a member that needs more is not answering anyway.
 */
export const ACCESS_CHECK_TIMEOUT_MS = 1500;

/**
 * The probe load one diagnosis puts on one member: health (a warm-up on a cold client, then the
 * read), Status, two /metrics scrapes, and the clock's GET /version samples, one at a time, at
 * most MAX_SAMPLES of clock.ts (13): 18 requests in about 3 s, never more than 4 at once. After a failure the
 * access check adds one to three connections. When etcd-doctor already has many runs on the same
 * hosts (a digest), the clock takes at most BUSY_CLOCK_SAMPLES: its round trips are not judged then.
 */
export const BUSY_CLOCK_SAMPLES = 4;

/**
 * A watch check asks MemberList of one member, and of the others only when it fails or has not
 * answered in this long: two RPCs fewer every interval, for at most this delay behind a hung member.
 */
export const WATCH_HEDGE_MS = 250;

/** A watch check: one scrape against the previous check's (not a digest's first scrapes). */
export function isWatchCheck(opts: CollectOptions): boolean {
  return opts.scrapes !== undefined && !opts.scrapes.firstScrapes;
}
