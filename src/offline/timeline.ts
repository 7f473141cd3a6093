import { kubernetesOf, memberOfScan } from '../diagnosis/support/kubernetes.js';
import { memberNameById } from '../diagnosis/support/members.js';
import { earliest, latest } from '../diagnosis/support/logs.js';
import type { Evidence } from '../probes/evidence.js';
import type { ContainerLogScan } from '../probes/kubernetes/evidence.js';
import type { CountStat, DurationStat } from '../etcd/scan-logs.js';
import type { TimelineEntry } from '../contracts/report-json.js';

/** A timeline longer than this says less, not more; the rest is in the counts of the findings. */
const MAX_ENTRIES = 200;

/**
 * When each signal was seen on each member, oldest first: ordering is evidence (the disk was
 * slow before the leader changes began). From the log scans' first/last seen and counts, and
 * from the containers' last exits.
 */
export function buildTimeline(evidence: Evidence): TimelineEntry[] {
  const k = kubernetesOf(evidence);
  const scans = k?.logs.ok ? k.logs.data.scans : [];
  const merged = new Map<string, TimelineEntry>();
  for (const scan of scans) for (const e of scanEntries(evidence, scan)) merge(merged, e);
  for (const e of exitEntries(evidence)) merge(merged, e);
  return [...merged.values()]
    .sort((a, b) => a.firstSeenAt.localeCompare(b.firstSeenAt) || a.signal.localeCompare(b.signal))
    .slice(0, MAX_ENTRIES);
}

function scanEntries(evidence: Evidence, scan: ContainerLogScan): TimelineEntry[] {
  const member = scan.component === 'etcd' ? memberOfScan(evidence, scan) : scan.pod;
  const entries: TimelineEntry[] = [];
  for (const [signal, stat] of Object.entries(scan.signals)) {
    if (Array.isArray(stat)) continue;
    const entry = entryOf(signal, member, stat as CountStat | DurationStat);
    if (entry) entries.push(entry);
  }
  for (const d of scan.signals.clockDrift) {
    const entry = entryOf('clockDrift', member, { ...d, maxSeconds: d.maxSeconds });
    if (entry) entries.push({ ...entry, peer: memberNameById(evidence, d.peerId) });
  }
  for (const p of scan.signals.peerUnreachable) {
    const entry = entryOf('peerUnreachable', member, p);
    if (entry) entries.push({ ...entry, peer: memberNameById(evidence, p.peerId) });
  }
  return entries;
}

function entryOf(
  signal: string,
  member: string,
  stat: { count: number; firstSeenAt?: string; lastSeenAt?: string; maxSeconds?: number | undefined },
): TimelineEntry | undefined {
  if (stat.count === 0 || !stat.firstSeenAt) return undefined;
  return {
    signal,
    member,
    firstSeenAt: stat.firstSeenAt,
    lastSeenAt: stat.lastSeenAt ?? stat.firstSeenAt,
    count: stat.count,
    ...(stat.maxSeconds !== undefined ? { maxSeconds: stat.maxSeconds } : {}),
  };
}

/** A restarted container's last exit, from the Pod objects (`containerExit`, count = restarts). */
function exitEntries(evidence: Evidence): TimelineEntry[] {
  const k = kubernetesOf(evidence);
  const pods = k?.pods.ok ? k.pods.data : [];
  return pods.flatMap((p) => {
    const at = p.main?.lastTermination?.finishedAt;
    if (!p.main || at === undefined || p.main.restartCount === 0) return [];
    const iso = new Date(at).toISOString();
    return [
      {
        signal: 'containerExit',
        member: p.name,
        firstSeenAt: iso,
        lastSeenAt: iso,
        count: p.main.restartCount,
      },
    ];
  });
}

/** The same signal on the same member from several streams (current and previous logs) is one entry. */
function merge(into: Map<string, TimelineEntry>, e: TimelineEntry): void {
  const key = `${e.signal}|${e.member}|${e.peer ?? ''}`;
  const seen = into.get(key);
  if (!seen) {
    into.set(key, e);
    return;
  }
  const maxSeconds = Math.max(seen.maxSeconds ?? -1, e.maxSeconds ?? -1);
  into.set(key, {
    ...seen,
    firstSeenAt: earliest(seen.firstSeenAt, e.firstSeenAt) ?? e.firstSeenAt,
    lastSeenAt: latest(seen.lastSeenAt, e.lastSeenAt) ?? e.lastSeenAt,
    count: seen.count + e.count,
    ...(maxSeconds >= 0 ? { maxSeconds } : {}),
  });
}
