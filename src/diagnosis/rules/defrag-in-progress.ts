import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { nodesOfMembers } from '../support/kubernetes.js';
import { memberLoads } from '../support/load.js';

/**
 * A member defragmenting now (issue 39): `etcd_disk_defrag_inflight` is 1 while it runs (KB §1.4;
 * present in 3.4.45 and 3.5.33). Defragmentation "blocks the system from reading and writing data
 * while rebuilding its states" (WEB maintenance.md "Defragmentation"), so a stall, lost leases and a
 * leader change on that member are the defragmentation's, not a slow disk or a dead member
 * (gardener/etcd-backup-restore#1052: the leader defragmented and every controller lost its lease).
 * A warning: it ends by itself; what matters is who runs it on a busy member, and when.
 */
export const defragInProgressRule: Rule = {
  name: 'defrag-in-progress',
  live: 'two /metrics scrapes now',
  cause: 'defrag-in-progress',
  needs: ['metrics'],
  rank: 13,
  explains: [
    'member-down',
    'slow-reads',
    'slow-disk',
    'cpu-starvation',
    'leader-churn',
    'apiserver-latency',
    'control-plane-restarts',
    'quorum-lost',
  ],
  evaluate(evidence, ctx) {
    const loads = memberLoads(evidence).filter((l) => l.load.defragInflight !== undefined);
    const explain = explainLines(ctx, () =>
      loads.map(
        (l) =>
          `${l.name}: etcd_disk_defrag_inflight ${l.load.defragInflight}${l.before?.defragInflight !== undefined ? ` (${l.before.defragInflight} at the window's start)` : ''}`,
      ),
    );
    const busy = loads.filter((l) => l.load.defragInflight === 1 || l.before?.defragInflight === 1);
    if (busy.length === 0) return { explain };
    const names = busy.map((l) => l.name);
    const finding: Finding = {
      cause: 'defrag-in-progress',
      severity: 'warning',
      members: names,
      nodes: nodesOfMembers(evidence, names),
      summary: `${formatList(names)} ${names.length === 1 ? 'is' : 'are'} defragmenting: reads and writes there wait until it ends, which explains the stall, lost leases and leader changes on ${names.length === 1 ? 'it' : 'them'}`,
      evidence: busy.map(
        (l) =>
          `${l.name}: etcd_disk_defrag_inflight ${l.before?.defragInflight ?? '?'} → ${l.load.defragInflight} over ${l.windowSeconds} s`,
      ),
      steps: [
        {
          text: `Let it finish: do not restart ${formatList(names)} mid-defragment. Then find who ran it (etcd-doctor's maintenance window or Defragment button are in its audit log; otherwise a CronJob, an operator, or someone's \`etcdctl defrag\`)`,
        },
        {
          text: "Next time defragment one member at a time, the leader last (or move leadership off it first), and only where it frees much, as etcd-doctor's Defragment button does (WEB maintenance.md; cluster-etcd-operator defragcontroller.go)",
        },
      ],
      unknowns: ['who started it is not in /metrics'],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)}`] };
  },
};
