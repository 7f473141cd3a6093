import { basename } from 'node:path';
import { formatBytes, formatPercent } from '../../format.js';
import { breakDownSpace, type SpaceBreakdown, type SpaceOptions } from '../../space/space-breakdown.js';
import type { CollectionSummary } from '../collection.js';
import { hasBboltMagic } from '../../etcd/snapshot/bbolt-file.js';
import { readSnapshot, type SnapshotSummary } from '../../etcd/snapshot/read-snapshot.js';
import { SnapshotError } from '../../etcd/snapshot/snapshot-error.js';

/** `etcd-doctor analyze snapshot.db --json` (DESIGN.md). */
export interface SnapshotReport {
  kind: 'snapshot';
  durationMs: number;
  source: CollectionSummary[];
  snapshot: SnapshotSummary;
  space: Pick<SpaceBreakdown, 'totalBytes' | 'byResource' | 'byNamespace' | 'largest'>;
}

/** A snapshot by its bytes (a bbolt meta page), or by its name (`*.db`, `db`) so a damaged one is still called one. */
export function looksLikeSnapshot(path: string, head: Buffer): boolean {
  const name = basename(path);
  return hasBboltMagic(head) || name === 'db' || name.endsWith('.db');
}

export async function analyzeSnapshot(path: string, opts: SpaceOptions = {}): Promise<SnapshotReport> {
  const started = Date.now();
  const { snapshot, keys } = await readSnapshot(path);
  const entries = (function* () {
    for (const [key, bytes] of keys) yield { key: Buffer.from(key, 'latin1').toString('utf8'), bytes };
  })();
  const { totalBytes, byResource, byNamespace, largest } = breakDownSpace(entries, opts);
  return {
    kind: 'snapshot',
    durationMs: Date.now() - started,
    source: [{ kind: 'snapshot', path, entries: snapshot.totalKeys, bytes: snapshot.sizeBytes, skipped: 0 }],
    snapshot,
    space: { totalBytes, byResource, byNamespace, largest },
  };
}

/** The one line for a snapshot whose SHA-256 trailer does not match (its report is printed as well). */
export function hashMismatch(path: string): SnapshotError {
  return new SnapshotError(
    `${path} is damaged: its SHA-256 trailer does not match its bytes (a byte changed after etcdctl snapshot save wrote it); the breakdown above may be wrong: take the snapshot again`,
  );
}

const TOP_LINES = 10;

export function renderSnapshotText(r: SnapshotReport, path: string): string {
  const s = r.snapshot;
  const hash =
    s.hashOk === null
      ? 'no SHA-256 trailer (a member db)'
      : s.hashOk
        ? 'SHA-256 ok'
        : 'SHA-256 DOES NOT MATCH';
  const compact = s.compactRevision === null ? 'never compacted' : `compacted at ${s.compactRevision}`;
  const lines = [
    `Snapshot ${basename(path)}: revision ${s.revision}, ${s.totalKeys} keys, ${formatBytes(s.sizeBytes)} file, ${hash}`,
    `  ${compact}; keys and values hold ${formatBytes(r.space.totalBytes)}`,
    '',
    'By resource (keys, key + value bytes, share):',
    ...r.space.byResource
      .slice(0, TOP_LINES)
      .map(
        (x) =>
          `  ${x.resource.padEnd(32)} ${String(x.keys).padStart(8)}  ${formatBytes(x.bytes).padStart(8)}  ${formatPercent(x.share).padStart(5)}`,
      ),
    '',
    'Largest objects:',
    ...r.space.largest.slice(0, TOP_LINES).map((x) => `  ${formatBytes(x.bytes).padStart(8)}  ${x.key}`),
  ];
  if (r.space.byResource.length > TOP_LINES)
    lines.splice(4 + TOP_LINES, 0, `  … ${r.space.byResource.length - TOP_LINES} more (--json)`);
  return lines.join('\n');
}
