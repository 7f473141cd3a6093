import { formatBytes, formatList, formatPercent } from '../../format.js';
import type { Finding } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { nodesOfMembers } from '../support/kubernetes.js';
import { memberLoads, podSpecOf } from '../support/load.js';
import { outOfMemoryRule } from './out-of-memory.js';

/**
 * Resident memory against the container's limit before the kernel kills it (inference: the same
 * 80 % etcd warns at for file descriptors, etcdserver/metrics.go; the OOM killer acts at 100 %).
 */
export const MEMORY_WARNING_RATIO = 0.8;

/**
 * `out-of-memory` before it happens (issue 39): a member's `process_resident_memory_bytes` against
 * its etcd container's `resources.limits.memory` from the pod spec. Without a limit (kubeadm sets
 * none) there is nothing to judge and nothing is said. The OOMKilled last state and Go's `out of
 * memory` are out-of-memory.ts.
 */
export const outOfMemoryLiveRule: Rule = {
  name: 'out-of-memory-live',
  live: 'a /metrics scrape now',
  cause: 'out-of-memory',
  needs: ['metrics', 'kubernetes'],
  rank: outOfMemoryRule.rank,
  explains: outOfMemoryRule.explains ?? [],
  evaluate(evidence, ctx) {
    const rows = memberLoads(evidence).flatMap((l) => {
      const limit = podSpecOf(evidence, l.name)?.memoryLimitBytes;
      const rss = l.load.residentMemoryBytes;
      return limit !== undefined && rss !== undefined
        ? [{ name: l.name, rss, limit, ratio: rss / limit }]
        : [];
    });
    const explain = explainLines(ctx, () =>
      rows.length === 0
        ? ['no etcd container with a memory limit: nothing to judge']
        : rows.map(
            (r) =>
              `${r.name}: ${formatBytes(r.rss, 'binary')} resident of a ${formatBytes(r.limit, 'binary')} limit`,
          ),
    );
    const high = rows.filter((r) => r.ratio >= MEMORY_WARNING_RATIO).sort((a, b) => b.ratio - a.ratio);
    if (high.length === 0) return { explain };
    const names = high.map((r) => r.name);
    const top = high[0] as (typeof high)[number];
    const finding: Finding = {
      cause: 'out-of-memory',
      severity: top.ratio >= 1 ? 'critical' : 'warning',
      members: names,
      nodes: nodesOfMembers(evidence, names),
      summary: `${top.name} holds ${formatPercent(top.ratio)} of its container's memory limit (${formatBytes(top.rss, 'binary')} of ${formatBytes(top.limit, 'binary')}): at the limit the kernel kills it (OOMKilled)`,
      evidence: high.map(
        (r) =>
          `${r.name}: process_resident_memory_bytes ${formatBytes(r.rss, 'binary')}, ${formatPercent(r.ratio)} of the etcd container's limit ${formatBytes(r.limit, 'binary')} (pod spec)`,
      ),
      steps: [
        {
          text: `Raise or remove the memory limit of ${formatList(names)}'s etcd container before it is killed (kubeadm sets none); then find what grows it: large ranges (expensive-requests), slow watchers, a high --snapshot-count`,
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)}`] };
  },
};
