import { formatBytes, formatList, formatPercent } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { alarmText } from '../support/members.js';
import {
  FULL_OF_DATA,
  historyCompacted,
  judgedQuota,
  makeRoomStep,
  quotaUnknownWhy,
  spaceOf,
  spaceWords,
} from '../support/space.js';

/** CEOP etcdDatabaseQuotaLowSpace: > 65 % info, > 75 % warning, > 85 % critical (MIXIN: > 95 %). */
export const QUOTA_INFO = 0.65;
export const QUOTA_WARNING = 0.75;
export const QUOTA_CRITICAL = 0.85;

/**
 * F10 space (KB §1.1): an active NOSPACE alarm means the cluster only accepts reads and deletes
 * (WEB maintenance.md); otherwise each member's dbSize against the quota (from /metrics, or
 * etcd's 2 GiB default when /metrics is unreachable, said as an unknown).
 */
export const dbQuotaRule: Rule = {
  name: 'db-quota',
  cause: 'db-quota',
  needs: ['status'],
  rank: 15,
  explains: ['control-plane-restarts', 'apiserver-latency'],
  evaluate(evidence, ctx) {
    const nospace = evidence.alarms.ok ? evidence.alarms.data.filter((a) => a.alarm === 'NOSPACE') : [];
    const usage = evidence.members.flatMap((m) => {
      const space = spaceOf(evidence, m);
      return space ? [{ ...space, judged: judgedQuota(space), why: quotaUnknownWhy(m) }] : [];
    });
    const explain = explainLines(ctx, () => [
      `alarms: ${nospace.length ? 'NOSPACE' : 'none'}${evidence.alarms.ok ? '' : ` (${evidence.alarms.failure.message})`}`,
      ...usage.map(
        (u) =>
          `${u.name}: db ${formatBytes(u.db)} of quota ${formatBytes(u.judged)}${u.quota === undefined ? " (etcd's default: not read)" : ''} = ${formatPercent(u.db / u.judged)} (info ${formatPercent(QUOTA_INFO)}, warning ${formatPercent(QUOTA_WARNING)}, critical ${formatPercent(QUOTA_CRITICAL)})`,
      ),
    ]);
    const worst = [...usage].sort((a, b) => b.db / b.judged - a.db / a.judged)[0];
    const ratio = worst ? worst.db / worst.judged : 0;
    if (nospace.length === 0 && ratio <= QUOTA_INFO) return { explain };
    const severity: Severity =
      nospace.length > 0 || ratio > QUOTA_CRITICAL ? 'critical' : ratio > QUOTA_WARNING ? 'warning' : 'info';
    const full = usage.filter((u) => u.db / u.judged > QUOTA_INFO).map((u) => u.name);
    // Live data at the quota, the history compacted: a compaction and a defragmentation would free ~0.
    const fullOfData = nospace.length
      ? usage.filter((u) => u.quota !== undefined && u.inUse >= FULL_OF_DATA * u.quota && historyCompacted(u))
      : [];
    const finding: Finding = {
      cause: 'db-quota',
      severity,
      members: full.length ? full : usage.map((u) => u.name),
      nodes: [],
      summary: nospace.length
        ? `The NOSPACE alarm is active: ${reachedWords(usage)} and etcd refuses every write until ${fullOfData.length ? 'it has room again (the data in use fills the quota) and the alarm is disarmed' : 'it is compacted, defragmented and disarmed'}`
        : `The database uses ${formatPercent(ratio)} of its ${formatBytes(worst?.judged)} quota on ${formatList(full)}`,
      evidence: [
        ...(nospace.length ? [`alarm list: ${nospace.map((a) => alarmText(evidence, a)).join(', ')}`] : []),
        ...usage.map((u) => `${u.name}: ${spaceWords(u, u.why)}`),
      ],
      steps: [
        ...fullOfData
          .slice(0, 1)
          .map((u) =>
            makeRoomStep(
              `${formatBytes(u.inUse)} of ${u.name}'s ${formatBytes(u.db)} database is in use against its ${formatBytes(u.quota)} quota, and its history is compacted (${u.compactable} old key version${u.compactable === 1 ? '' : 's'})`,
            ),
          ),
        ...(nospace.length
          ? [
              {
                text: 'Recover: snapshot, compact to the current revision, defragment every member (leader last), then `etcdctl alarm disarm` (etcd FAQ, maintenance guide "Space quota")',
                action: 'recover-nospace' as const,
              },
            ]
          : [
              {
                text: 'Defragment one member at a time, leader last, to return free pages (etcd maintenance guide)',
                action: 'defragment' as const,
              },
            ]),
        {
          text: 'Find what fills it: keys and bytes per Kubernetes resource and namespace, the largest objects and the writes per second, read from a follower (`etcd-doctor space <cluster>`; offline, `etcd-doctor analyze snapshot.db`)',
          action: 'space' as const,
        },
        {
          text: 'If the data really needs more room: raise --quota-backend-bytes (8 GiB at most, etcd FAQ) with a rolling restart, one member at a time',
        },
      ],
      // With NOSPACE the alarm says the quota was reached; only a percentage judged on a guess is unknown.
      unknowns:
        nospace.length === 0 && usage.some((u) => u.quota === undefined)
          ? ["quota not read from /metrics or the pod spec; judged against etcd's default of 2 GiB"]
          : [],
    };
    return { finding, explain };
  },
};

/**
 * `the database reached its quota (16.8 MB)` when a member's quota is known, else the largest
 * database, without a quota that was not read: `the database (17 MB on etcd-3) reached its quota`.
 */
function reachedWords(usage: Array<{ name: string; db: number; quota: number | undefined }>): string {
  const known = usage.find((u) => u.quota !== undefined);
  if (known) return `the database reached its quota (${formatBytes(known.quota)})`;
  const largest = [...usage].sort((a, b) => b.db - a.db)[0];
  return largest
    ? `the database (${formatBytes(largest.db)} on ${largest.name}) reached its quota`
    : 'the database reached its quota';
}
