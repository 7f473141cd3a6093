import type { Evidence } from '../../probes/evidence.js';
import type { ContainerLogScan } from '../../probes/kubernetes/evidence.js';
import type { CountStat, DurationStat } from '../../etcd/scan-logs.js';
import { kubernetesOf, memberOfScan, scansOf } from './kubernetes.js';

/** One signal summed over a member's scans (current and previous logs), first and last seen kept. */
export interface MemberSignal {
  member: string;
  count: number;
  maxSeconds: number | undefined;
  firstSeenAt: string | undefined;
  lastSeenAt: string | undefined;
  example: string | undefined;
}

/** `etcd-1 3, etcd-2 1`, or `none`: the members a signal was seen on, and how often, for a rule's explain line. */
export function countsByMember(signals: ReadonlyArray<Pick<MemberSignal, 'member' | 'count'>>): string {
  return signals.map((s) => `${s.member} ${s.count}`).join(', ') || 'none';
}

/** A count or duration signal per etcd member, from the etcd log scans. */
export function etcdSignalByMember(
  evidence: Evidence,
  pick: (scan: ContainerLogScan) => CountStat | DurationStat,
): MemberSignal[] {
  const byMember = new Map<string, MemberSignal>();
  for (const scan of scansOf(kubernetesOf(evidence), 'etcd')) {
    const stat = pick(scan);
    if (stat.count === 0) continue;
    const member = memberOfScan(evidence, scan);
    const sum = byMember.get(member) ?? {
      member,
      count: 0,
      maxSeconds: undefined,
      firstSeenAt: undefined,
      lastSeenAt: undefined,
      example: undefined,
    };
    const max = 'maxSeconds' in stat ? stat.maxSeconds : undefined;
    byMember.set(member, {
      member,
      count: sum.count + stat.count,
      maxSeconds: max === undefined ? sum.maxSeconds : Math.max(max, sum.maxSeconds ?? 0),
      firstSeenAt: earliest(sum.firstSeenAt, stat.firstSeenAt),
      lastSeenAt: latest(sum.lastSeenAt, stat.lastSeenAt),
      example: stat.example ?? sum.example,
    });
  }
  return [...byMember.values()].sort((a, b) => b.count - a.count);
}

export function earliest(a: string | undefined, b: string | undefined): string | undefined {
  return [a, b].filter((t): t is string => Boolean(t)).sort()[0];
}

export function latest(a: string | undefined, b: string | undefined): string | undefined {
  return [a, b]
    .filter((t): t is string => Boolean(t))
    .sort()
    .at(-1);
}

/** `12:26:12–12:26:27` (UTC, as etcd logs it); the date too when the span crosses midnight. */
export function formatSpan(first: string | undefined, last: string | undefined): string {
  if (!first || !last) return '';
  const day = (t: string) => t.slice(0, 10);
  const time = (t: string) => t.slice(11, 19);
  if (day(first) !== day(last)) return `${day(first)} ${time(first)}–${day(last)} ${time(last)} UTC`;
  return time(first) === time(last) ? `at ${time(first)}` : `${time(first)}–${time(last)}`;
}

/** `14 × slow fdatasync, up to 4.0 s, 12:26:12–12:26:27`: what logs-only evidence says. */
export function describeSignal(s: MemberSignal, what: string): string {
  const max = s.maxSeconds !== undefined ? `, up to ${s.maxSeconds.toFixed(1)} s` : '';
  const span = formatSpan(s.firstSeenAt, s.lastSeenAt);
  return `${s.count} × ${what}${max}${span ? `, ${span}` : ''}`;
}

/** Seconds between two ISO times, or undefined. */
export function spanSeconds(first: string | undefined, last: string | undefined): number | undefined {
  if (!first || !last) return undefined;
  const s = (Date.parse(last) - Date.parse(first)) / 1000;
  return Number.isFinite(s) ? s : undefined;
}

/**
 * The etcd logs whose view of their peers counts: not those of a member that logged its own
 * removal (`the member has been permanently removed from the cluster`), which stops itself and
 * cancels every dial: it lost its peers, they did not go (cluster-mismatch says why).
 */
export function peerWitnesses(scans: ContainerLogScan[]): ContainerLogScan[] {
  return scans.filter((s) => (s.signals.memberRemoved?.count ?? 0) === 0);
}
