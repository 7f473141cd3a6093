import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { describeExit, etcdExits, NO_STAT, EXHAUSTED_MEMBER_EXPLAINS } from '../support/faults.js';
import { nodesOfMembers, unique } from '../support/kubernetes.js';
import { countsByMember, describeSignal, etcdSignalByMember } from '../support/logs.js';
import { nodePressureEvidence } from '../support/node-pressure.js';

/** The kubelet's reason for a container the kernel's OOM killer stopped (exit code 137 = SIGKILL). */
const OOM_KILLED = 'OOMKilled';

/**
 * etcd ran out of memory: Go's runtime `fatal error: runtime: out of memory` (sysMap failed; Go
 * prints `runtime: out of memory: cannot allocate …` first; etcd-io/etcd#3300, #2814, #3269), or its
 * container was killed by the kernel's OOM killer: the Pod's last state `terminated`, reason
 * `OOMKilled`, exit code 137 (kubernetes-retired/service-catalog#2770, gardener/etcd-backup-restore#115).
 * The member restarts and replays its WAL, which needs the same memory again. A node's
 * MemoryPressure condition is said beside it.
 */
export const outOfMemoryRule: Rule = {
  name: 'out-of-memory',
  cause: 'out-of-memory',
  needs: ['kubernetes'],
  rank: 4,
  explains: EXHAUSTED_MEMBER_EXPLAINS,
  evaluate(evidence) {
    const logged = etcdSignalByMember(evidence, (s) => s.signals.outOfMemory ?? NO_STAT);
    const kernel = etcdSignalByMember(evidence, (s) => s.signals.oomKilled ?? NO_STAT);
    const killed = etcdExits(evidence, (t) => t.reason === OOM_KILLED);
    const explain = [
      `out of memory: Go runtime ${countsByMember(logged)}; kernel OOM killer ${countsByMember(kernel)}; OOMKilled containers: ${killed.map((k) => k.pod).join(', ') || 'none'}`,
    ];
    const members = unique([
      ...killed.map((k) => k.member),
      ...logged.map((s) => s.member),
      ...kernel.map((s) => s.member),
    ]);
    if (members.length === 0) return { explain };
    const finding: Finding = {
      cause: 'out-of-memory',
      severity: 'critical',
      members,
      nodes: unique([
        ...killed.flatMap((k) => (k.node ? [k.node] : [])),
        ...nodesOfMembers(evidence, members),
      ]),
      summary: `${formatList(members)} ran out of memory (${[
        ...(killed.length > 0 ? ['the etcd container was OOMKilled'] : []),
        ...(logged.length > 0 ? ['Go: fatal error: runtime: out of memory'] : []),
        ...(kernel.length > 0 ? ["the kernel's OOM killer stopped it at its memory limit"] : []),
      ].join('; ')}): the member stops, and replaying its WAL at the restart needs the same memory again`,
      evidence: [
        ...killed.map(describeExit),
        ...logged.map((s) => `${s.member}: ${describeSignal(s, 'fatal error: runtime: out of memory')}`),
        ...kernel.map((s) => `${s.member}: ${describeSignal(s, 'killed by the kernel OOM killer')}`),
        ...nodePressureEvidence(evidence, ['MemoryPressure'], members),
      ],
      steps: [
        {
          text: `Give ${formatList(members)} the memory it needs: raise or remove the memory limit of the etcd container (kubeadm sets a request, no limit) or move other workloads off the node; etcd holds its whole keyspace index and recent raft entries in memory`,
        },
        {
          text: 'Find what grows it: `process_resident_memory_bytes` on /metrics against the database size, large range requests (`apply request took too long` with big responses), many watchers, and a high --snapshot-count (raft entries kept in memory between snapshots; kyma-project/kyma#1802)',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};
