/**
 * The contract between the readers of collected evidence (a must-gather directory or tarball, a
 * `kubectl cluster-info dump` tree or its stdout, a pasted log) and the offline analysis that runs
 * etcd-doctor's rules on it (`etcd-doctor analyze`).
 *
 * A reader walks its input once, entry by entry, and hands what it finds to a `CollectionSink`:
 * log streams line by line, Kubernetes objects one by one (Lists flattened), the must-gather's
 * `etcd_info/*.json` parsed. The sink keeps only what the rules need, so memory stays bounded
 * however large the input is. Readers never buffer a whole log or a whole archive.
 */

import { MAX_SCANNED_LINE_CHARS } from '../etcd/scan-logs.js';

/** What kind of input a path turned out to be (said in the report's `source`). */
export type CollectionKind = 'must-gather' | 'cluster-info-dump' | 'log' | 'snapshot';

/** Where one log stream came from, as far as the layout says. */
export interface LogStreamMeta {
  /** The entry's path inside the input (`namespaces/openshift-etcd/pods/etcd-m1/etcd/etcd/logs/current.log`), or the file's path. */
  source: string;
  namespace?: string;
  pod?: string;
  container?: string;
  node?: string;
  /** `previous.log` (the container's last run before a restart). */
  previous: boolean;
  /** The member a plain log file speaks for, when its file name alone would not tell (`m1/etcd.log`, `m2/etcd.log`). */
  member?: string;
}

/** A Kubernetes object as `kubectl -o json` or `oc adm must-gather` wrote it (plain JSON, dates as strings). */
export interface KubeObject {
  apiVersion?: string;
  kind: string;
  metadata?: { name?: string; namespace?: string; [key: string]: unknown };
  [key: string]: unknown;
}

/** The files `oc adm must-gather`'s etcd gather writes under `etcd_info/`. */
export type EtcdInfoName = 'member_list' | 'endpoint_status' | 'endpoint_health' | 'alarm_list';

export interface CollectionSink {
  /** One log stream. The returned promise settles once every line is consumed; the reader awaits it before the next entry. */
  log(meta: LogStreamMeta, lines: AsyncIterable<string>): Promise<void>;
  /** One object (a Pod, Event, Node, Lease, ...); readers flatten `*List` kinds. */
  object(obj: KubeObject, meta: { source: string }): void;
  /** One parsed `etcd_info/<name>.json`. */
  etcdInfo(name: EtcdInfoName, json: unknown, meta: { source: string }): void;
  /** An entry left unread, with the reason (`binary`, `outside the archive`, `symlink escapes the archive`, `over the size cap`). */
  skipped(source: string, reason: string): void;
}

/** Bounds every reader honours. Exceeding `maxTotalBytes` (uncompressed) stops the read with an OfflineInputError. */
export interface ReadLimits {
  /** Uncompressed bytes read in all, the gzip-bomb cap. */
  maxTotalBytes: number;
  /** One line longer than this is cut to it (a minified blob must not hold memory). */
  maxLineBytes: number;
  /** Entries of one archive or directory, every entry counted (directories and skipped ones too). */
  maxEntries?: number;
}

/** An OpenShift must-gather of a large cluster holds ~20,000 entries; 50,000 tiny logs took 28 s and 292 MB. */
export const DEFAULT_MAX_ENTRIES = 30_000;

export const DEFAULT_READ_LIMITS: ReadLimits = {
  maxTotalBytes: 8 * 1024 ** 3,
  maxLineBytes: MAX_SCANNED_LINE_CHARS,
};

export interface ReadOptions {
  signal?: AbortSignal;
  limits?: ReadLimits;
}

/** What a reader read, for the report's `source`. */
export interface CollectionSummary {
  kind: CollectionKind;
  /** The path as given (or `-` for stdin). */
  path: string;
  entries: number;
  bytes: number;
  skipped: number;
}
