import type { MemberEvidence } from '../../probes/evidence.js';
import { formatList, formatMs, formatSecondsAsMs } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { nodesOfMembers } from '../support/kubernetes.js';
import {
  LATE_HEARTBEAT_RATE,
  PEER_SEND_FAILURE_RATE,
  SLOW_APPLY_RATE,
  tooManyEvents,
} from '../support/window-rate.js';
import { nodePressureEvidence } from '../support/node-pressure.js';
import { isSlow, WAL_FSYNC_P99_LIMIT_S } from './slow-disk.js';

/** WEB metrics/_index.md: the committed − applied gap "should usually be small (within a few thousands even under high load)". */
export const APPLY_BACKLOG_LIMIT = 5000;
/** Same heuristic as slow-reads (KB F5, inference): a read slower than 0.5 s. */
export const STALLED_READ_MS = 500;
/**
 * A trivial GET /version needs no disk and no consensus: it takes a few ms on loopback or a LAN.
 * A member whose *mean* answer over ~10 tries (spread over a second) takes 30 ms or more, 3× its
 * peers' slowest mean, is not getting CPU (inference). Measured here on a busy 2-core host:
 * healthy members averaged 1–9 ms (single answers up to 78 ms); a member stopped 300 ms of every
 * 400 ms averaged about 70 ms, with a fast disk. A member so stalled that ten tries do not fit in
 * the probe timeout, while it still answers Status, counts as stalled too.
 */
export const STALL_MEAN_RTT_MS = 30;
export const STALL_RATIO = 3;
/** Fewer GET /version samples than this say nothing of a stall (a mean of one is one answer). */
export const MIN_STALL_SAMPLES = 2;
/**
 * strace-injected fdatasync delays of 20-300 ms gave fsync means of 0.5-0.9 × p99 (every fsync is
 * slow); a member stopped 300 ms of every 400 ms gave 0.02 × p99. Between the two: 0.25.
 */
export const UNIFORM_SLOW_RATIO = 0.25;

/**
 * No cause from one sample, which a GC pause makes: without a measured stall, slow applies or late heartbeats
 * count only from this many in the window. One apply over 100 ms is a GC pause or a compaction;
 * the slow-disk demo showed one on two healthy members (inference). With a measured stall, any
 * count corroborates it.
 */
export const UNSTALLED_MIN_EVENTS = 3;

interface Starved {
  member: MemberEvidence;
  signals: string[];
}

/**
 * F11 CPU starvation (KB §1.1): the same symptoms as a slow disk (`apply request took too long`,
 * late heartbeats, slow reads) while that member's fsync is fast, and no peer link is failing.
 * Remedies differ from a disk fix: isolation, renice, a dedicated machine (WEB faq.md).
 */
export const cpuStarvationRule: Rule = {
  name: 'cpu-starvation',
  live: 'round trips timed now',
  cause: 'cpu-starvation',
  needs: ['metrics'],
  timesLatency: true,
  rank: 24,
  explains: ['leader-churn', 'slow-reads', 'slow-disk', 'control-plane-restarts', 'apiserver-latency'],
  evaluate(evidence) {
    const starved = evidence.members.flatMap((m) => starvedMember(m, evidence.members));
    const explain = evidence.members.map((m) => {
      const found = starved.find((s) => s.member === m);
      const rtt = m.clock.ok
        ? `GET /version mean ${formatMs(m.clock.data.meanRttMs)} of ${m.clock.data.samples}`
        : 'no clock samples';
      return `${m.target.name}: ${found ? found.signals.join('; ') : `no stall (${rtt}, stall from ${formatMs(STALL_MEAN_RTT_MS)} and ${STALL_RATIO}x peers), ${countsWords(m)} with a fast disk (without a stall, ${UNSTALLED_MIN_EVENTS} of either are needed)`}`;
    });
    if (starved.length === 0) return { explain };
    const names = starved.map((s) => s.member.target.name);
    const finding: Finding = {
      cause: 'cpu-starvation',
      severity: 'warning',
      members: names,
      nodes: nodesOfMembers(evidence, names),
      summary: `${formatList(names)} ${names.length === 1 ? 'is' : 'are'} starved of CPU: requests stall while the disk is fast`,
      evidence: [
        ...starved.flatMap((s) => s.signals.map((signal) => `${s.member.target.name}: ${signal}`)),
        ...nodePressureEvidence(evidence, ['MemoryPressure', 'PIDPressure'], names),
      ],
      steps: [
        {
          text: `Look at CPU on the node of ${formatList(names)}: steal time, throttling (cgroup cpu.stat), noisy neighbours (top, vmstat 1)`,
        },
        {
          text: 'Give etcd its own CPU: a dedicated machine, cgroup isolation or a higher priority (renice), and the `performance` CPU governor (etcd FAQ, tuning guide "CPU")',
        },
        {
          text: 'Find expensive requests: large LISTs from the apiserver audit log (cluster-etcd-operator performance-metrics.md)',
        },
      ],
      unknowns: [],
    };
    return { finding, explain };
  },
};

