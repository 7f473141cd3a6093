import type { MemberEvidence } from '../../probes/evidence.js';
import { formatList, formatMs, formatSecondsAsMs } from '../../report/format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { WAL_FSYNC_P99_LIMIT_S } from './slow-disk.js';

/** WEB metrics/_index.md: the committed − applied gap "should usually be small (within a few thousands even under high load)". */
export const APPLY_BACKLOG_LIMIT = 5000;
/** Same heuristic as slow-reads (KB F5, inference): a read slower than 0.5 s. */
export const STALLED_READ_MS = 500;

interface Starved {
  member: MemberEvidence;
  signals: string[];
}

/**
 * F11 CPU starvation (KB §1.1): the same symptoms as a slow disk (`apply request took too long`,
 * late heartbeats, slow reads) while that member's fsync is fast, and no peer link is failing.
 * Remedies differ from a disk fix: isolation, renice, a dedicated machine (WEB faq.md).
 */
export const cpuStarvationRule: Rule = {
  name: 'cpu-starvation',
  cause: 'cpu-starvation',
  needs: ['metrics'],
  rank: 24,
  explains: ['leader-churn', 'slow-reads'],
  evaluate(evidence) {
    const starved = evidence.members.flatMap((m) => starvedMember(m));
    const explain = evidence.members.map((m) => {
      const found = starved.find((s) => s.member === m);
      return `${m.target.name}: ${found ? found.signals.join('; ') : 'no slow applies, late heartbeats or stalled reads with a fast disk'}`;
    });
    if (starved.length === 0) return { explain };
    const names = starved.map((s) => s.member.target.name);
    const finding: Finding = {
      cause: 'cpu-starvation',
      severity: 'warning',
      members: names,
      nodes: [],
      summary: `${formatList(names)} ${names.length === 1 ? 'is' : 'are'} starved of CPU: requests stall while the disk is fast`,
      evidence: starved.flatMap((s) => s.signals.map((signal) => `${s.member.target.name}: ${signal}`)),
      steps: [
        {
          text: `Look at CPU on the node of ${formatList(names)}: steal time, throttling (cgroup cpu.stat), noisy neighbours (top, vmstat 1)`,
        },
        {
          text: 'Give etcd its own CPU: a dedicated machine, cgroup isolation or a higher priority (renice), and the `performance` CPU governor (etcd FAQ, tuning guide "CPU")',
        },
        {
          text: 'Find expensive requests: large LISTs from the apiserver audit log (cluster-etcd-operator performance-metrics.md)',
        },
      ],
      unknowns: [],
    };
    return { finding, explain };
  },
};

function starvedMember(m: MemberEvidence): Starved[] {
  if (!m.metrics.ok) return [];
  const data = m.metrics.data;
  const fsyncP99 = data.walFsync.p99Seconds;
  if (fsyncP99 !== undefined && fsyncP99 > WAL_FSYNC_P99_LIMIT_S) return [];
  if (data.peers.some((p) => p.sentFailuresInWindow > 0)) return [];
  const signals: string[] = [];
  if (data.deltas.slowApply > 0)
    signals.push(
      `${data.deltas.slowApply} applies over 100 ms in ${data.windowSeconds} s (etcd warns above 100 ms)`,
    );
  if (data.deltas.heartbeatSendFailures > 0)
    signals.push(`${data.deltas.heartbeatSendFailures} late heartbeats in ${data.windowSeconds} s`);
  if (data.applyBacklog > APPLY_BACKLOG_LIMIT)
    signals.push(`${data.applyBacklog} proposals committed but not applied (limit a few thousand)`);
  if (m.health.ok && m.health.data.tookMs >= STALLED_READ_MS)
    signals.push(`linearizable read took ${formatMs(m.health.data.tookMs)}`);
  if (signals.length === 0) return [];
  signals.push(`wal fsync p99 only ${formatSecondsAsMs(fsyncP99)} (the disk is fine)`);
  return [{ member: m, signals }];
}
