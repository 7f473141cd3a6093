import { formatBytes, formatMs, formatPercent } from '../format.js';
import type { LargestObject, ResourceSpace } from './space-breakdown.js';
import type { SpaceProgress, SpaceReport } from './space-report.js';

const TOP_RESOURCES = 10;
const TOP_LARGEST = 5;
const TOP_NAMESPACES = 5;

/** `1.9 GB of the 2.1 GB quota (90 %), 1.2 GB in use`; without a quota read, the sizes alone. */
export function sizeWords(r: Pick<SpaceReport, 'dbSize' | 'dbSizeInUse' | 'quota' | 'dbMember'>): string {
  const of = r.quota ? ` of the ${formatBytes(r.quota)} quota (${formatPercent(r.dbSize / r.quota)})` : '';
  const member = r.dbMember ? ` on ${r.dbMember}` : '';
  return `database ${formatBytes(r.dbSize)}${of}, ${formatBytes(r.dbSizeInUse)} in use${member}`;
}

/**
 * Pages in use that the live keys do not explain are history: the old revisions of overwritten and
 * deleted keys, kept until a compaction. Said when the keyspace was read whole and history is most
 * of what is in use (at least half, and 1 MB): `14.9 MB in use, live keys and values 0 B: the rest
 * is old revisions ...`. A database full of history is given back by compaction, not by deleting
 * keys (etcd maintenance guide, "History compaction").
 */
export function historyWords(r: SpaceReport): string | undefined {
  if (!r.scan.complete || r.dbSizeInUse <= 0) return undefined;
  const history = r.dbSizeInUse - r.totalBytes;
  if (history < 1_000_000 || history < r.dbSizeInUse / 2) return undefined;
  const since = r.compactRevision
    ? `since the compaction at revision ${r.compactRevision} (now ${r.revision})`
    : `never compacted (revision ${r.revision})`;
  return `${formatBytes(r.dbSizeInUse)} in use, live keys and values ${formatBytes(r.totalBytes)}: the rest, about ${formatBytes(history)}, is old revisions of overwritten and deleted keys, ${since}; compacting to the current revision, then defragmenting, gives it back`;
}

/** The headline: which resource holds most, and how much of it. */
export function spaceHeadline(r: SpaceReport): string {
  const top = r.byResource[0];
  const history = historyWords(r);
  if (!top && history) return `${r.cluster}: ${sizeWords(r)}; ${history}`;
  if (!top)
    return `${r.cluster}: ${sizeWords(r)}; the keyspace was not read (${r.scan.stoppedBecause ?? 'no keys'})`;
  const bytes =
    top.bytes > 0 ? `${formatBytes(top.bytes)} (${formatPercent(top.share)} of keys and values)` : '';
  return `${r.cluster}: ${top.resource} hold${top.keys === 1 ? 's' : ''} the most, ${bytes || `${top.keys} keys`}; ${sizeWords(r)}`;
}

/** How the scan went, in one line. */
export function scanWords(r: SpaceReport): string {
  const s = r.scan;
  const from = s.member ? `read from ${s.member}, a follower,` : 'not read';
  const rate = `at most ${formatBytes(s.bytesPerSecondLimit)}/s`;
  const what = `${formatBytes(s.bytesRead)} in ${formatMs(s.durationMs)}, ${rate}`;
  if (s.complete)
    return `Revision ${r.revision} (${r.compactRevision ? `compacted at ${r.compactRevision}` : 'never compacted'}): ${from} ${what}; complete.`;
  const where = s.nextKey ? `; bytes cover the keys before ${s.nextKey}` : '';
  return `Revision ${r.revision} (${r.compactRevision ? `compacted at ${r.compactRevision}` : 'never compacted'}): ${from} ${what}; PARTIAL: ${s.stoppedBecause ?? 'stopped'}${where}${s.keysComplete ? ' (key counts are complete)' : ''}.`;
}

export function resourceRow(x: ResourceSpace): string {
  return `${x.resource.padEnd(34)} ${String(x.keys).padStart(9)}  ${formatBytes(x.bytes).padStart(8)}  ${formatPercent(x.share).padStart(5)}`;
}

export function largestRow(x: LargestObject): string {
  return `${formatBytes(x.bytes).padStart(8)}  ${x.key}`;
}

