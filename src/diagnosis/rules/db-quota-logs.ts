import { formatList } from '../../report/format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { dbQuotaRule } from './db-quota.js';
import { countIn, kubernetesOf, scansOf } from '../support/kubernetes.js';
import { describeSignal, etcdSignalByMember, formatSpan } from '../support/logs.js';

/**
 * F10 NOSPACE from the logs, for collected evidence without an alarm list: etcd logs `database
 * space exceeded` / `exceeded backend quota` when a write hits the quota, and clients (the
 * apiserver) log `mvcc: database space exceeded` for every refused write (WEB maintenance.md
 * "Space quota"). With etcd_info's alarm list the db-quota rule decides.
 */
export const dbQuotaLogsRule: Rule = {
  name: 'db-quota-logs',
  cause: 'db-quota',
  needs: ['kubernetes'],
  ...(dbQuotaRule.explains ? { explains: dbQuotaRule.explains } : {}),
  rank: dbQuotaRule.rank,
  evaluate(evidence) {
    const etcd = etcdSignalByMember(evidence, (s) => s.signals.databaseSpaceExceeded);
    const apiserver = scansOf(kubernetesOf(evidence), 'kube-apiserver');
    const clients = countIn(apiserver, (s) => s.databaseSpaceExceeded);
    const explain = [
      `database space exceeded: etcd logs ${etcd.map((e) => `${e.member} ${e.count}`).join(', ') || 'none'}, apiserver logs ${clients.count}`,
    ];
    if (evidence.alarms.ok)
      return { explain: [...explain, 'the alarm list was collected: db-quota decides'] };
    if (etcd.length === 0 && clients.count === 0) return { explain };
    const members = etcd.map((e) => e.member);
    const first = etcd[0];
    const finding: Finding = {
      cause: 'db-quota',
      severity: 'critical',
      members,
      nodes: [],
      summary: `The database reached its space quota (NOSPACE): ${first ? `${first.member} logged ${describeSignal(first, 'NOSPACE line')}` : `the apiserver logged ${clients.count} × mvcc: database space exceeded`}; etcd refuses writes until it is compacted, defragmented and the alarm disarmed`,
      evidence: [
        ...etcd.map(
          (e) =>
            `${e.member}: ${describeSignal(e, 'NOSPACE line (database space exceeded, no space, alarm raised)')}`,
        ),
        ...(clients.count > 0
          ? [`kube-apiserver logs: ${clients.count} × mvcc: database space exceeded${spanOf(apiserver)}`]
          : []),
        ...(first?.example ? [`e.g. ${first.example}`] : []),
      ],
      steps: [
        {
          text: 'Recover: snapshot, compact to the current revision, defragment every member (leader last), then `etcdctl alarm disarm` (etcd FAQ, maintenance guide "Space quota")',
          action: 'recover-nospace',
        },
        {
          text: 'If the data really needs more room: raise --quota-backend-bytes (8 GiB at most, etcd FAQ) with a rolling restart, one member at a time',
        },
      ],
      unknowns: [
        `only logs: no alarm list or database sizes were collected; is the alarm still active? etcdctl alarm list`,
      ],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members) || 'apiserver logs'}`] };
  },
};

function spanOf(scans: ReturnType<typeof scansOf>): string {
  const first = scans
    .map((s) => s.signals.databaseSpaceExceeded.firstSeenAt)
    .filter(Boolean)
    .sort()[0];
  const last = scans
    .map((s) => s.signals.databaseSpaceExceeded.lastSeenAt)
    .filter(Boolean)
    .sort()
    .at(-1);
  const span = formatSpan(first, last);
  return span ? `, ${span}` : '';
}
