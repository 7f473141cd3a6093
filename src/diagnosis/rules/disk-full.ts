import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { NO_STAT, EXHAUSTED_MEMBER_EXPLAINS } from '../support/faults.js';
import { kubernetesOf, memberOfScan, nodesOfMembers, scansOf, unique } from '../support/kubernetes.js';
import { countsByMember, describeSignal, etcdSignalByMember } from '../support/logs.js';
import { nodePressureEvidence } from '../support/node-pressure.js';

/** Where a write failed, as scan-faults.ts names it, in words. */
const PLACES: Record<string, string> = {
  wal: 'the WAL',
  snap: 'the snapshots',
  db: 'the database (member/snap/db)',
  'data dir': 'the data dir',
};

/**
 * The filesystem under etcd's data dir is full: ENOSPC, `no space left on device`, on a WAL write
 * (ETCD34/35/36 zap fatal `failed to save Raft hard state and entries`, ETCD33 capnslog `create wal
 * error: no space left on device`, etcd-io/etcd#8330: "the jenkins worker is out of space"), a
 * snapshot or the database. etcd stops the member (a fatal) and it cannot start again until there is
 * room. Not the quota: `database space exceeded` and the NOSPACE alarm are db-quota's, and only
 * that alarm is disarmed; this is the disk. A node's DiskPressure condition is said beside it.
 */
export const diskFullRule: Rule = {
  name: 'disk-full',
  cause: 'disk-full',
  needs: ['kubernetes'],
  rank: 3,
  explains: EXHAUSTED_MEMBER_EXPLAINS,
  evaluate(evidence) {
    const full = etcdSignalByMember(evidence, (s) => s.signals.diskFull ?? NO_STAT);
    const explain = [`no space left on device: ${countsByMember(full)}`];
    if (full.length === 0) return { explain };
    const members = full.map((s) => s.member);
    const where = placesOf(evidence, members);
    const finding: Finding = {
      cause: 'disk-full',
      severity: 'critical',
      members,
      nodes: nodesOfMembers(evidence, members),
      summary: `The disk under ${formatList(members)}'s data dir is full (no space left on device${where ? ` writing ${where}` : ''}): etcd stops the member and it cannot start again until there is room`,
      evidence: [
        ...full.map((s) => `${s.member}: ${describeSignal(s, 'no space left on device')}`),
        ...nodePressureEvidence(evidence, ['DiskPressure'], members),
        ...full.slice(0, 1).flatMap((s) => (s.example ? [`e.g. ${s.example}`] : [])),
      ],
      steps: [
        {
          text: `Free space on the filesystem of ${formatList(members)}'s data dir (\`df -h /var/lib/etcd\`, \`du -sh /var/lib/etcd/member/*\`): remove what else filled it (logs, images, backups kept beside it); never delete files under member/wal or member/snap by hand`,
        },
        {
          text: "Then start the member again; if etcd's own files fill the disk, compact and defragment (`etcd-doctor space` says what fills it) or give the data dir a larger volume. The NOSPACE alarm is a different limit: `etcdctl alarm list` shows whether it was raised too",
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};

function placesOf(evidence: Evidence, members: string[]): string | undefined {
  const places = unique(
    scansOf(kubernetesOf(evidence), 'etcd')
      .filter((s) => members.includes(memberOfScan(evidence, s)))
      .flatMap((s) => s.signals.diskFull?.where ?? []),
  ).map((p) => PLACES[p] ?? p);
  return places.length > 0 ? formatList(places) : undefined;
}
