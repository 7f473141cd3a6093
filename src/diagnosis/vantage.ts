import type { AccessProblem, Evidence, MemberEvidence, ObserverLoad } from '../probes/evidence.js';
import type { ControlPlanePod } from '../probes/kubernetes/evidence.js';
import { sameUrl } from '../etcd/member-ids.js';
import { BUSY_SAME_HOST_RUNS } from '../probes/observer-load.js';
import { formatMs } from '../format.js';
import { quorumOf } from '../etcd/quorum.js';
import { clusterSize, isLearner } from './support/members.js';
import { dataOf, kubernetesOf } from './support/kubernetes.js';

/**
 * What limits etcd-doctor's own view of a cluster, worked out before any rule runs. A member we
 * cannot check is *unseen*, never down: because of our own TLS, URLs or DNS (`no-access`), or
 * because the path from here fails while a second vantage point says etcd is up
 * (`unreachable-from-here`). When no member can be checked, the view is *blind*: the status is
 * `unknown` and no rule about the cluster's health runs.
 */
export interface Vantage {
  unseen: UnseenMember[];
  blind: boolean;
  /** What the cluster's apiserver says about etcd: the second vantage point. */
  apiserver: ApiserverOpinion;
  /** Some voter completed a linearizable read, which needs a quorum: etcd has quorum. */
  quorumProven: boolean;
  /** No member answered us and nothing else can say whether etcd is up. */
  cannotTell: boolean;
  /**
   * The members timed out while etcd-doctor's own event loop stalled for half the timeout or more:
   * the answers may have come and gone unread. Said instead of blaming the path.
   */
  ownStall: string | undefined;
  /** etcd-doctor's own load while it probed: when it distorts latencies, latency rules do not judge. */
  observer: ObserverVantage;
}

export interface ObserverVantage {
  load: ObserverLoad | undefined;
  /** Why latency readings cannot be trusted, or undefined when they can. */
  distortion: string | undefined;
}

/**
 * Our own event loop stalled this long adds as much to any latency we time. cpu-starvation
 * compares a member with its peers (3×), whose clocks are sampled at the same moments, so a stall
 * that hits every member alike cannot single one out; it takes sustained stalls well above its
 * 30 ms floor: a p99 of 100 ms (a fifth of slow-reads' 500 ms) over at least 50 samples (half a
 * second). Measured: a test process on a 2-core host at load average 9 reached p99 53 ms with a
 * real CPU-starved member to find; a loop busy 250 of every 300 ms reads p99 250 ms; a digest of
 * 40 clusters at once 300-1,600 ms. In a short window (a health check) one stall is its p99, so
 * there only a stall of half the slow-read limit counts (a cold start's module loading: 66 ms).
 */
export const OBSERVER_DELAY_P99_LIMIT_MS = 100;
export const OBSERVER_MIN_SAMPLES = 50;
export const OBSERVER_DELAY_MAX_LIMIT_MS = 250;

export function observerVantage(evidence: Evidence): ObserverVantage {
  const load = evidence.observer;
  if (!load) return { load, distortion: undefined };
  const sustained =
    load.samples >= OBSERVER_MIN_SAMPLES && load.loopDelayP99Ms >= OBSERVER_DELAY_P99_LIMIT_MS;
  const stalled = sustained || load.loopDelayMaxMs >= OBSERVER_DELAY_MAX_LIMIT_MS;
  const crowded = (load.sameHostRuns ?? 0) >= BUSY_SAME_HOST_RUNS;
  const reasons = [
    ...(stalled
      ? [
          `etcd-doctor's own event loop was delayed by up to ${formatMs(load.loopDelayMaxMs)} (p99 ${formatMs(load.loopDelayP99Ms)}, limit ${formatMs(OBSERVER_DELAY_P99_LIMIT_MS)}; ${load.concurrentRuns} checks running at once) while it probed, which inflates every latency it times`,
        ]
      : []),
    ...(crowded
      ? [
          `${load.sameHostRuns} other etcd-doctor checks were probing the same hosts at the same time (limit ${BUSY_SAME_HOST_RUNS}), so the latencies it times measure its own load on them`,
        ]
      : []),
  ];
  return { load, distortion: reasons.length ? reasons.join('; ') : undefined };
}

