import type { MemberClients } from '../clients/etcd-clients.js';
import {
  countKeys,
  findCompactRevision,
  type KeyspaceRead,
  readKeyspace,
} from '../probes/space/read-keyspace.js';
import { watchChurn } from '../probes/space/watch-churn.js';
import { createSpaceTally, placeKey, type SpaceBreakdown, shareOf } from './space-breakdown.js';
import type { SpaceProgress, SpaceReport } from './space-report.js';

export interface FollowerScanOptions {
  prefixes: readonly string[];
  bytesPerSecond: number;
  maxScanSeconds: number;
  churnSeconds: number;
  /** The member's dbSizeInUse: what the value scan is expected to read, for the progress line. */
  expectedBytes: number;
  now: () => number;
  sleep: (ms: number) => Promise<void>;
  signal?: AbortSignal;
  onProgress?: (progress: SpaceProgress) => void;
}

export type FollowerScan = Pick<
  SpaceReport,
  | 'revision'
  | 'compactRevision'
  | 'totalKeys'
  | 'totalBytes'
  | 'byResource'
  | 'byNamespace'
  | 'largest'
  | 'churn'
  | 'churnWindow'
> & { scan: Omit<SpaceReport['scan'], 'member' | 'endpoint'> };

const COUNT_TIMEOUT_MS = 10_000;
const LOOKUP_TIMEOUT_MS = 3000;
/** A write storm shows within this many events; more would only cost the member bandwidth. */
const MAX_CHURN_EVENTS = 50_000;
const TOP_CHURN = 10;
/** Every this many keys of the keys-only scan, one is kept as a page bound for the value scan. */
const BOUND_EVERY = 64;

/**
 * Cheap first, on one member, all at one pinned revision: count_only (every key, nothing sent), the
 * compaction revision, a keys-only scan (keys per resource, exact), then the values (bytes,
 * namespaces, the largest objects). The value scan and the keys-only scan share one time box; a
 * watch counts writes per resource meanwhile. A scan cut short still answers, and says so.
 */
export async function scanFollower(
  kv: MemberClients['kv'],
  opts: FollowerScanOptions,
): Promise<FollowerScan> {
  const started = opts.now();
  const deadlineAt = started + opts.maxScanSeconds * 1000;
  const { count: totalKeys, revision } = await countKeys(kv, 0, COUNT_TIMEOUT_MS);
  const { compactRevision, requests: lookups } = await findCompactRevision(kv, revision, LOOKUP_TIMEOUT_MS);
  const churnP = countWrites(kv, revision, opts);
  const read = { revision, deadlineAt, totalKeys };
  const keys = await readKeys(kv, opts, read);
  const values = keys.read.complete
    ? await readValues(kv, opts, { ...read, revision: keys.read.unpinned ? 0 : revision }, keys.bounds)
    : { read: { ...keys.read, complete: false, keys: 0, bytesRead: 0, requests: 0 }, breakdown: undefined };
  const durationMs = Math.round(opts.now() - started);
  const churn = await churnP;
  const breakdown = values.breakdown ?? createSpaceTally().breakdown();
  return {
    revision,
    compactRevision,
    totalKeys,
    totalBytes: breakdown.totalBytes,
    ...breakdownParts(breakdown, keys.byResource, values.read.complete),
    ...churn,
    scan: {
      complete: values.read.complete,
      bytesRead: values.read.bytesRead,
      durationMs,
      bytesPerSecondLimit: opts.bytesPerSecond,
      requests: 1 + lookups + keys.read.requests + values.read.requests,
      keysComplete: keys.read.complete,
      ...(values.read.stoppedBecause ? { stoppedBecause: values.read.stoppedBecause } : {}),
      ...(values.read.nextKey !== undefined ? { nextKey: values.read.nextKey } : {}),
    },
  };
}

interface ReadAt {
  revision: number;
  deadlineAt: number;
  totalKeys: number;
}

/**
 * Keys only, every one: their count per resource is exact even when the value scan stops short.
 * Every BOUND_EVERY-th key is kept (in order): the value scan's pages end there.
 */
async function readKeys(kv: MemberClients['kv'], opts: FollowerScanOptions, at: ReadAt) {
  const tally = createSpaceTally({ prefixes: opts.prefixes });
  const bounds: Buffer[] = [];
  let seen = 0;
  const read = await readKeyspace(
    kv,
    {
      ...readOptions(opts, at),
      keysOnly: true,
      onPage: (p) => opts.onProgress?.({ phase: 'counting', keys: p.keys, totalKeys: at.totalKeys }),
    },
    (key) => {
      tally.add(key.toString('utf8'), 0);
      if (++seen % BOUND_EVERY === 0) bounds.push(Buffer.from(key));
    },
  );
  return { read, byResource: tally.keysByResource(), bounds };
}

