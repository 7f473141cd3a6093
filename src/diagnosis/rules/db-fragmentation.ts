import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import { formatBytes, formatList, formatPercent } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';
import { judgedQuota, spaceOf } from '../support/space.js';
import { QUOTA_CRITICAL, QUOTA_INFO } from './db-quota.js';

/** CEOP defragcontroller.go: defragment when fragmentation >= 45 % and dbSize >= 100 MB. */
export const FRAGMENTATION_LIMIT = 0.45;
export const MIN_DB_SIZE_BYTES = 100 * 1000 * 1000;

interface Reading {
  name: string;
  db: number;
  inUse: number;
  fragmentation: number;
  quota: number;
  quotaKnown: boolean;
}

/**
 * F10 fragmentation: after deletes and compaction, dbSize stays while dbSizeInUse shrinks. No log
 * line is written; only Status shows it (etcd-fault-signatures.md). It matters when the free pages
 * are a large share of the file (CEOP: 45 %) and either the file is big (CEOP's 100 MB floor, for
 * routine defragmentation) or it is close to its quota (db-quota's first threshold, 65 %, CEOP
 * etcdDatabaseQuotaLowSpace): then the quota pressure is the free pages, and defragmenting is the
 * fix for db-quota too, which this explains.
 */
export const dbFragmentationRule: Rule = {
  name: 'db-fragmentation',
  cause: 'db-fragmentation',
  needs: ['status'],
  rank: 12,
  explains: ['db-quota'],
  evaluate(evidence, ctx) {
    const readings = evidence.members.flatMap((m) => readingOf(evidence, m));
    const explain = explainLines(ctx, () =>
      readings.map(
        (r) =>
          `${r.name}: db ${formatBytes(r.db)}, in use ${formatBytes(r.inUse)}, fragmentation ${formatPercent(r.fragmentation)}, ${formatPercent(r.db / r.quota)} of quota (fires at >= ${formatPercent(FRAGMENTATION_LIMIT)} with db >= ${formatBytes(MIN_DB_SIZE_BYTES)} or >= ${formatPercent(QUOTA_INFO)} of quota)`,
      ),
    );
    const fragmented = readings.filter(
      (r) => r.fragmentation >= FRAGMENTATION_LIMIT && (r.db >= MIN_DB_SIZE_BYTES || nearQuota(r)),
    );
    if (fragmented.length === 0) return { explain };
    const names = fragmented.map((r) => r.name);
    const free = fragmented.reduce((sum, r) => sum + (r.db - r.inUse), 0);
    const worst = [...fragmented].sort((a, b) => b.db / b.quota - a.db / a.quota)[0];
    const severity: Severity = worst && worst.db / worst.quota > QUOTA_CRITICAL ? 'critical' : 'warning';
    const finding: Finding = {
      cause: 'db-fragmentation',
      severity,
      members: names,
      nodes: [],
      summary: `${formatList(names)} ${names.length === 1 ? 'holds' : 'hold'} ${formatBytes(free)} of free pages${worst && nearQuota(worst) ? `, at ${formatPercent(worst.db / worst.quota)} of the ${formatBytes(worst.quota)} quota` : ''}: defragmenting returns them`,
      evidence: [
        ...fragmented.map(
          (r) =>
            `${r.name}: dbSize ${formatBytes(r.db)}, dbSizeInUse ${formatBytes(r.inUse)}: ${formatPercent(r.fragmentation)} fragmented (OpenShift defragments at 45 % and 100 MB)`,
        ),
        ...fragmented
          .filter(nearQuota)
          .map(
            (r) =>
              `${r.name}: defragmenting frees ${formatBytes(r.db - r.inUse)}, from ${formatPercent(r.db / r.quota)} to ${formatPercent(r.inUse / r.quota)} of its ${formatBytes(r.quota)} quota`,
          ),
      ],
      steps: [
        {
          text: 'Defragment one member at a time, followers first and the leader last, checking health between members (etcd maintenance guide; cluster-etcd-operator)',
          action: 'defragment',
        },
        { text: 'Take a snapshot first: etcdctl snapshot save (etcd maintenance guide "Snapshot backup")' },
        {
          text: 'Find what fills the pages that stay in use: keys and bytes per Kubernetes resource, the largest objects, the writes per second (`etcd-doctor space <cluster>`)',
          action: 'space',
        },
      ],
      unknowns: fragmented.some((r) => !r.quotaKnown)
        ? ["quota not read from /metrics or the pod spec; judged against etcd's default of 2 GiB"]
        : [],
    };
    return { finding, explain };
  },
};

function readingOf(evidence: Evidence, m: MemberEvidence): Reading[] {
  const space = spaceOf(evidence, m);
  if (!space || space.db === 0) return [];
  return [
    {
      name: m.target.name,
      db: space.db,
      inUse: space.inUse,
      fragmentation: (space.db - space.inUse) / space.db,
      quota: judgedQuota(space),
      quotaKnown: space.quota !== undefined,
    },
  ];
}

function nearQuota(r: Reading): boolean {
  return r.db / r.quota >= QUOTA_INFO;
}
