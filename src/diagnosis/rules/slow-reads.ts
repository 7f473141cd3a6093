import type { MemberEvidence } from '../../probes/evidence.js';
import { formatList, formatMs } from '../../format.js';
import type { Finding, RemediationStep, Severity } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';

/**
 * F5 slow linearizable reads (incident e: `took = 1.3s`). etcdctl applies no latency threshold
 * (ETCD35 ep_command.go); these are the KB's bot heuristic *(inference)*: >= 0.5 s is degraded
 * (etcdctl check perf fails a request slower than 0.5 s), >= 1 s (the default election timeout)
 * is critical.
 */
export const SLOW_READ_MS = 500;
export const CRITICAL_READ_MS = 1000;

/**
 * A symptom, folded into the cause it points to: a slow disk, a slow network or a starved CPU
 * on that member link this finding with `causedBy`. Alone it says where to look: one slow member
 * is that member's disk or CPU; all slow is the leader or the network (KB §1.1 F5).
 */
export const slowReadsRule: Rule = {
  name: 'slow-reads',
  live: 'a linearizable read timed now',
  cause: 'slow-reads',
  needs: ['health'],
  timesLatency: true,
  rank: 45,
  stepsWhenExplained: (cause) => [
    {
      text: `Fix ${cause} first (above): it explains these slow reads. Then run the diagnosis again to see them gone`,
      action: 'rerun',
    },
  ],
  evaluate(evidence, ctx) {
    const reads = evidence.members.flatMap((m) => (m.health.ok ? [{ m, tookMs: m.health.data.tookMs }] : []));
    const explain = explainLines(ctx, () =>
      reads.map(
        ({ m, tookMs }) =>
          `${m.target.name}: linearizable read took ${formatMs(tookMs)} (slow from ${formatMs(SLOW_READ_MS)})`,
      ),
    );
    const slow = reads.filter((r) => r.tookMs >= SLOW_READ_MS).sort((a, b) => b.tookMs - a.tookMs);
    if (slow.length === 0) return { explain };
    const names = slow.map((r) => r.m.target.name);
    const all = slow.length === reads.length && reads.length > 1;
    const severity: Severity = slow.some((r) => r.tookMs >= CRITICAL_READ_MS) ? 'critical' : 'warning';
    const finding: Finding = {
      cause: 'slow-reads',
      severity,
      members: names,
      nodes: [],
      summary: all
        ? `Every member answers reads slowly (${formatMs(slow.at(-1)?.tookMs)} or more): suspect the leader or the network`
        : `${formatList(names)} ${names.length === 1 ? 'answers' : 'answer'} linearizable reads slowly (${formatMs(slow[0]?.tookMs)}): suspect that member's disk or CPU`,
      evidence: [
        ...slow.map(
          ({ m, tookMs }) =>
            `${m.target.name}: linearizable read took ${formatMs(tookMs)} (etcdctl check perf fails above 500 ms)`,
        ),
        ...reads
          .filter((r) => r.tookMs < SLOW_READ_MS)
          .map(({ m, tookMs }) => `for comparison: ${m.target.name} took ${formatMs(tookMs)}`),
      ],
      steps: [stepAlone(evidence.members, names, all)],
      unknowns: missingMetrics(evidence.members, names),
    };
    return { finding, explain };
  },
};

/**
 * The step when no other finding explains the slow reads: without the slow members' /metrics,
 * get them; with them, the disk and peer-network rules had their say and named nothing, so what is
 * left to look at is the host itself (KB §1.1 F5).
 */
function stepAlone(members: MemberEvidence[], names: string[], all: boolean): RemediationStep {
  const unread = members
    .filter((m) => names.includes(m.target.name) && !m.metrics.ok)
    .map((m) => m.target.name);
  if (unread.length > 0)
    return {
      text: `Run the diagnosis again with /metrics of ${formatList(unread)} reachable, to see whether the disk, the network or the CPU is behind it`,
      action: 'rerun',
    };
  if (all)
    return {
      text: "The members' /metrics show no slow disk and no slow peer network: check the leader's host (CPU load and steal time in top) and the network between etcd-doctor and the cluster",
    };
  return {
    text: `The /metrics of ${formatList(names)} show${names.length === 1 ? 's' : ''} no slow disk and no slow peer network: look at ${names.length === 1 ? 'its host' : 'their hosts'} while reads are slow (CPU load and steal time in top, other processes' I/O in iotop)`,
  };
}

function missingMetrics(members: MemberEvidence[], names: string[]): string[] {
  return members
    .filter((m) => names.includes(m.target.name) && !m.metrics.ok && m.metrics.failure.kind !== 'skipped')
    .map((m) => `no /metrics from ${m.target.name}, so its disk and CPU could not be checked`);
}
