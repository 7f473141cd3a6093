import { formatBytes } from '../../format.js';
import { type TextView, textView } from '../../report/chat-view.js';
import { largestRow, resourceRow } from '../../space/render-space.js';
import type { SnapshotReport } from './analyze-snapshot.js';

const TOP_RESOURCES = 10;
const TOP_LARGEST = 5;

/**
 * A snapshot shared in chat: what it says about itself (revision, keys, the SHA-256 trailer) and what
 * fills it, as `etcd-doctor analyze snapshot.db` prints it. A trailer that does not match leads the
 * answer, in a warning: the breakdown under it may be wrong.
 */
export function snapshotView(r: SnapshotReport, name: string): TextView {
  const s = r.snapshot;
  const damaged = s.hashOk === false;
  const code = (rows: string[]) => ['```', ...rows.map((row) => row.replace(/`/g, "'")), '```'];
  const hash =
    s.hashOk === null
      ? 'No SHA-256 trailer (a member db): its integrity was not checked.'
      : damaged
        ? '*Damaged*: its SHA-256 trailer does not match its bytes (a byte changed after `etcdctl snapshot save` wrote it). The breakdown below may be wrong: take the snapshot again.'
        : 'Its SHA-256 trailer matches.';
  const compact = s.compactRevision === null ? 'never compacted' : `compacted at ${s.compactRevision}`;
  const more =
    r.space.byResource.length > TOP_RESOURCES ? [`… ${r.space.byResource.length - TOP_RESOURCES} more`] : [];
  return textView(
    [
      hash,
      `Revision ${s.revision} (${compact}), ${s.totalKeys} keys, ${formatBytes(s.sizeBytes)} file; keys and values ${formatBytes(r.space.totalBytes)}.`,
      '*By resource* (keys, key + value bytes, share):',
      ...code([...r.space.byResource.slice(0, TOP_RESOURCES).map(resourceRow), ...more]),
      '*Largest objects:*',
      ...code(r.space.largest.slice(0, TOP_LARGEST).map(largestRow)),
    ],
    damaged ? 'warning' : 'info',
    { title: `${damaged ? 'Damaged snapshot' : 'Snapshot'} ${name}: what fills it` },
  );
}