export type UnseenReason = 'no-access' | 'unreachable-from-here';

export interface UnseenMember {
  member: MemberEvidence;
  reason: UnseenReason;
  /** What went wrong from here, when the access check found it. */
  access: AccessProblem | undefined;
  /** Why this member is unknown rather than down, in words. */
  why: string;
}

export interface ApiserverOpinion {
  /** `kubernetes` is configured and its evidence arrived. */
  available: boolean;
  /**
   * true: `/readyz` has `[+]etcd ok` or a read through the apiserver worked; false: `[-]etcd`
   * and the read failed too; undefined: it cannot tell (not configured, or its answers disagree).
   */
  reachesEtcd: boolean | undefined;
  /** What it said, as evidence lines. */
  evidence: string[];
}

export function assessVantage(evidence: Evidence): Vantage {
  const apiserver = apiserverOpinion(evidence);
  const started = evidence.members.filter((m) => !(!m.status.ok && m.status.failure.kind === 'skipped'));
  const checked = started.filter((m) => m.status.ok || m.health.ok);
  const failedMembers = started.filter((m) => !(m.status.ok || m.health.ok));
  const quorumProven = checked.some(
    (m) => m.health.ok && !m.health.data.serializable && !isLearner(evidence, m),
  );
  const noAccess: UnseenMember[] = failedMembers
    .filter((m) => m.access?.ours)
    .map((m) => ({ member: m, reason: 'no-access', access: m.access, why: m.access?.reason ?? '' }));
  const unreachable = failedMembers.filter((m) => !m.access?.ours);
  const cannotTell = checked.length === 0 && unreachable.length > 0 && apiserver.reachesEtcd === undefined;
  const fromHere = unreachable.flatMap((m): UnseenMember[] => {
    const why = unseenBecause(evidence, m, { apiserver, checked, unreachable, quorumProven, cannotTell });
    return why ? [{ member: m, reason: 'unreachable-from-here', access: m.access, why }] : [];
  });
  const unseen = [...noAccess, ...fromHere];
  const blind = started.length > 0 && checked.length === 0 && unseen.length === failedMembers.length;
  const ownStall = stallDuringTimeouts(evidence, unreachable);
  return {
    unseen,
    blind,
    apiserver,
    quorumProven,
    cannotTell,
    observer: observerVantage(evidence),
    ownStall,
  };
}

function stallDuringTimeouts(evidence: Evidence, unreachable: MemberEvidence[]): string | undefined {
  const load = evidence.observer;
  const timedOut = unreachable.filter((m) => !m.status.ok && m.status.failure.kind === 'timeout');
  if (!load || timedOut.length === 0 || load.loopDelayMaxMs < evidence.timeoutMs / 2) return undefined;
  return `etcd-doctor's own event loop stalled for up to ${formatMs(load.loopDelayMaxMs)} of its ${formatMs(evidence.timeoutMs)} timeout (${load.concurrentRuns} checks running at once), so it may have missed their answers`;
}

interface Context {
  apiserver: ApiserverOpinion;
  checked: MemberEvidence[];
  unreachable: MemberEvidence[];
  quorumProven: boolean;
  cannotTell: boolean;
}

/** Why a member that does not answer us is unknown rather than down; undefined when it may well be down. */
function unseenBecause(evidence: Evidence, m: MemberEvidence, c: Context): string | undefined {
  const pod = etcdPodOf(evidence, m);
  if (c.apiserver.reachesEtcd === true) {
    if (c.checked.length === 0) return 'the apiserver still reaches etcd';
    if (pod?.ready) return `its pod ${pod.name} is Ready and the apiserver still reaches etcd`;
    const logged = pod ? recentLogLine(evidence, pod) : undefined;
    if (logged)
      return `its pod ${pod?.name} still logs (until ${logged}) and the apiserver still reaches etcd`;
    return undefined;
  }
  if (c.cannotTell) return 'nothing else can tell whether etcd is up';
  // All of these down would leave no quorum, yet a linearizable read just needed one.
  const voters = clusterSize(evidence);
  const unreachableVoters = c.unreachable.filter((u) => !isLearner(evidence, u)).length;
  if (c.quorumProven && voters - unreachableVoters < quorumOf(voters) && !isLearner(evidence, m)) {
    const readers = c.checked.filter((r) => r.health.ok && !r.health.data.serializable);
    return `${readers.map((r) => r.target.name).join(', ')} served a linearizable read, which needs a quorum, so not all of them are down`;
  }
  return undefined;
}

