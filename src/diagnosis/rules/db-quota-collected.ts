import type { Evidence } from '../../probes/evidence.js';
import { formatBytes, formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { dbQuotaRule } from './db-quota.js';
import { countIn, kubernetesOf, memberOfScan, scansOf } from '../support/kubernetes.js';
import { describeSignal, etcdSignalByMember, formatSpan } from '../support/logs.js';
import { DEFAULT_QUOTA_BYTES, FULL_OF_DATA, makeRoomStep } from '../support/space.js';

/**
 * F10 NOSPACE from the logs, for collected evidence without an alarm list: etcd logs `database
 * space exceeded` / `exceeded backend quota` when a write hits the quota, and clients (the
 * apiserver) log `mvcc: database space exceeded` for every refused write (WEB maintenance.md
 * "Space quota"). With etcd_info's alarm list the db-quota rule decides.
 */
export const dbQuotaCollectedRule: Rule = {
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
    const full = fullAfterDefrag(evidence);
    const finding: Finding = {
      cause: 'db-quota',
      severity: 'critical',
      members,
      nodes: [],
      summary: `The database reached its space quota (NOSPACE): ${first ? `${first.member} logged ${describeSignal(first, 'NOSPACE line')}` : `the apiserver logged ${clients.count} × mvcc: database space exceeded`}; etcd refuses writes until ${full ? 'it has room again (the data in use fills the quota)' : 'it is compacted, defragmented'} and the alarm disarmed`,
      evidence: [
        ...etcd.map(
          (e) =>
            `${e.member}: ${describeSignal(e, 'NOSPACE line (database space exceeded, no space, alarm raised)')}`,
        ),
        ...(clients.count > 0
          ? [`kube-apiserver logs: ${clients.count} × mvcc: database space exceeded${spanOf(apiserver)}`]
          : []),
        ...(first?.example ? [`e.g. ${first.example}`] : []),
        ...(full ? [full] : []),
      ],
      steps: full ? [makeRoomStep(full), THEN_RECOVER] : [RECOVER, RAISE_QUOTA],
      unknowns: [
        `only logs: no alarm list or database sizes were collected; is the alarm still active? etcdctl alarm list`,
      ],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members) || 'apiserver logs'}`] };
  },
};

const RECOVER = {
  text: 'Recover: snapshot, compact to the current revision, defragment every member (leader last), then `etcdctl alarm disarm` (etcd FAQ, maintenance guide "Space quota")',
  action: 'recover-nospace',
} as const;
const THEN_RECOVER = {
  text: 'Then compact, defragment every member (leader last) and `etcdctl alarm disarm` (maintenance guide "Space quota")',
  action: 'recover-nospace',
} as const;
const RAISE_QUOTA = {
  text: 'If the data really needs more room: raise --quota-backend-bytes (8 GiB at most, etcd FAQ) with a rolling restart, one member at a time',
};

/** A defragmentation that freed less than this share of the database gave nothing back. */
const FREED_NOTHING = 0.01;

/**
 * A member whose last defragmentation (zap `defragmented` / `finished defragmenting directory`)
 * freed ~0 while the data in use stayed at the quota: the data itself fills it. The quota is the
 * one the member logged at start (`enabled backend quota`), else etcd's default, said as such.
 */
function fullAfterDefrag(evidence: Evidence): string | undefined {
  for (const scan of scansOf(kubernetesOf(evidence), 'etcd')) {
    const d = scan.signals.defragmented;
    if (!d || d.count === 0 || d.inUseBytes === undefined || d.sizeBytes === undefined) continue;
    const logged = scan.signals.quota?.bytes;
    const quota = logged ?? DEFAULT_QUOTA_BYTES;
    const freed = d.freedBytes ?? 0;
    if (freed >= FREED_NOTHING * d.sizeBytes || d.inUseBytes < FULL_OF_DATA * quota) continue;
    return `${memberOfScan(evidence, scan)}'s defragmentation freed ${formatBytes(freed)}: ${formatBytes(d.inUseBytes)} in use of ${logged ? 'its' : "etcd's default"} ${formatBytes(quota)} quota`;
  }
  return undefined;
}

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
