import type { LargestObject, NamespaceSpace, ResourceSpace } from './space-breakdown.js';

/** Writes per second to one resource over the churn window. */
export interface ResourceChurn {
  resource: string;
  writesPerSecond: number;
}

/** How the scan went: from which member, how much it read, and why it stopped short if it did. */
export interface SpaceScan {
  /** Every key's value was read; false: bytes cover the keys up to `nextKey` only. */
  complete: boolean;
  /** Key + value bytes received by the value scan (the keys-only count is not included). */
  bytesRead: number;
  durationMs: number;
  /** The follower read from (its name, or its endpoint when the member list did not say); null: none. */
  member: string | null;
  endpoint: string | null;
  /** The rate limit the scan kept to. */
  bytesPerSecondLimit: number;
  /** Range requests sent to that member (count, keys-only and value pages, compaction lookups). */
  requests: number;
  /** Why the scan stopped short, in words. */
  stoppedBecause?: string;
  /** The first key whose value was not read. */
  nextKey?: string;
  /** The keys-only count covered every key (byResource[].keys are exact even when bytes are partial). */
  keysComplete: boolean;
}

/** `apiserver_storage_objects` (or 1.34's `apiserver_resource_objects`) from the API server's /metrics, beside the keys counted in etcd. */
export interface ApiserverCrossCheck {
  /** Which of the two the counts came from; absent when neither was read. */
  metric?: 'apiserver_storage_objects' | 'apiserver_resource_objects';
  /** Objects per resource as the API server counts them, with the keys etcd holds for it. */
  objects: Array<{ resource: string; objects: number; keys: number | null }>;
  /** Why there is nothing to compare (no access, no such metric). */
  error?: string;
}

/** `etcd-doctor space <cluster> --json`, MCP etcd_space (DESIGN.md). */
export interface SpaceReport {
  cluster: string;
  /** ISO 8601, when the scan began. */
  measuredAt: string;
  /** The revision the scan read at (pinned across its pages). */
  revision: number;
  /** The revision etcd last compacted at; 0 if never. */
  compactRevision: number;
  /** The largest member database (the one that meets the quota first), bytes. */
  dbSize: number;
  dbSizeInUse: number;
  /** That member's --quota-backend-bytes from its /metrics; null when it was not read. */
  quota: number | null;
  /** Keys at `revision` (count_only). */
  totalKeys: number;
  /** Key + value bytes read (all of them when `scan.complete`). */
  totalBytes: number;
  byResource: ResourceSpace[];
  byNamespace: NamespaceSpace[];
  largest: LargestObject[];
  churn: ResourceChurn[];
  /** The churn window: its length, writes seen, and whether the event cap cut it short. */
  churnWindow: { seconds: number; writes: number; capped: boolean; error?: string };
  scan: SpaceScan;
  /** With Kubernetes configured: the API server's own object counts. */
  apiserver?: ApiserverCrossCheck;
  /** The member whose database sizes and quota are given. */
  dbMember: string | null;
}

/** What the scan is doing, for the progress line in the thread (and stderr in the CLI). */
export type SpaceProgress =
  | { phase: 'counting'; keys: number; totalKeys: number }
  | { phase: 'reading'; bytesRead: number; expectedBytes: number; keys: number; totalKeys: number };
