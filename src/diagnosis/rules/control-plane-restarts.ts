import type { Evidence } from '../../probes/evidence.js';
import type { ControlPlanePod, KubernetesEvidence, LeaseInfo } from '../../probes/kubernetes/evidence.js';
import { formatAge, formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import {
  countIn,
  dataOf,
  failureText,
  kubernetesOf,
  plural,
  scansOf,
  scansOfPod,
  unique,
} from '../support/kubernetes.js';

/** A static pod restarts on reboots and upgrades only; five restarts is a pattern (inference, KB F6). */
export const RESTARTS_MIN = 5;
/** At least one restart a day on average since the pod started (inference). */
export const RESTARTS_PER_DAY_MIN = 1;
/** One restart an hour: incident (f) saw 543 restarts in 4 days (130 a day). */
export const RESTARTS_PER_DAY_CRITICAL = 24;
/** K8S component-base defaults.go: renewDeadline 10 s, leaseDuration 15 s. */
export const RENEW_DEADLINE_S = 10;
/** KMIX KubePodCrashLooping: any container waiting in CrashLoopBackOff. */
const CRASH_LOOP = 'CrashLoopBackOff';

const VICTIMS = ['kube-apiserver', 'kube-controller-manager', 'kube-scheduler'] as const;
const DAY_MS = 86_400_000;

interface Restarting {
  pod: ControlPlanePod;
  restarts: number;
  perDay: number | undefined;
  crashLooping: boolean;
  lastExit: string;
  leaderElectionLost: boolean;
}

/**
 * F6 (KB §1.1): kube-controller-manager, kube-scheduler or kube-apiserver restarting in a loop.
 * The controller-manager and scheduler exit by design when they cannot renew their lease within
 * 10 s (`leaderelection lost`), which a slow etcd causes: the etcd root causes explain this.
 */
export const controlPlaneRestartsRule: Rule = {
  name: 'control-plane-restarts',
  cause: 'control-plane-restarts',
  needs: ['kubernetes'],
  rank: 60,
  evaluate(evidence, ctx) {
    const k = kubernetesOf(evidence);
    const pods = dataOf(k?.pods);
    if (!k || !pods) return { explain: [`no control-plane pods: ${failureText(k?.pods, 'pod list')}`] };
    const readings = pods
      .filter((p) => (VICTIMS as readonly string[]).includes(p.component))
      .map((p) => reading(k, p, ctx.now));
    const restarting = readings.filter(isRestarting).sort((a, b) => b.restarts - a.restarts);
    const explain = readings.map(
      (r) =>
        `${r.pod.name}: ${r.restarts} restarts${r.perDay !== undefined ? ` (${r.perDay.toFixed(1)}/day)` : ''}${r.crashLooping ? `, ${CRASH_LOOP}` : ''} vs ${RESTARTS_MIN} and ${RESTARTS_PER_DAY_MIN}/day -> ${isRestarting(r) ? 'restarting' : 'ok'}`,
    );
    if (restarting.length === 0) return { explain };
    return { finding: buildFinding(evidence, k, restarting), explain };
  },
};

function reading(k: KubernetesEvidence, pod: ControlPlanePod, now: number): Restarting {
  const main = pod.main;
  const restarts = main?.restartCount ?? 0;
  const ageMs = pod.startedAt !== undefined ? now - pod.startedAt : undefined;
  const perDay =
    ageMs !== undefined && ageMs > 0 ? (restarts * DAY_MS) / Math.max(ageMs, DAY_MS / 24) : undefined;
  const leaderElectionLost =
    countIn(scansOfPod(k, pod.namespace, pod.name), (s) => s.leaderElectionLost).count > 0;
  return {
    pod,
    restarts,
    perDay,
    crashLooping: main?.waitingReason === CRASH_LOOP,
    lastExit: lastExit(pod, leaderElectionLost, now),
    leaderElectionLost,
  };
}

function isRestarting(r: Restarting): boolean {
  if (r.crashLooping) return true;
  return r.restarts >= RESTARTS_MIN && (r.perDay === undefined || r.perDay >= RESTARTS_PER_DAY_MIN);
}

/** `leaderelection lost (Error, exit code 1, 3 min ago)`: the log line says why, the status says how. */
function lastExit(pod: ControlPlanePod, leaderElectionLost: boolean, now: number): string {
  const t = pod.main?.lastTermination;
  const how = t
    ? `${t.reason ?? 'terminated'}, exit code ${t.exitCode}${t.finishedAt ? `, ${formatAge(now - t.finishedAt)} ago` : ''}`
    : undefined;
  const why = leaderElectionLost ? 'leaderelection lost' : t?.message;
  if (why && how) return `${why} (${how})`;
  return why ?? how ?? 'unknown';
}

function buildFinding(evidence: Evidence, k: KubernetesEvidence, restarting: Restarting[]): Finding {
  const components = VICTIMS.filter((c) => restarting.some((r) => r.pod.component === c));
  const nodes = unique(restarting.flatMap((r) => r.pod.node ?? [])).sort();
  const worst = restarting[0];
  const lost = VICTIMS.filter((c) => restarting.some((r) => r.pod.component === c && r.leaderElectionLost));
  const critical = restarting.some((r) => r.crashLooping || (r.perDay ?? 0) >= RESTARTS_PER_DAY_CRITICAL);
  const severity: Severity = critical ? 'critical' : 'warning';
  const why =
    lost.length > 0
      ? `; ${formatList(lost)} ${lost.length === 1 ? 'exits' : 'exit'} with leaderelection lost: ${lost.length === 1 ? 'it' : 'they'} could not renew ${lost.length === 1 ? 'its' : 'their'} lease within ${RENEW_DEADLINE_S} s`
      : worst
        ? `; last exit: ${worst.lastExit}`
        : '';
  const summary = `${formatList(components)} ${components.length === 1 ? 'keeps' : 'keep'} restarting (${worst?.pod.name} restarted ${worst?.restarts} times${nodes.length > 0 ? `, on ${formatList(nodes)}` : ''})${why}`;
  const logs = dataOf(k.logs);
  return {
    cause: 'control-plane-restarts',
    severity,
    members: [],
    nodes,
    summary,
    evidence: [
      ...restarting.slice(0, 6).map(describe),
      ...(restarting.length > 6 ? [`and ${plural(restarting.length - 6, 'more pod')} restarting`] : []),
      ...leaseLines(dataOf(k.leases) ?? []),
      ...etcdErrorLines(k),
    ],
    steps: [
      {
        text: `Do not restart ${formatList(components)}: exiting on a lost lease is their designed response (K8S controllermanager.go OnStoppedLeading); restarts add load (KB R10)`,
      },
      {
        text: 'Fix what slows etcd and the apiserver first: see the root cause above, or run /etcd diagnose for fsync and leader figures',
      },
      {
        text: 'Mitigation while etcd is slow: lengthen --leader-elect-lease-duration, --leader-elect-renew-deadline and --leader-elect-retry-period (OpenShift runs the scheduler with 137 s / 107 s / 26 s)',
      },
    ],
    unknowns: [
      ...(logs ? logs.unread.map((u) => `log not read: ${u}`) : [`no logs: ${failureText(k.logs, 'logs')}`]),
      ...(evidence.kubernetes?.ok && !k.leases.ok ? [`no leases: ${k.leases.failure.message}`] : []),
    ],
  };
}

function describe(r: Restarting): string {
  const rate =
    r.perDay !== undefined && r.pod.startedAt !== undefined ? ` (${Math.round(r.perDay)}/day)` : '';
  const crash = r.crashLooping ? `, now in ${CRASH_LOOP}` : '';
  return `${r.pod.name} restarted ${r.restarts} times${rate}${crash}; last exit: ${r.lastExit}`;
}

/** Leases that changed hands often, or that nobody renewed within their duration. */
function leaseLines(leases: LeaseInfo[]): string[] {
  return leases
    .filter((l) => l.found && (l.leaseTransitions ?? 0) > 0)
    .map(
      (l) =>
        `lease ${l.namespace}/${l.name} changed hands ${l.leaseTransitions} times (holder ${l.holderNode ?? l.holder ?? 'none'}, lease duration ${l.leaseDurationSeconds ?? '?'} s)`,
    );
}

/** etcd errors in the apiserver, controller-manager and scheduler logs tie the restarts to etcd. */
function etcdErrorLines(k: KubernetesEvidence): string[] {
  return VICTIMS.flatMap((component) => {
    const scans = scansOf(k, component);
    const timedOut = countIn(scans, (s) => s.requestTimedOut).count;
    const renew = countIn(scans, (s) => s.leaseRenewFailed).count;
    const parts = [
      timedOut > 0 ? `${timedOut} × etcdserver: request timed out` : '',
      renew > 0 ? `${renew} × failed to renew lease` : '',
    ].filter(Boolean);
    return parts.length > 0
      ? [`${component} logs: ${parts.join(', ')} (${plural(unique(scans.map((s) => s.pod)).length, 'pod')})`]
      : [];
  });
}
