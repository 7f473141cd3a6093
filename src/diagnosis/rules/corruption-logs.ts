import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { NO_STAT } from '../support/faults.js';
import { kubernetesOf, memberOfScan, nodesOfMembers, scansOf, unique } from '../support/kubernetes.js';
import { countsByMember, describeSignal, etcdSignalByMember } from '../support/logs.js';

const MISSING: Record<string, string> = {
  'snapshot database': 'lost its snapshot database (the <index>.snap.db its WAL points at is gone)',
  WAL: 'lost its WAL (wal: file not found)',
  'WAL unreadable': 'holds a WAL etcd cannot read (cannot be repaired)',
  'snapshot files':
    'holds snapshot files etcd could not read (empty, torn or failing their checksum) and set aside as .snap.broken',
  'database file':
    "holds a database file bbolt's page check finds damaged (freepages: a page referenced twice, out of bounds or unreachable)",
};

/** Damage etcd starts past when an older intact snapshot is left (snap/snapshotter.go loadSnap). */
const SURVIVABLE = new Set(['snapshot files']);

/**
 * A data dir that lost its snapshot database or its WAL, or whose WAL cannot be read: after a
 * restart (a power loss, a reboot, files removed by hand) etcd panics at start with `failed to
 * recover v3 backend from snapshot` / `failed to find database snapshot file (snap: snapshot file
 * doesn't exist)` (ETCD34/35/36 zap; ETCD33/34 capnslog `recovering backend from snapshot error:
 * database snapshot file path error: snap: snapshot file doesn't exist`; kubernetes/kubernetes#88574,
 * etcd-io/etcd#11949, #12492), or stops on `wal: file not found` / `read wal error (…) and cannot be
 * repaired` (storage.go), or finds snapshot files it cannot read and sets them aside as
 * `.snap.broken` (snap/snapshotter.go loadSnap; etcd-io/etcd#5518: every snapshot broken after a full
 * disk; a warning, since etcd starts from an older intact snapshot when one is left), or bbolt panics
 * at open on a damaged db file (`freepages: failed to get all reachable pages (page N: multiple
 * references …)`, scan-faults.ts BOLT_PAGES_DAMAGED). The member's data is damaged: it is replaced, never repaired by copying
 * files from another member (WEB runtime-configuration.md "Replace a failed machine"). The CORRUPT
 * alarm is the live corruption rule's.
 */
export const corruptionLogsRule: Rule = {
  name: 'corruption-logs',
  cause: 'corruption',
  needs: ['kubernetes'],
  rank: 1,
  explains: ['member-down', 'leader-churn', 'etcd-crash', 'peer-network', 'control-plane-restarts'],
  evaluate(evidence) {
    const damaged = etcdSignalByMember(evidence, (s) => s.signals.dataDirDamaged ?? NO_STAT);
    const explain = [`damaged data dirs in the etcd logs: ${countsByMember(damaged)}`];
    if (damaged.length === 0) return { explain };
    const members = damaged.map((s) => s.member);
    const places = placesOf(evidence, members);
    const what = places.length > 0 ? formatList(places.map((w) => MISSING[w] ?? w)) : 'lost files it needs';
    // Broken snapshot files alone: etcd starts from an older intact one if one is left, and stops
    // (no snapshot, then the WAL it needs is gone) only when none is.
    const survivable = places.length > 0 && places.every((w) => SURVIVABLE.has(w));
    const finding: Finding = {
      cause: 'corruption',
      severity: survivable ? 'warning' : 'critical',
      members,
      nodes: nodesOfMembers(evidence, members),
      summary: survivable
        ? `${formatList(members)}'s data dir is damaged: it ${what} (a crash or a full disk while etcd wrote them); etcd starts from an older intact snapshot if one is left, else it cannot start from this data dir`
        : `${formatList(members)}'s data dir is damaged: it ${what}, so etcd cannot start from it`,
      evidence: [
        ...damaged.map((s) => `${s.member}: ${describeSignal(s, 'data dir damaged')}`),
        ...damaged.slice(0, 1).flatMap((s) => (s.example ? [`e.g. ${s.example}`] : [])),
      ],
      steps: [
        {
          text: `${survivable ? `If ${formatList(members)} does not start or keeps failing, replace it` : `Replace ${formatList(members)}`} (runtime-configuration "Replace a failed machine"), one member at a time and only while the others keep quorum: \`etcdctl member remove <id>\`, move its data dir aside (keep it), \`etcdctl member add <name> --peer-urls=<its peer URL>\`, and start it with an empty data dir and --initial-cluster-state existing: it syncs from the leader`,
        },
        {
          text: 'Do not copy WAL or snap files from another member into it. If most members lost their data, quorum is gone: restore from a snapshot instead (`etcd-doctor recover`, the disaster recovery guide)',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(members)}`] };
  },
};

/** The parts of the data dir found damaged on these members (`snapshot database`, `WAL`, …). */
function placesOf(evidence: Evidence, members: string[]): string[] {
  return unique(
    scansOf(kubernetesOf(evidence), 'etcd')
      .filter((s) => members.includes(memberOfScan(evidence, s)))
      .flatMap((s) => s.signals.dataDirDamaged?.where ?? []),
  );
}
