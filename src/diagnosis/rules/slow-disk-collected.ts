import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { slowDiskRule } from './slow-disk.js';
import { kubernetesOf, memberOfScan, nodesOfMembers, scansOf } from '../support/kubernetes.js';
import { UNSTALLED_MIN_EVENTS } from './cpu-starvation.js';
import { countsByMember, describeSignal, etcdSignalByMember } from '../support/logs.js';

/**
 * ETCD34/35 wal.go warns `slow fdatasync` (capnslog `sync duration of ...`) only above 1 s
 * (warnSyncDuration), and the leader logs a late heartbeat when it misses one (raft.go
 * "leader failed to send out heartbeat on time; took too long, leader is overloaded likely from
 * slow disk"): either in a member's log is a disk etcd cannot live with (KB F1).
 */
export const FDATASYNC_LOG_LIMIT_S = 1;
/** Late heartbeats without a slow fdatasync count only this often (inference: a loaded lab host logged 2). */
export const HEARTBEAT_LATE_MIN = 10;

/**
 * F1 slow data disk from the etcd logs, for collected evidence (`etcd-doctor analyze`), where
 * no /metrics window exists. Live, the slow-disk rule judges fsync percentiles instead.
 */
export const slowDiskCollectedRule: Rule = {
  name: 'slow-disk-logs',
  cause: 'slow-disk',
  needs: ['kubernetes'],
  ...(slowDiskRule.explains ? { explains: slowDiskRule.explains } : {}),
  rank: slowDiskRule.rank,
  evaluate(evidence) {
    const fsync = etcdSignalByMember(evidence, (s) => s.signals.slowFdatasync);
    const late = etcdSignalByMember(evidence, (s) => s.signals.heartbeatLate);
    const took = etcdSignalByMember(evidence, (s) => s.signals.tookTooLong);
    // Late heartbeats alone are weaker: a starved CPU or a loaded host delays them too (etcd
    // says "likely from slow disk"); a few are noise, many are a warning, fdatasync is proof.
    const lateOnly = late.filter(
      (l) => l.count >= HEARTBEAT_LATE_MIN && !fsync.some((f) => f.member === l.member),
    );
    // Small requests over etcd's 100 ms, repeated: etcd counts them as "slow apply requests (likely
    // overloaded from slow disk)" (ETCD34 metrics.go slow_apply_total), and a request whose answer
    // is one key or a write costs the member nothing to build: the member was slow, not the request.
    // A linearizable read waits for the leader (ReadIndex) and a write for a quorum's disks: with
    // proof of a slow disk on a member (fdatasync, late heartbeats), the others' slow requests are
    // its echo and name no member of their own.
    const small = smallSlowByMember(evidence);
    const proof = fsync.length > 0 || lateOnly.length > 0;
    const smallOnly = proof ? [] : took.filter((t) => (small.get(t.member) ?? 0) >= UNSTALLED_MIN_EVENTS);
    const slow = [...new Set([...fsync, ...lateOnly, ...smallOnly].map((s) => s.member))];
    const explain = [
      `etcd logs: slow fdatasync on ${countsByMember(fsync)}; late heartbeats on ${countsByMember(late)} (etcd logs fdatasync above ${FDATASYNC_LOG_LIMIT_S} s); small requests over 100 ms on ${[...small].map(([m, n]) => `${m} ${n}`).join(', ') || 'none'} (${UNSTALLED_MIN_EVENTS} needed)`,
    ];
    if (slow.length === 0) return { explain };
    const lines = (m: string) => [
      ...fsync.filter((s) => s.member === m).map((s) => `${m}: ${describeSignal(s, 'slow fdatasync')}`),
      ...late.filter((s) => s.member === m).map((s) => `${m}: ${describeSignal(s, 'heartbeat sent late')}`),
      ...took.filter((s) => s.member === m).map((s) => `${m}: ${describeSignal(s, 'request took too long')}`),
    ];
    const first = fsync[0] ?? lateOnly[0] ?? smallOnly[0];
    const smallFirst = fsync.length === 0 && lateOnly.length === 0 ? smallOnly[0] : undefined;
    const finding: Finding = {
      cause: 'slow-disk',
      severity: fsync.length > 0 ? 'critical' : 'warning',
      members: slow,
      nodes: nodesOfMembers(evidence, slow),
      summary:
        fsync.length > 0
          ? `${formatList(slow)} ${slow.length === 1 ? 'has a slow disk' : 'have slow disks'} (etcd logs: ${first ? describeSignal(first, 'slow fdatasync') : ''}; etcd warns above ${FDATASYNC_LOG_LIMIT_S} s)`
          : smallFirst
            ? `${formatList(slow)} answered small requests (a write, one key) slower than etcd's 100 ms (${small.get(smallFirst.member) ?? 0} of ${describeSignal(smallFirst, 'request took too long')}): etcd blames a slow disk (a read waits for the leader's, a write for a quorum's); a starved CPU does the same`
            : `${formatList(slow)} sent heartbeats late (etcd logs: ${first ? describeSignal(first, 'heartbeat sent late') : ''}): etcd blames a slow disk; a starved CPU does the same`,
      evidence: [...slow.flatMap(lines), ...(first?.example ? [`e.g. ${first.example}`] : [])],
      steps: [
        ...slow.map((m) => ({
          text: `Benchmark the disk under ${m} with fio (fdatasync p99 must be < 10 ms; etcd FAQ, IBM fio guide)`,
          action: 'disk-benchmark' as const,
          args: { member: m },
        })),
        {
          text: `Move ${formatList(slow)} to a dedicated SSD or NVMe disk and remove I/O contention from that node (etcd FAQ, hardware guide). Never move the data dir to tmpfs`,
        },
      ],
      unknowns: [
        'only logs: no /metrics window was collected, so fsync percentiles are unknown (etcd logs a slow fdatasync only above 1 s)',
      ],
    };
    return { finding, explain: [...explain, `fired: ${formatList(slow)}`] };
  },
};

/** Per member, the requests over 100 ms whose answer was small (scan-logs.ts `tookTooLong.small`). */
function smallSlowByMember(evidence: Parameters<Rule['evaluate']>[0]): Map<string, number> {
  const byMember = new Map<string, number>();
  for (const scan of scansOf(kubernetesOf(evidence), 'etcd')) {
    const n = scan.signals.tookTooLong.small ?? 0;
    if (n === 0) continue;
    const member = memberOfScan(evidence, scan);
    byMember.set(member, (byMember.get(member) ?? 0) + n);
  }
  return byMember;
}
