import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { nodesOfMembers } from '../support/kubernetes.js';
import { type MemberLoad, memberLoads } from '../support/load.js';

/**
 * Watchers that cannot keep up (issue 39). etcd moves a watcher whose channel is full to its
 * "victims" and a watcher behind the current revision to "unsynced"; both are counted in
 * `etcd_debugging_mvcc_slow_watcher_total` (gauge: unsynced + victims, ETCD34/35
 * mvcc/watchable_store.go syncWatchersLoop), and the events held for them in
 * `etcd_debugging_mvcc_pending_events_total`. A watcher that starts from an old revision is
 * unsynced for a moment while it catches up (batches of 512 events every 100 ms), so only one slow
 * at both ends of the /metrics window counts (inference: a window of seconds is many sync rounds).
 * Their events are kept in the member's memory until they read them.
 */
export const slowWatchersRule: Rule = {
  name: 'slow-watchers',
  live: 'two /metrics scrapes now',
  cause: 'slow-watchers',
  needs: ['metrics'],
  rank: 35,
  explains: ['out-of-memory'],
  evaluate(evidence, ctx) {
    const loads = memberLoads(evidence).filter((l) => l.load.slowWatchers !== undefined);
    const explain = explainLines(ctx, () => loads.map((l) => `${l.name}: ${describe(l)}`));
    const slow = loads
      .filter((l) => (l.load.slowWatchers ?? 0) > 0 && (l.before?.slowWatchers ?? 0) > 0)
      .sort((a, b) => (b.load.pendingEvents ?? 0) - (a.load.pendingEvents ?? 0));
    if (slow.length === 0) return { explain };
    const names = slow.map((l) => l.name);
    const finding: Finding = {
      cause: 'slow-watchers',
      severity: 'warning',
      members: names,
      nodes: nodesOfMembers(evidence, names),
      summary: `${formatList(names)} ${names.length === 1 ? 'has' : 'have'} watchers that do not keep up: their events pile up in etcd's memory until they read them`,
      evidence: slow.map((l) => `${l.name}: ${describe(l)}`),
      steps: [
        {
          text: `Find the watching client on ${formatList(names)}: \`ss -tn state established '( sport = :2379 )'\` with a large Send-Q is a client that does not read; with Kubernetes, a kube-apiserver or controller that is itself starved (its CPU, its own logs)`,
        },
        {
          text: 'Fix or restart that client; a watcher that falls behind the compacted revision is cancelled by etcd and must list again, so fix the reader before compacting past it',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)}`] };
  },
};

/** `2 slow watchers of 40 (1 at the window's start), 1,523 events pending, 12 watch streams`. */
function describe(l: MemberLoad): string {
  const g = l.load;
  const parts = [
    `${g.slowWatchers ?? 0} slow watchers${g.watchers !== undefined ? ` of ${g.watchers}` : ''} (${l.before?.slowWatchers ?? 'none read'} at the window's start, ${l.windowSeconds} s before)`,
  ];
  if (g.pendingEvents !== undefined) parts.push(`${g.pendingEvents} events pending`);
  if (g.watchStreams !== undefined) parts.push(`${g.watchStreams} watch streams`);
  return parts.join(', ');
}
