import type { SnapshotPeer } from '../../etcd/scan-faults.js';
import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { kubernetesOf, memberOfScan, nodesOfMembers, scansOf } from '../support/kubernetes.js';
import { earliest, formatSpan, latest, spanSeconds } from '../support/logs.js';
import { memberNameById } from '../support/members.js';

/**
 * Database snapshots to one follower within an hour before it counts as never catching up. A new
 * or long-stopped member gets one snapshot and then follows the log; a send that fails is retried
 * once the follower is reachable again (raft ReportSnapshot). Three in an hour is a follower that
 * falls behind again as fast as it is sent the database (inference).
 */
export const SNAPSHOTS_MIN = 3;
export const SNAPSHOT_WINDOW_S = 3600;

interface Behind {
  follower: string;
  leader: string;
  peer: SnapshotPeer;
}

/**
 * A follower that never catches up: its leader sends it the whole database again and again
 * (rafthttp snapshot_sender.go: ETCD33/34 capnslog `start to send database snapshot [index: <i>, to
 * <id>, size <s>]...`, `database snapshot [index: <i>, to: <id>] failed to be sent out (<err>)`;
 * ETCD34/35/36 zap `sending database snapshot` / `failed to send database snapshot` with
 * `remote-peer-id`). A leader sends a snapshot when the follower needs entries it has already
 * compacted away, so a follower that receives, applies and falls behind again — a slow or full
 * disk, a slow link, too little memory — loops (etcd-io/etcd#7944: the follower's disk was full, each
 * send failed with `Internal Server Error`). It names the follower; a disk or network cause on the
 * same member explains it.
 */
export const followerBehindRule: Rule = {
  name: 'follower-behind',
  cause: 'follower-behind',
  needs: ['kubernetes'],
  rank: 32,
  evaluate(evidence) {
    const behind = loopsOf(evidence);
    const explain = [
      behind.length
        ? behind
            .map((b) => `${b.leader} -> ${b.follower}: ${b.peer.count} snapshots, ${b.peer.failed} failed`)
            .join('; ')
        : `no follower was sent ${SNAPSHOTS_MIN} database snapshots within ${SNAPSHOT_WINDOW_S / 60} min`,
    ];
    if (behind.length === 0) return { explain };
    const followers = [...new Set(behind.map((b) => b.follower))];
    const first = behind[0] as Behind;
    const failed = behind.find((b) => b.peer.lastError)?.peer.lastError;
    const finding: Finding = {
      cause: 'follower-behind',
      severity: 'warning',
      members: followers,
      nodes: nodesOfMembers(evidence, followers),
      summary: `${formatList(followers)} never catches up: ${first.leader} sent it the whole database ${first.peer.count} times${first.peer.size ? ` (${first.peer.size} each)` : ''}${withSpan(first.peer)}${failed ? `, and sends failed (${failed})` : ''}; it is no working replica meanwhile`,
      evidence: behind.map(
        (b) =>
          `${b.leader} -> ${b.follower}: ${b.peer.count} database snapshots sent${b.peer.failed ? `, ${b.peer.failed} failed` : ''}${withSpan(b.peer)}${b.peer.lastError ? ` (last error: ${b.peer.lastError})` : ''}`,
      ),
      steps: [
        {
          text: `Look at ${formatList(followers)}'s own log and node: free disk space and fsync speed under its data dir (a full disk fails every receive), its memory, and its link to ${first.leader} on the peer port (a 1 GB snapshot over a slow link takes minutes)`,
        },
        {
          text: 'If it stays behind, replace it: `etcdctl member remove <id>`, move its data dir aside, `etcdctl member add` and start it empty with --initial-cluster-state existing; a larger --snapshot-catchup-entries (etcd 3.6; 3.5: --experimental-snapshot-catchup-entries) keeps more entries for a slow follower to catch up from',
        },
      ],
      unknowns: [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(followers)}`] };
  },
};

function loopsOf(evidence: Evidence): Behind[] {
  return scansOf(kubernetesOf(evidence), 'etcd').flatMap((scan) => {
    const leader = memberOfScan(evidence, scan);
    return (scan.signals.snapshotsSent?.peers ?? [])
      .filter(looping)
      .map((peer) => ({ follower: memberNameById(evidence, peer.peerId), leader, peer }));
  });
}

/** At least SNAPSHOTS_MIN sends, at a rate of SNAPSHOTS_MIN an hour or more when the lines have times. */
function looping(peer: SnapshotPeer): boolean {
  if (peer.count < SNAPSHOTS_MIN) return false;
  const span = spanSeconds(peer.firstSeenAt, peer.lastSeenAt);
  if (span === undefined) return true;
  return (peer.count * SNAPSHOT_WINDOW_S) / Math.max(span, SNAPSHOT_WINDOW_S) >= SNAPSHOTS_MIN;
}

function withSpan(peer: SnapshotPeer): string {
  const span = formatSpan(earliest(peer.firstSeenAt, undefined), latest(peer.lastSeenAt, undefined));
  return span ? `, ${span}` : '';
}
