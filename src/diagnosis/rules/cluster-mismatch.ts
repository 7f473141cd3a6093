import type { Evidence } from '../../probes/evidence.js';
import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { kubernetesOf, memberOfScan, scansOf } from '../support/kubernetes.js';
import { describeSignal, earliest, etcdSignalByMember, latest, type MemberSignal } from '../support/logs.js';
import { memberNameById } from '../support/members.js';

/**
 * A member that belongs to another cluster, or to none any more (etcd-fault-signatures "member
 * re-added"): live, a member whose Status names another cluster ID than the others; in the logs,
 * rafthttp's `request cluster ID mismatch` / `request sent was ignored (cluster ID mismatch …)` (a
 * data dir or an --initial-cluster from another cluster), `the member has been permanently removed
 * from the cluster` (a removed member still running), and `member <id> has already been
 * bootstrapped` (ETCD34/35 server.go: started `--initial-cluster-state new` on a data dir without
 * a WAL while its peers know it: its data is gone, or --data-dir is wrong). Elections stall at a
 * rising term while it goes on, so it explains leader churn.
 */
export const clusterMismatchRule: Rule = {
  name: 'cluster-mismatch',
  cause: 'cluster-mismatch',
  needs: [],
  // After non-durable-storage (8): a data dir lost on tmpfs is what makes a member start a new cluster.
  rank: 9,
  explains: ['leader-churn', 'peer-network', 'member-down', 'control-plane-restarts', 'apiserver-latency'],
  evaluate(evidence) {
    const odd = oddClusterIds(evidence);
    const mismatch = etcdSignalByMember(evidence, (s) => s.signals.clusterIdMismatch ?? none);
    const removedSelf = etcdSignalByMember(evidence, (s) => s.signals.memberRemoved ?? none);
    // The members that refused a removed peer speak for it: the removed one is the peer they name.
    const removed = [...removedSelf, ...removedPeers(evidence)];
    const bootstrapped = etcdSignalByMember(evidence, (s) => s.signals.alreadyBootstrapped ?? none);
    const explain = [
      odd ? `cluster IDs: ${odd.text}` : 'cluster IDs: every member that answered names the same one',
      `logs: ${counts(mismatch, 'cluster ID mismatch')}; ${counts(removed, 'removed member')}; ${counts(bootstrapped, 'already bootstrapped')}`,
    ];
    if (!odd && mismatch.length + removed.length + bootstrapped.length === 0) return { explain };
    // The member of the other cluster is the peer the reporters name; without a name, the reporters.
    const foreign = mismatchPeers(evidence);
    const members = [
      ...new Set([
        ...(odd?.members ?? []),
        ...(foreign.length > 0 ? foreign : mismatch.map((s) => s.member)),
        ...[...removed, ...bootstrapped].map((s) => s.member),
      ]),
    ];
    const finding: Finding = {
      cause: 'cluster-mismatch',
      severity: 'critical',
      members,
      nodes: [],
      summary: summaryOf(odd, mismatch, removed, bootstrapped, members),
      evidence: [
        ...(odd ? [`cluster IDs from Status: ${odd.text}`] : []),
        ...mismatch.map(
          (s) => `${s.member}: ${describeSignal(s, 'cluster ID mismatch')}${withOthers(foreign, s.member)}`,
        ),
        ...removedSelf.map((s) => `${s.member}: ${describeSignal(s, 'removed from the cluster')}`),
        ...removed
          .filter((s) => !removedSelf.includes(s))
          .map((s) => `${s.member}: ${describeSignal(s, 'stream refused by its peers as a removed member')}`),
        ...bootstrapped.map((s) => `${s.member}: ${describeSignal(s, 'has already been bootstrapped')}`),
        ...[...mismatch, ...removed, ...bootstrapped]
          .slice(0, 2)
          .flatMap((s) => (s.example ? [`e.g. ${s.example}`] : [])),
      ],
      steps: [stepOf(odd, mismatch, removed, bootstrapped, members)],
      unknowns: [],
    };
    return { finding, explain };
  },
};

const none = { count: 0, example: undefined };

/**
 * Removed members, as their peers saw them: each peer id named in a `rejected … removed` line, with
 * the lines of the members that logged it (its own log, if any, says `permanently removed`).
 */
function removedPeers(evidence: Evidence): MemberSignal[] {
  const byPeer = new Map<string, MemberSignal>();
  for (const scan of scansOf(kubernetesOf(evidence), 'etcd')) {
    const stat = scan.signals.removedPeerRejected;
    if (!stat || stat.count === 0) continue;
    const reporter = memberOfScan(evidence, scan);
    for (const id of stat.peers) {
      const member = memberNameById(evidence, id);
      const seen = byPeer.get(member);
      byPeer.set(member, {
        member,
        count: (seen?.count ?? 0) + stat.count,
        maxSeconds: undefined,
        firstSeenAt: earliest(seen?.firstSeenAt, stat.firstSeenAt),
        lastSeenAt: latest(seen?.lastSeenAt, stat.lastSeenAt),
        example: stat.example ? `${reporter} logged: ${stat.example}` : seen?.example,
      });
    }
  }
  return [...byPeer.values()];
}

/**
 * The members of the other cluster, from the mismatch lines: when both sides' logs are collected,
 * the members whose own cluster ID (the one their mismatch lines call local, else the one their
 * other lines name) is not the one most logs share; from one side only, the peers its lines name
 * (as names where known). Every log counts, not only those that logged the mismatch yet: when only
 * the leader of three had logged it beside the stranger, one against one named both sides.
 */