/**
 * A member stalled on CPU answers even trivial requests late, and its own fsync timings grow
 * (the thread is not scheduled after the syscall returns), so a stall explains slow fsync figures
 * on the same member. Without a stall, the classic F11 signals count only with a fast disk.
 */
function starvedMember(m: MemberEvidence, all: MemberEvidence[]): Starved[] {
  if (!m.metrics.ok) return [];
  const data = m.metrics.data;
  const fsyncP99 = data.walFsync.p99Seconds;
  const fastDisk =
    !isSlow(data.walFsync, WAL_FSYNC_P99_LIMIT_S) &&
    (fsyncP99 === undefined || fsyncP99 <= WAL_FSYNC_P99_LIMIT_S);
  // A disk that is slow on every fsync (mean near p99) is the disk, whatever else stalls; a CPU stall
  // only drags out the few fsyncs it interrupts (measured: mean 6 ms against p99 320 ms).
  const uniformlySlow =
    !fastDisk &&
    (fsyncP99 === undefined || (data.walFsync.meanSeconds ?? 0) >= UNIFORM_SLOW_RATIO * fsyncP99);
  if (uniformlySlow) return [];
  const stall = stalledAnswers(m, all);
  const w = data.windowSeconds;
  const peersFailing = data.peers.some((p) =>
    tooManyEvents(p.sentFailuresInWindow, w, PEER_SEND_FAILURE_RATE),
  );
  if (!stall && (!fastDisk || peersFailing)) return [];
  // An election in the window holds applies and heartbeats back on the members while the new
  // leader takes over (inference; seen here: one apply over 100 ms right after a killed leader).
  // Without a measured stall, those counts are the election's, which leader-churn reports.
  if (!stall && data.deltas.leaderChanges > 0) return [];
  const signals = stall ? [stall] : [];
  // Counted events are judged as rates: one in the 3 s probe, their share of a longer watch window
  // (support/window-rate.ts; KB §1.1 F11: `apply request took too long`, heartbeat warnings).
  const enough = (n: number) => stall !== undefined || n >= UNSTALLED_MIN_EVENTS;
  if (tooManyEvents(data.deltas.slowApply, w, SLOW_APPLY_RATE) && enough(data.deltas.slowApply)) {
    signals.push(
      `${data.deltas.slowApply} applies over 100 ms in ${data.windowSeconds} s (etcd warns above 100 ms)`,
    );
  }
  if (
    tooManyEvents(data.deltas.heartbeatSendFailures, w, LATE_HEARTBEAT_RATE) &&
    enough(data.deltas.heartbeatSendFailures)
  )
    signals.push(`${data.deltas.heartbeatSendFailures} late heartbeats in ${data.windowSeconds} s`);
  if (data.applyBacklog > APPLY_BACKLOG_LIMIT)
    signals.push(`${data.applyBacklog} proposals committed but not applied (limit a few thousand)`);
  // A slow read alone is slow-reads (it may be the network or the leader); it corroborates a stall.
  if (signals.length > 0 && m.health.ok && m.health.data.tookMs >= STALLED_READ_MS) {
    signals.push(`linearizable read took ${formatMs(m.health.data.tookMs)}`);
  }
  if (signals.length === 0) return [];
  signals.push(
    fastDisk
      ? `wal fsync p99 only ${formatSecondsAsMs(fsyncP99)} (the disk is fine)`
      : `wal fsync p99 ${formatSecondsAsMs(fsyncP99)} is high too, but a stalled process also stalls its own fsync timing`,
  );
  return [{ member: m, signals }];
}

/** `1 slow apply and 0 late heartbeats in 3 s` for explain. */
function countsWords(m: MemberEvidence): string {
  if (!m.metrics.ok) return 'no /metrics';
  const { deltas, windowSeconds } = m.metrics.data;
  return `${deltas.slowApply} slow applies and ${deltas.heartbeatSendFailures} late heartbeats in ${windowSeconds} s`;
}

/** The member answers a trivial HTTP GET far slower than its peers do. */
function stalledAnswers(m: MemberEvidence, all: MemberEvidence[]): string | undefined {
  if (!m.clock.ok) {
    const answersStatus = m.status.ok || m.health.ok;
    return answersStatus && m.clock.failure.kind === 'timeout'
      ? `${m.clock.failure.message}, though it answers Status`
      : undefined;
  }
  // One GET is no evidence of a stall: a single answer may wait on our own scheduler or GC (a watch
  // check takes one sample a member while the clocks agree, src/watch/clock-sampling.ts, and takes
  // the full samples in its next check once an answer was slow).
  if (m.clock.data.samples < MIN_STALL_SAMPLES) return undefined;
  const peers = all.flatMap((o) => (o !== m && o.clock.ok ? [o.clock.data.meanRttMs] : []));
  if (peers.length === 0) return undefined;
  const peerWorst = Math.max(...peers);
  const mine = m.clock.data.meanRttMs;
  if (mine < STALL_MEAN_RTT_MS || mine < STALL_RATIO * peerWorst) return undefined;
  return `answers GET /version in ${formatMs(mine)} (mean of ${m.clock.data.samples}, slowest ${formatMs(m.clock.data.maxRttMs)}) while its peers answer within ${formatMs(peerWorst)}`;
}
