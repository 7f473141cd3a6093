import { formatBytes, formatList, formatPercent } from '../../report/format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';

/** CEOP defragcontroller.go: defragment when fragmentation >= 45 % and dbSize >= 100 MB. */
export const FRAGMENTATION_LIMIT = 0.45;
export const MIN_DB_SIZE_BYTES = 100 * 1000 * 1000;

/**
 * F10 fragmentation: after deletes and compaction, dbSize stays while dbSizeInUse shrinks. No log
 * line is written; only Status shows it (etcd-fault-signatures.md). Fragmentation explains quota
 * pressure: defragmenting is then the fix for db-quota too.
 */
export const dbFragmentationRule: Rule = {
  name: 'db-fragmentation',
  cause: 'db-fragmentation',
  needs: ['status'],
  rank: 12,
  explains: ['db-quota'],
  evaluate(evidence) {
    const readings = evidence.members.flatMap((m) => {
      if (!m.status.ok || m.status.data.dbSizeBytes === 0) return [];
      const { dbSizeBytes, dbSizeInUseBytes } = m.status.data;
      return [
        {
          name: m.target.name,
          db: dbSizeBytes,
          inUse: dbSizeInUseBytes,
          fragmentation: (dbSizeBytes - dbSizeInUseBytes) / dbSizeBytes,
        },
      ];
    });
    const explain = readings.map(
      (r) =>
        `${r.name}: db ${formatBytes(r.db)}, in use ${formatBytes(r.inUse)}, fragmentation ${formatPercent(r.fragmentation)} (fires at >= ${formatPercent(FRAGMENTATION_LIMIT)} and db >= ${formatBytes(MIN_DB_SIZE_BYTES)})`,
    );
    const fragmented = readings.filter(
      (r) => r.fragmentation >= FRAGMENTATION_LIMIT && r.db >= MIN_DB_SIZE_BYTES,
    );
    if (fragmented.length === 0) return { explain };
    const names = fragmented.map((r) => r.name);
    const free = fragmented.reduce((sum, r) => sum + (r.db - r.inUse), 0);
    const finding: Finding = {
      cause: 'db-fragmentation',
      severity: 'warning',
      members: names,
      nodes: [],
      summary: `${formatList(names)} ${names.length === 1 ? 'holds' : 'hold'} ${formatBytes(free)} of free pages: defragmenting returns them`,
      evidence: fragmented.map(
        (r) =>
          `${r.name}: dbSize ${formatBytes(r.db)}, dbSizeInUse ${formatBytes(r.inUse)}: ${formatPercent(r.fragmentation)} fragmented (OpenShift defragments at 45 % and 100 MB)`,
      ),
      steps: [
        {
          text: 'Defragment one member at a time, followers first and the leader last, checking health between members (etcd maintenance guide; cluster-etcd-operator)',
          action: 'defragment',
        },
        { text: 'Take a snapshot first: etcdctl snapshot save (etcd maintenance guide "Snapshot backup")' },
      ],
      unknowns: [],
    };
    return { finding, explain };
  },
};