function mismatchPeers(evidence: Evidence): string[] {
  const all = scansOf(kubernetesOf(evidence), 'etcd');
  const scans = all.filter((s) => (s.signals.clusterIdMismatch?.count ?? 0) > 0);
  const byCluster = new Map<string, string[]>();
  for (const s of all) {
    const cid = s.signals.clusterIdMismatch?.localCluster ?? s.signals.clusterId;
    if (cid) byCluster.set(cid, [...(byCluster.get(cid) ?? []), memberOfScan(evidence, s)]);
  }
  const ranked = [...byCluster.values()].sort((a, b) => b.length - a.length);
  // One cluster holds more of the reporters than any other: the rest are the strangers.
  if (ranked.length > 1 && (ranked[0]?.length ?? 0) > (ranked[1]?.length ?? 0))
    return [...new Set(ranked.slice(1).flat())];
  const ids = scans.flatMap((s) => s.signals.clusterIdMismatch?.peers ?? []);
  return [...new Set(ids.map((id) => memberNameById(evidence, id)))];
}

interface OddIds {
  members: string[];
  /** Of those, the ones whose member id is not in the member list (an endpoint of another cluster). */
  outsiders: string[];
  /** The cluster ID the odd members name (the first, if several). */
  otherId: string;
  text: string;
}

/** Members whose Status names a cluster ID that the most members do not. */
function oddClusterIds(evidence: Evidence): OddIds | undefined {
  const ids = evidence.members.flatMap((m) =>
    m.status.ok ? [{ name: m.target.name, id: m.status.data.clusterId, member: m.status.data.memberId }] : [],
  );
  const byId = new Map<string, string[]>();
  for (const { name, id } of ids) byId.set(id, [...(byId.get(id) ?? []), name]);
  if (byId.size < 2) return undefined;
  const sorted = [...byId.entries()].sort((a, b) => b[1].length - a[1].length);
  const members = sorted.slice(1).flatMap(([, names]) => names);
  const listed = new Set(evidence.memberList.ok ? evidence.memberList.data.map((m) => m.id) : []);
  const outsiders = evidence.memberList.ok
    ? ids.filter((i) => members.includes(i.name) && !listed.has(i.member)).map((i) => i.name)
    : [];
  return {
    members,
    outsiders,
    otherId: sorted[1]?.[0] ?? '',
    text: sorted.map(([id, names]) => `${formatList(names)} ${id}`).join('; '),
  };
}

/** ` (with etcd-1 and etcd-2)`: the other side of a member's mismatch lines, itself left out. */
function withOthers(foreign: string[], member: string): string {
  const others = foreign.filter((f) => f !== member);
  return others.length ? ` (with ${formatList(others)})` : '';
}

/** Each member once: a removed member is in its own log and in its peers'. */
function namesOf(signals: MemberSignal[]): string[] {
  return [...new Set(signals.map((s) => s.member))];
}

function counts(signals: MemberSignal[], what: string): string {
  return signals.length ? signals.map((s) => `${s.member} ${s.count} × ${what}`).join(', ') : `no ${what}`;
}

const REJOIN =
  "then, to have it back, `etcdctl member add <name> --peer-urls=<url>` and start it empty with `--initial-cluster-state existing` and the cluster's own --initial-cluster (etcd runtime reconfiguration guide)";

/** The fix, in one step, for the shape that was seen. */
function stepOf(
  odd: OddIds | undefined,
  mismatch: MemberSignal[],
  removed: MemberSignal[],
  bootstrapped: MemberSignal[],
  members: string[],
): { text: string } {
  if (odd && odd.outsiders.length === odd.members.length)
    return {
      text: `Take ${formatList(odd.members)} out of this cluster's endpoints (etcd-doctor's config, the clients' --endpoints): it is not in the member list; if it should be a member, stop it, move its data dir aside, ${REJOIN}`,
    };
  if (bootstrapped.length > 0 && mismatch.length + removed.length === 0 && !odd)
    return {
      text: `Check ${formatList(namesOf(bootstrapped))}'s --data-dir (a wrong path, or tmpfs after a reboot, is an empty data dir); if its data is gone, \`etcdctl member remove <id>\`, ${REJOIN}: a member that lost its data must not rejoin under its old ID (etcd FAQ)`,
    };
  if (removed.length > 0 && mismatch.length === 0 && !odd)
    return {
      text: `Stop ${formatList(namesOf(removed))} for good and move its data dir aside (etcd: "data-dir used by this member must be removed"); ${REJOIN}`,
    };
  return {
    text: `Stop ${formatList(members)}, move its data dir aside, \`etcdctl member remove <id>\`, ${REJOIN}`,
  };
}

function summaryOf(
  odd: OddIds | undefined,
  mismatch: MemberSignal[],
  removed: MemberSignal[],
  bootstrapped: MemberSignal[],
  members: string[],
): string {
  if (odd && odd.outsiders.length === odd.members.length)
    return `${formatList(odd.members)} answers for another cluster (cluster ID ${odd.otherId}) and is not in this cluster's member list`;
  if (odd)
    return `${formatList(odd.members)} belongs to another cluster: its cluster ID differs from the others'`;
  const others = namesOf(mismatch).filter((m) => !members.includes(m));
  if (mismatch.length > 0)
    return `${formatList(members)} ${members.length === 1 ? 'belongs' : 'belong'} to another cluster than ${others.length ? formatList(others) : 'the members that logged it'}: they refuse each other's messages (cluster ID mismatch); a data dir or --initial-cluster from elsewhere`;
  if (removed.length > 0)
    return `${formatList(namesOf(removed))} was removed from the cluster but still runs`;
  return `${formatList(namesOf(bootstrapped))} cannot start: its data dir holds no WAL, so it starts as a new member, but the cluster already knows it (member … has already been bootstrapped): its data was lost or --data-dir is wrong`;
}
