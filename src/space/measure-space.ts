import type { KubernetesClients } from '../clients/kubernetes.js';
import { etcdEndpointsOf, kubernetesLoader } from '../clients/cluster-reach.js';
import { createMemberClients, loadEtcdTls, type MemberClients } from '../clients/etcd-clients.js';
import { createHttpGet, type HttpClient } from '../clients/http.js';
import type { ClusterConfig } from '../config/schema.js';
import { describeError, EtcdDoctorError } from '../errors.js';
import { readApiserverObjects } from '../probes/space/apiserver-objects.js';
import { readMemberQuota, metricsUrlOf } from '../probes/space/member-quota.js';
import {
  type MemberRole,
  pickFollower,
  readMemberNames,
  readMemberRoles,
} from '../probes/space/member-roles.js';
import { abortableSleep } from '../timing.js';
import { DEFAULT_KEY_PREFIXES } from './space-breakdown.js';
import type { ApiserverCrossCheck, SpaceProgress, SpaceReport } from './space-report.js';
import { type FollowerScan, scanFollower } from './scan-follower.js';

/** Defaults of `clusters[].space` (docs/space.md). */
export const DEFAULT_SPACE_SETTINGS = {
  /** The issue's bound: a scan must never be the load that hurts the cluster it measures. */
  bytesPerSecond: 5_000_000,
  maxScanSeconds: 120,
  churnSeconds: 5,
} as const;

/** A response may hold up to this much: one etcd value may be up to --max-request-bytes (1.5 MiB default, often raised). */
const SCAN_GRPC_OPTIONS = { 'grpc.max_receive_message_length': 64 * 1024 * 1024 };
const STATUS_TIMEOUT_MS = 3000;

export interface SpaceDeps {
  readFileBuffer: (path: string) => Promise<Buffer>;
  now?: () => number;
}

export interface SpaceRunOptions {
  signal?: AbortSignal;
  onProgress?: (progress: SpaceProgress) => void;
  /** Overrides of the cluster's `space` settings (CLI flags, tests). */
  bytesPerSecond?: number;
  maxScanSeconds?: number;
  churnSeconds?: number;
}

/**
 * Nothing could be measured: no member answered Status, or the endpoints could not be found. Said
 * with each member's error; the CLI's exit 3 (etcd-doctor could not look), an answer in chat, a
 * tool error in MCP.
 */
export class SpaceUnavailableError extends EtcdDoctorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('action_failed', message, options);
    this.name = 'SpaceUnavailableError';
  }
}

export interface SpaceSettingsResolved {
  prefixes: readonly string[];
  bytesPerSecond: number;
  maxScanSeconds: number;
  churnSeconds: number;
}

export function spaceSettingsOf(cluster: ClusterConfig, opts: SpaceRunOptions = {}): SpaceSettingsResolved {
  const s = cluster.space ?? {};
  return {
    // `/registry` and `/registry/` mean the same prefix.
    prefixes: (s.prefixes ?? DEFAULT_KEY_PREFIXES).map((p) => (p.endsWith('/') ? p : `${p}/`)),
    bytesPerSecond: opts.bytesPerSecond ?? s.bytesPerSecond ?? DEFAULT_SPACE_SETTINGS.bytesPerSecond,
    maxScanSeconds: opts.maxScanSeconds ?? s.maxScanSeconds ?? DEFAULT_SPACE_SETTINGS.maxScanSeconds,
    churnSeconds: opts.churnSeconds ?? s.churnSeconds ?? DEFAULT_SPACE_SETTINGS.churnSeconds,
  };
}

/**
 * What fills one cluster's etcd, measured live: every member's Status (sizes, who leads), the
 * quota from /metrics, then a scan of one follower (scan-follower.ts) and, with Kubernetes
 * configured, the API server's own object counts. Its own clients, closed at the end: a scan never
 * shares the doctor's channels. Throws SpaceUnavailableError when no member answers.
 */