/**
 * The end of a page of about `limit` keys from `from`: a kept key BOUND_EVERY keys apart, so the
 * member's index walk stops there instead of running to the end of the keyspace.
 */
function pageEndIn(bounds: readonly Buffer[]): (from: Buffer, limit: number) => Buffer | undefined {
  return (from, limit) => {
    let low = 0;
    let high = bounds.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (Buffer.compare(bounds[mid] as Buffer, from) <= 0) low = mid + 1;
      else high = mid;
    }
    return bounds[low + Math.ceil(limit / BOUND_EVERY) - 1];
  };
}

/** Keys and values: bytes per resource and namespace, the largest objects. */
async function readValues(
  kv: MemberClients['kv'],
  opts: FollowerScanOptions,
  at: ReadAt,
  bounds: readonly Buffer[],
): Promise<{ read: KeyspaceRead; breakdown: SpaceBreakdown }> {
  const tally = createSpaceTally({ prefixes: opts.prefixes });
  const read = await readKeyspace(
    kv,
    {
      ...readOptions(opts, at),
      keysOnly: false,
      pageEnd: pageEndIn(bounds),
      onPage: (p) =>
        opts.onProgress?.({
          phase: 'reading',
          bytesRead: p.bytesRead,
          expectedBytes: opts.expectedBytes,
          keys: p.keys,
          totalKeys: at.totalKeys,
        }),
    },
    (key, valueBytes) => tally.add(key.toString('utf8'), key.length + valueBytes),
  );
  return { read, breakdown: tally.breakdown() };
}

function readOptions(opts: FollowerScanOptions, at: ReadAt) {
  return {
    revision: at.revision,
    bytesPerSecond: opts.bytesPerSecond,
    deadlineAt: at.deadlineAt,
    now: opts.now,
    sleep: opts.sleep,
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
}

/** Writes per resource over the churn window, from a watch that starts where the scan's revision ends. */
async function countWrites(
  kv: MemberClients['kv'],
  revision: number,
  opts: FollowerScanOptions,
): Promise<Pick<SpaceReport, 'churn' | 'churnWindow'>> {
  const writes = new Map<string, number>();
  const churn = await watchChurn(
    kv,
    {
      fromRevision: revision + 1,
      windowMs: opts.churnSeconds * 1000,
      maxEvents: MAX_CHURN_EVENTS,
      startTimeoutMs: LOOKUP_TIMEOUT_MS,
      ...(opts.signal ? { signal: opts.signal } : {}),
    },
    (key) => {
      const resource = placeKey(key.toString('utf8'), opts.prefixes).resource;
      writes.set(resource, (writes.get(resource) ?? 0) + 1);
    },
  );
  return {
    churn: churnRates(writes, churn.windowMs),
    churnWindow: {
      seconds: Math.round(churn.windowMs / 100) / 10,
      writes: churn.writes,
      capped: churn.capped,
      ...(churn.failure ? { error: churn.failure } : {}),
    },
  };
}

/**
 * A complete value scan is the breakdown itself. A partial one has bytes for the keys it reached;
 * the keys-only count (all of them, or as far as it got) gives every resource's keys.
 */
function breakdownParts(
  values: SpaceBreakdown,
  keys: Map<string, { prefix: string; keys: number }>,
  complete: boolean,
): Pick<SpaceReport, 'byResource' | 'byNamespace' | 'largest'> {
  const { byResource, byNamespace, largest } = values;
  if (complete) return { byResource, byNamespace, largest };
  const bytes = new Map(byResource.map((r) => [r.resource, r]));
  const merged = [...new Set([...keys.keys(), ...bytes.keys()])].map((resource) => {
    const v = bytes.get(resource);
    const k = keys.get(resource);
    return {
      resource,
      prefix: k?.prefix ?? v?.prefix ?? '',
      keys: Math.max(k?.keys ?? 0, v?.keys ?? 0),
      bytes: v?.bytes ?? 0,
      share: shareOf(v?.bytes ?? 0, values.totalBytes),
    };
  });
  merged.sort((a, b) => b.bytes - a.bytes || b.keys - a.keys || (a.resource < b.resource ? -1 : 1));
  return { byResource: merged, byNamespace, largest };
}

function churnRates(writes: Map<string, number>, windowMs: number): SpaceReport['churn'] {
  if (windowMs <= 0) return [];
  return [...writes]
    .map(([resource, n]) => ({ resource, writesPerSecond: Math.round((n / (windowMs / 1000)) * 10) / 10 }))
    .sort((a, b) => b.writesPerSecond - a.writesPerSecond || (a.resource < b.resource ? -1 : 1))
    .slice(0, TOP_CHURN);
}
