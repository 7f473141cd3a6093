import { formatList } from '../format.js';
import type { CheckDepth } from '../contracts/check-depth.js';
import { createAlarmsProbe } from './alarms.js';
import type { ClusterProbeContext } from './cluster-context.js';
import { type CollectOptions, isWatchCheck, WATCH_HEDGE_MS } from './collect-options.js';
import type { Outcome } from './outcome.js';
import { awaitElection, type ElectionOptions } from './election.js';
import {
  type ElectionEvidence,
  type Evidence,
  type MemberEvidence,
  type MemberInfo,
  type ProbeRecord,
  probeRecord,
} from './evidence.js';
import type { MemberProbeContext } from './member-context.js';
import { createMemberListProbe } from './member-list.js';
import {
  discoverTargets,
  initialTarget,
  nameFromList,
  notStartedMembers,
  subjectOf,
} from './member-targets.js';
import { ownCertificates } from './own-certificates.js';
import { formatSeconds, type Probe, runProbe, shareSignal } from './probe.js';
import { memberContext, type MemberProbes, memberProbes, probeMember } from './probe-member.js';
import { alarmsFromStatus } from './status-alarms.js';

/*
 * One collection: the cluster's probes (member list, alarms) and every member's, concurrently; the
 * election wait; the evidence. Members and their names: member-targets.ts; one member's probes and
 * the access check after a failure: probe-member.ts, member-access.ts; options: collect-options.ts.
 */

/** How many probes a collection runs for `memberCount` members (for progress messages). */
export function countProbes(depth: CheckDepth, memberCount: number): number {
  return depth === 'health' ? 1 + memberCount * 2 : 2 + memberCount * 4;
}

/**
 * Runs every etcd probe concurrently, each under its own deadline. Nothing here throws:
 * an unreachable or hung member shows up as failure evidence beside everyone else's data.
 */
export async function collectEtcdEvidence(opts: CollectOptions): Promise<Evidence> {
  if (!opts.signal) return collect(opts);
  // Every probe of the run waits on the run's signal at once (14 for 3 members), and one long-lived
  // signal can stand behind many runs (a watch's shutdown): each run listens on it once, and its probes
  // on a signal of the run's own, so Node never warns of a listener leak on stderr.
  const shared = shareSignal(opts.signal, countProbes(opts.depth, opts.cluster.etcd.endpoints.length));
  try {
    return await collect({ ...opts, signal: shared.signal });
  } finally {
    shared.release();
  }
}

/**
 * The run's probe records and its progress: each probe recorded as it ends, and the first note a
 * probe gives (a widened window), which stays on the progress until the run ends.
 */
function createRunProgress(opts: CollectOptions) {
  const records: ProbeRecord[] = [];
  // A member list read moments ago (the warm path) is reused, not probed: one probe fewer, or the
  // progress would end at 13 of 14.
  let total =
    countProbes(opts.depth, opts.cluster.etcd.endpoints.length) -
    (opts.recentMemberList ? 1 : 0) -
    (opts.depth !== 'health' && isWatchCheck(opts) ? 1 : 0);
  let note: string | undefined;
  return {
    records,
    add(probes: number) {
      total += probes;
    },
    record(name: string, outcome: Outcome<unknown>): ProbeRecord {
      const probe = probeRecord(name, outcome);
      records.push(probe);
      opts.onProgress?.({ done: records.length, total, probe, ...(note ? { note } : {}) });
      return probe;
    },
    /**
     * A record the report lists but the progress does not count: the wait for an election, which
     * happens only when the leader went away, comes after every probe has ended; counting it would
     * change the total the user has watched ("14 of 14", then "15 of 15").
     */
    recordUncounted(name: string, outcome: Outcome<unknown>): void {
      records.push(probeRecord(name, outcome));
    },
    noted(text: string) {
      if (note) return;
      note = text;
      opts.onProgress?.({ done: records.length, total, note });
    },
  };
}