/** Writes per second, highest first: `events 400/s, leases 2/s`. */
export function churnWords(r: SpaceReport): string {
  const w = r.churnWindow;
  if (w.error) return `Writes: not counted (${w.error}).`;
  if (r.churn.length === 0) return `Writes: none in ${w.seconds} s.`;
  const rates = r.churn.slice(0, 5).map((c) => `${c.resource} ${c.writesPerSecond}/s`);
  return `Writes over ${w.seconds} s${w.capped ? ` (stopped at ${w.writes} events)` : ''}: ${rates.join(', ')}.`;
}

function apiserverLines(r: SpaceReport): string[] {
  if (!r.apiserver) return [];
  if (r.apiserver.error) return [`apiserver object counts: not read (${r.apiserver.error}).`];
  const rows = r.apiserver.objects
    .slice(0, TOP_RESOURCES)
    .map(
      (o) =>
        `${o.resource} ${o.objects}${o.keys === null ? '' : o.keys === o.objects ? ' (etcd: same)' : ` (etcd: ${o.keys})`}`,
    );
  return [`${r.apiserver.metric ?? 'apiserver_storage_objects'}: ${rows.join(', ')}.`];
}

/** The tables, shared by the terminal and chat (chat puts them in a code block). */
export function spaceTables(r: SpaceReport): {
  resources: string[];
  namespaces: string[];
  largest: string[];
} {
  const resources = r.byResource.slice(0, TOP_RESOURCES).map(resourceRow);
  if (r.byResource.length > TOP_RESOURCES)
    resources.push(`… ${r.byResource.length - TOP_RESOURCES} more (--json)`);
  const tops = new Set(r.byResource.slice(0, 3).map((x) => x.resource));
  const namespaces = r.byNamespace
    .filter((n) => tops.has(n.resource))
    .reduce<string[]>((rows, n) => {
      const shown = rows.filter((row) => row.startsWith(`${n.resource} `)).length;
      if (shown < TOP_NAMESPACES)
        rows.push(`${n.resource} ${n.namespace}: ${n.keys} keys, ${formatBytes(n.bytes)}`);
      return rows;
    }, []);
  return { resources, namespaces, largest: r.largest.slice(0, TOP_LARGEST).map(largestRow) };
}

/** `etcd-doctor space <cluster>` without --json. The caller makes it terminal-safe. */
export function renderSpaceText(r: SpaceReport): string {
  const t = spaceTables(r);
  const history = historyWords(r);
  return [
    `What fills ${r.cluster}: ${sizeWords(r)}`,
    `  ${r.totalKeys} keys; keys and values ${formatBytes(r.totalBytes)}`,
    ...(history ? [`  ${history}`] : []),
    `  ${scanWords(r)}`,
    ...(t.resources.length
      ? ['', 'By resource (keys, key + value bytes, share):', ...t.resources.map((l) => `  ${l}`)]
      : []),
    ...(t.namespaces.length ? ['', 'Top namespaces:', ...t.namespaces.map((l) => `  ${l}`)] : []),
    ...(t.largest.length ? ['', 'Largest objects:', ...t.largest.map((l) => `  ${l}`)] : []),
    '',
    churnWords(r),
    ...apiserverLines(r),
  ].join('\n');
}

/** The answer's lines for chat: words, then the tables in code blocks (keys are shown as text). */
export function spaceChatLines(r: SpaceReport): string[] {
  const t = spaceTables(r);
  // A backtick in a key would end the code block early.
  const code = (rows: string[]) => ['```', ...rows.map((row) => row.replace(/`/g, "'")), '```'];
  const history = historyWords(r);
  return [
    `${r.totalKeys} keys; keys and values ${formatBytes(r.totalBytes)}; ${sizeWords(r)}.`,
    ...(history ? [`${history}.`] : []),
    scanWords(r),
    ...(t.resources.length ? ['*By resource* (keys, key + value bytes, share):', ...code(t.resources)] : []),
    ...(t.namespaces.length ? ['*Top namespaces:*', ...code(t.namespaces)] : []),
    ...(t.largest.length ? ['*Largest objects:*', ...code(t.largest)] : []),
    churnWords(r),
    ...apiserverLines(r),
  ];
}

/** `Reading prod's keyspace: 120 MB of ~300 MB`, for the thread's progress line and the CLI's stderr. */
export function progressWords(cluster: string, p: SpaceProgress): string {
  if (p.phase === 'counting') return `Counting the keys of ${cluster}: ${p.keys} of ${p.totalKeys}`;
  return `Reading the values of ${cluster}: ${formatBytes(p.bytesRead)} of about ${formatBytes(p.expectedBytes)} (${p.keys} of ${p.totalKeys} keys)`;
}