export async function measureSpace(
  cluster: ClusterConfig,
  deps: SpaceDeps,
  opts: SpaceRunOptions = {},
): Promise<SpaceReport> {
  const settings = spaceSettingsOf(cluster, opts);
  const kube = kubernetesLoader(cluster, deps.readFileBuffer);
  const endpoints = await resolveEndpoints(cluster, kube);
  const tls = await loadEtcdTls(cluster, deps);
  const members = endpoints.map((e) => createMemberClients(e, tls, SCAN_GRPC_OPTIONS));
  const http = createHttpGet(tls);
  try {
    return await measureWith(cluster, { members, http, settings, deps, opts, kube });
  } finally {
    for (const m of members) {
      m.kv.close();
      m.admin.close();
    }
    await http.close();
  }
}

interface Measuring {
  members: MemberClients[];
  http: HttpClient;
  settings: SpaceSettingsResolved;
  deps: SpaceDeps;
  opts: SpaceRunOptions;
  /** The cluster's Kubernetes clients, loaded once for the run (endpoints and the apiserver's counts). */
  kube: () => Promise<KubernetesClients>;
}

async function measureWith(cluster: ClusterConfig, m: Measuring): Promise<SpaceReport> {
  const now = m.deps.now ?? Date.now;
  const measuredAt = new Date(now()).toISOString();
  const roles = await readMemberRoles(m.members, STATUS_TIMEOUT_MS);
  const answered = roles.flatMap((r) => (r.ok ? [r] : []));
  const first = answered[0];
  if (!first) throw new SpaceUnavailableError(noMemberAnswered(cluster.name, roles));
  const names = await readMemberNames(clientsOf(m.members, first.endpoint), STATUS_TIMEOUT_MS);
  const nameOf = (r: { id: string; endpoint: string }) => names.get(r.id) ?? r.endpoint;
  const biggest = [...answered].sort((a, b) => b.dbSizeBytes - a.dbSizeBytes)[0] ?? first;
  const index = m.members.findIndex((c) => c.endpoint === biggest.endpoint);
  const quotaP = readMemberQuota(
    m.http.get,
    metricsUrlOf(biggest.endpoint, cluster.etcd.metricsUrls?.[index]),
    STATUS_TIMEOUT_MS,
  );
  const apiserverP = crossCheck(cluster, m.kube);
  // A one-member cluster has no follower: its only member is read, at the same rate limit.
  const follower = pickFollower(roles) ?? (roles.length === 1 ? first : undefined);
  const scanned = follower ? await scanOrWhy(m, follower, nameOf(follower), now) : undefined;
  const scan = typeof scanned === 'string' ? undefined : scanned;
  const apiserver = await apiserverP;
  return {
    cluster: cluster.name,
    measuredAt,
    revision: scan?.revision ?? biggest.revision,
    compactRevision: scan?.compactRevision ?? 0,
    dbSize: biggest.dbSizeBytes,
    dbSizeInUse: biggest.dbSizeInUseBytes,
    quota: (await quotaP) ?? null,
    ...spaceParts(scan, m.settings, follower ? nameOf(follower) : null, follower?.endpoint ?? null, {
      roles,
      ...(typeof scanned === 'string' ? { failure: scanned } : {}),
    }),
    ...(apiserver ? { apiserver: withKeys(apiserver, scan) } : {}),
    dbMember: nameOf(biggest),
  };
}

/** The breakdown, churn and scan fields: from the scan, or empty with why there was none. */
function spaceParts(
  scan: FollowerScan | undefined,
  settings: SpaceSettingsResolved,
  member: string | null,
  endpoint: string | null,
  why: { roles: readonly MemberRole[]; failure?: string },
): Pick<
  SpaceReport,
  'totalKeys' | 'totalBytes' | 'byResource' | 'byNamespace' | 'largest' | 'churn' | 'churnWindow' | 'scan'