async function collect(opts: CollectOptions): Promise<Evidence> {
  const collectedAt = opts.now();
  const progress = createRunProgress(opts);
  const { records, record, noted } = progress;
  const clusterCtx: ClusterProbeContext = {
    clients: opts.clients,
    httpGet: opts.httpGet,
    now: opts.now,
    ...(isWatchCheck(opts) ? { hedgeMs: WATCH_HEDGE_MS } : {}),
  };
  const runCluster = async <T>(probe: Probe<ClusterProbeContext, T>) => {
    const outcome = await runProbe(probe, clusterCtx, {
      subject: `cluster ${opts.cluster.name}`,
      now: opts.now,
      ...(opts.signal ? { signal: opts.signal } : {}),
    });
    record(probe.kind, outcome);
    return outcome;
  };

  const configured = opts.cluster.etcd.endpoints.map((endpoint, i) =>
    initialTarget(opts.cluster, endpoint, i),
  );
  const memberListP = opts.recentMemberList
    ? Promise.resolve(opts.recentMemberList)
    : runCluster(createMemberListProbe(opts.timeoutMs));
  // A quick health check, and a watch check every interval, read alarms from Status (each member
  // appends the cluster's active alarms to `errors`, KB §1.5) instead of an Alarm RPC to every
  // member; diagnose asks Alarm itself.
  const alarmsP =
    opts.depth === 'health' || isWatchCheck(opts) ? undefined : runCluster(createAlarmsProbe(opts.timeoutMs));
  // Name members (etcd-2) as soon as the list arrives, while their own probes still run.
  void memberListP.then((list) => {
    for (const target of configured) nameFromList(target, list);
  });
  const probes = memberProbes(opts);
  const noting = { ...opts, onNote: noted };
  const configuredP = configured.map((target) => probeMember(target, noting, probes, record, memberListP));

  const memberList = await memberListP;
  const discovered = memberList.ok ? discoverTargets(memberList.data, configured, opts.cluster) : [];
  progress.add(countProbes(opts.depth, discovered.length) - countProbes(opts.depth, 0));
  const discoveredP = discovered.map((target) => probeMember(target, noting, probes, record, memberListP));
  const answered = await Promise.all([...configuredP, ...discoveredP]);
  const { members, election } = await awaitElection(answered, electionOptions(opts, probes, memberList));
  if (election) progress.recordUncounted('election', electionOutcome(election));
  const notStarted = memberList.ok ? notStartedMembers(memberList.data, opts.depth) : [];

  return {
    cluster: opts.cluster.name,
    collectedAt,
    memberList,
    alarms: alarmsP ? await alarmsP : alarmsFromStatus(members),
    members: [...members, ...notStarted],
    probes: records,
    timeoutMs: opts.timeoutMs,
    ...(election ? { election } : {}),
    ...(opts.depth !== 'health' && opts.tls ? { ownCertificates: ownCertificates(opts.tls) } : {}),
  };
}

/** The election wait asks Status and the read again with the run's own probes (probes/election.ts). */
function electionOptions(
  opts: CollectOptions,
  probes: MemberProbes,
  memberList: Outcome<MemberInfo[]>,
): ElectionOptions {
  const ask =
    <T>(probe: Probe<MemberProbeContext, T>) =>
    (member: MemberEvidence) =>
      runProbe(probe, memberContext(member.target, opts), {
        subject: () => subjectOf(member.target),
        now: opts.now,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
  return {
    listedVoters: memberList.ok ? memberList.data.filter((m) => !m.isLearner).length : 0,
    timeoutMs: opts.timeoutMs,
    now: opts.now,
    sleep: opts.sleep,
    ...(opts.signal ? { signal: opts.signal } : {}),
    askStatus: ask(probes.status),
    askHealth: ask(probes.health),
  };
}

/** The `election` entry of the probe list: ok when a leader was named within the wait. */
function electionOutcome(election: ElectionEvidence): Outcome<null> {
  const durationMs = election.waitedMs;
  if (election.leaderId) return { ok: true, data: null, durationMs };
  const message = `${formatList(election.leaderless)} still had no leader after ${formatSeconds(durationMs)}`;
  return { ok: false, failure: { kind: 'timeout', message }, durationMs };
}
