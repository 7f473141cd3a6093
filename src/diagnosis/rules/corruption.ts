import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { alarmText, memberNameById } from '../support/members.js';

/**
 * F12 data corruption (KB §1.1): any active CORRUPT alarm makes the member unhealthy
 * (ETCD35 health.go). Out of scope for automation; members whose hash disagrees must be
 * replaced from a healthy member's snapshot (etcd data-corruption and recovery guides).
 */
export const corruptionRule: Rule = {
  name: 'corruption',
  cause: 'corruption',
  needs: ['alarms'],
  rank: 1,
  explains: ['member-down', 'leader-churn', 'slow-reads'],
  evaluate(evidence) {
    const corrupt = evidence.alarms.ok ? evidence.alarms.data.filter((a) => a.alarm === 'CORRUPT') : [];
    const explain = [`CORRUPT alarms: ${corrupt.length}`];
    if (corrupt.length === 0) return { explain };
    const names = corrupt.map((a) =>
      a.memberId === '0' ? 'the cluster' : memberNameById(evidence, a.memberId),
    );
    const finding: Finding = {
      cause: 'corruption',
      severity: 'critical',
      members: names,
      nodes: [],
      summary: `etcd raised the CORRUPT alarm for ${formatList(names)}: its data disagrees with the other members`,
      evidence: corrupt.map((a) => `alarm list: ${alarmText(evidence, a)}`),
      steps: [
        {
          text: 'Do not defragment, compact or restart members now. Take a snapshot from a healthy member first (etcdctl snapshot save)',
        },
        {
          text: `Replace ${formatList(names)}: remove it, wipe its data dir, add it back so it syncs from the leader (etcd runtime-configuration "Replace a failed machine")`,
        },
        {
          text: 'Follow the etcd data corruption guide (op-guide/data_corruption) before disarming the alarm',
          action: 'open-ticket',
        },
      ],
      unknowns: [],
    };
    return { finding, explain };
  },
};