> {
  if (scan) {
    const { revision: _r, compactRevision: _c, ...parts } = scan;
    return { ...parts, scan: { ...scan.scan, member, endpoint } };
  }
  const leader = why.roles.find((r) => r.ok && r.isLeader);
  const noFollower = `no follower answered Status${leader ? ` (only the leader, ${leader.endpoint}, did)` : ''}: the leader is never scanned, since every write goes through it`;
  return {
    totalKeys: 0,
    totalBytes: 0,
    byResource: [],
    byNamespace: [],
    largest: [],
    churn: [],
    churnWindow: { seconds: 0, writes: 0, capped: false },
    scan: {
      complete: false,
      bytesRead: 0,
      durationMs: 0,
      member: null,
      endpoint: null,
      bytesPerSecondLimit: settings.bytesPerSecond,
      requests: 0,
      keysComplete: false,
      stoppedBecause: why.failure ?? noFollower,
    },
  };
}

/**
 * The follower's scan, or why it could not start (the member stopped answering between its Status
 * and the first range): an answer with the sizes and that reason, never an exception that loses them.
 */
async function scanOrWhy(
  m: Measuring,
  follower: Extract<MemberRole, { ok: true }>,
  name: string,
  now: () => number,
): Promise<FollowerScan | string> {
  try {
    return await scanFollower(clientsOf(m.members, follower.endpoint).kv, {
      ...m.settings,
      now,
      sleep: (ms) => abortableSleep(ms, m.opts.signal),
      expectedBytes: follower.dbSizeInUseBytes,
      ...(m.opts.signal ? { signal: m.opts.signal } : {}),
      ...(m.opts.onProgress ? { onProgress: m.opts.onProgress } : {}),
    });
  } catch (err) {
    m.opts.signal?.throwIfAborted();
    return `${name} (${follower.endpoint}) stopped answering before the scan began: ${describeError(err).replace(/^unexpected error: /, '')}`;
  }
}

function clientsOf(members: readonly MemberClients[], endpoint: string): MemberClients {
  const found = members.find((c) => c.endpoint === endpoint);
  if (!found) throw new Error(`no clients for ${endpoint}`);
  return found;
}

function noMemberAnswered(cluster: string, roles: readonly MemberRole[]): string {
  const why = roles.map((r) => `${r.endpoint}: ${r.ok ? 'ok' : r.error}`).join('; ');
  return `no member of ${cluster} answered Status within ${STATUS_TIMEOUT_MS / 1000} s (${why}): nothing was measured`;
}

/** The cluster's etcd client URLs (clients/cluster-reach.ts), or why not as the space scan says it. */
async function resolveEndpoints(
  cluster: ClusterConfig,
  kube: () => Promise<KubernetesClients>,
): Promise<string[]> {
  try {
    return await etcdEndpointsOf(cluster, kube);
  } catch (err) {
    throw new SpaceUnavailableError(describeError(err).replace(/^unexpected error: /, ''), { cause: err });
  }
}

/** apiserver_storage_objects (or 1.34's apiserver_resource_objects), when Kubernetes is configured; a failure is said, never thrown. */
async function crossCheck(
  cluster: ClusterConfig,
  kube: () => Promise<KubernetesClients>,
): Promise<ApiserverCrossCheck | undefined> {
  if (!cluster.kubernetes) return undefined;
  try {
    const read = await readApiserverObjects(await kube(), STATUS_TIMEOUT_MS);
    return {
      metric: read.metric,
      objects: [...read.objects].map(([resource, count]) => ({ resource, objects: count, keys: null })),
    };
  } catch (err) {
    return { objects: [], error: describeError(err).replace(/^unexpected error: /, '') };
  }
}

/** Each API server count beside the keys counted in etcd for the same resource, largest first. */
function withKeys(check: ApiserverCrossCheck, scan: FollowerScan | undefined): ApiserverCrossCheck {
  const keys = new Map((scan?.byResource ?? []).map((r) => [r.resource, r.keys]));
  const objects = check.objects
    .map((o) => ({ ...o, keys: scan?.scan.keysComplete ? (keys.get(o.resource) ?? 0) : null }))
    .sort((a, b) => b.objects - a.objects || a.resource.localeCompare(b.resource));
  return { ...check, objects };
}