/** The apiserver as a second vantage point (KB §4.2): its readyz etcd checks and a read served from etcd. */
export function apiserverOpinion(evidence: Evidence): ApiserverOpinion {
  const k = kubernetesOf(evidence);
  const api = dataOf(k?.apiserver);
  if (!k || !api) return { available: false, reachesEtcd: undefined, evidence: [] };
  const checks =
    dataOf(api.readyz)?.checks.filter((c) => c.name === 'etcd' || c.name === 'etcd-readiness') ?? [];
  const etcdCheck = checks.find((c) => c.name === 'etcd');
  const read = dataOf(api.latency);
  const lines = [
    ...checks.map(
      (c) => `the apiserver's /readyz?verbose says [${c.ok ? '+' : '-'}]${c.name} ${c.ok ? 'ok' : 'failed'}`,
    ),
    read
      ? `a read through the apiserver (GET namespace kube-system, served from etcd) took ${formatMs(read.getNamespaceMs)}`
      : `a read through the apiserver failed: ${api.latency.ok ? '' : api.latency.failure.message}`,
    ...etcdPodLines(k.pods.ok ? k.pods.data : []),
    ...etcdLogLines(evidence),
  ];
  const reachesEtcd = etcdCheck?.ok === true || read ? true : etcdCheck?.ok === false ? false : undefined;
  return { available: true, reachesEtcd, evidence: lines };
}

/** An etcd that logged within this long of the check is running (it logs every few seconds when busy). */
export const RECENT_LOG_MS = 120_000;

function recentLogLine(evidence: Evidence, pod: ControlPlanePod): string | undefined {
  const scan = dataOf(kubernetesOf(evidence)?.logs)?.scans.find(
    (s) => s.namespace === pod.namespace && s.pod === pod.name && !s.previous,
  );
  const at = scan?.lastLineAt;
  return at && evidence.collectedAt - Date.parse(at) <= RECENT_LOG_MS ? at : undefined;
}

/** `etcd-master-1 logged until 2024-05-14T09:29:58.000Z`: an etcd that still writes its log runs. */
function etcdLogLines(evidence: Evidence): string[] {
  const scans = dataOf(kubernetesOf(evidence)?.logs)?.scans ?? [];
  return scans
    .filter((s) => s.component === 'etcd' && !s.previous && s.lastLineAt)
    .map((s) => `${s.pod} logged until ${s.lastLineAt} (its log, through the apiserver)`);
}

function etcdPodLines(pods: ControlPlanePod[]): string[] {
  const etcd = pods.filter((p) => p.component === 'etcd');
  if (etcd.length === 0) return [];
  const ready = etcd.filter((p) => p.ready).map((p) => p.name);
  const notReady = etcd.filter((p) => !p.ready).map((p) => p.name);
  return [
    `etcd pods Ready: ${ready.length ? ready.join(', ') : 'none'}${notReady.length ? `; not Ready: ${notReady.join(', ')}` : ''}`,
  ];
}

/** The etcd pod of a member: by its `--name`, else by a client URL it advertises or listens on. */
export function etcdPodOf(evidence: Evidence, m: MemberEvidence): ControlPlanePod | undefined {
  const k = kubernetesOf(evidence);
  const spec = dataOf(k?.etcdPods)?.find(
    (s) =>
      s.memberName === m.target.name ||
      [...s.advertiseClientUrls, ...s.listenClientUrls].some((u) => sameUrl(u, m.target.endpoint)),
  );
  if (!spec) return undefined;
  return dataOf(k?.pods)?.find((p) => p.namespace === spec.namespace && p.name === spec.pod);
}

/** Members the view keeps out of health verdicts (quorum, member-down): by name. */
export function unseenNames(vantage: Vantage): Set<string> {
  return new Set(vantage.unseen.map((u) => u.member.target.name));
}
