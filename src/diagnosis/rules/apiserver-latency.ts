import type { ApiserverData, KubernetesEvidence } from '../../probes/kubernetes/evidence.js';
import { formatMs, formatSecondsAsMs } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import {
  countIn,
  dataOf,
  failureText,
  kubernetesOf,
  plural,
  scansOf,
  unique,
} from '../support/kubernetes.js';

/** KMIX: a resource-scoped read slower than 1 s counts as "slow"; KMIXold KubeAPILatencyHigh warned at p99 > 1 s. */
export const GET_LATENCY_WARNING_MS = 1000;
/** KMIXold KubeAPILatencyHigh: critical at p99 > 4 s. */
export const GET_LATENCY_CRITICAL_MS = 4000;
/** Same 1 s bound for the apiserver's own etcd_request_duration_seconds p99 (KB §4.2). */
export const ETCD_REQUEST_P99_WARNING_S = 1;

interface Signal {
  severity: Severity;
  text: string;
}

/**
 * F9 (KB §1.1, §4.2): the apiserver answers slowly, measured as the wall time of a GET that it
 * serves from etcd next to `/version` that it serves from memory, plus its readyz `etcd` check and
 * its `etcd_request_duration_seconds`. Usually downstream of etcd (POPRB KubeAPIErrorBudgetBurn).
 */
export const apiserverLatencyRule: Rule = {
  name: 'apiserver-latency',
  live: 'reads through the apiserver, timed now',
  cause: 'apiserver-latency',
  needs: ['kubernetes'],
  explains: ['control-plane-restarts'],
  rank: 50,
  evaluate(evidence) {
    const k = kubernetesOf(evidence);
    if (!k) return { explain: ['no kubernetes evidence'] };
    const signals = [...timeoutSignal(k), ...apiserverSignals(dataOf(k.apiserver))];
    const explain = [
      `signals: ${signals.length === 0 ? 'none' : signals.map((s) => s.text).join('; ')} (limits: GET ${formatMs(GET_LATENCY_WARNING_MS)} warning, ${formatMs(GET_LATENCY_CRITICAL_MS)} critical)`,
    ];
    if (signals.length === 0) return { explain };
    const severity: Severity = signals.some((s) => s.severity === 'critical') ? 'critical' : 'warning';
    const timedOut = logTimeouts(k);
    const finding: Finding = {
      cause: 'apiserver-latency',
      severity,
      members: [],
      nodes: [],
      summary: `The apiserver is slow: ${signals[0]?.text}${timedOut > 0 ? `; it logged ${timedOut} × etcdserver: request timed out` : ''}`,
      evidence: [
        ...signals.map((s) => s.text),
        ...(timedOut > 0 ? [`kube-apiserver logs: ${timedOut} × etcdserver: request timed out`] : []),
      ],
      steps: [
        {
          text: 'Look at etcd first: the apiserver waits on it for every read and write (runbook KubeAPIErrorBudgetBurn: "Maybe it\'s some dependency of the APIServer? etcd?")',
        },
        {
          text: "Compare etcd_request_duration_seconds on each apiserver (GET /metrics) with etcd's wal fsync and peer round-trip figures",
        },
        {
          text: 'If etcd is fast: look for expensive LIST callers in the apiserver audit log (CEOP performance-metrics.md)',
        },
      ],
      unknowns:
        k.apiserver.ok && !k.apiserver.data.etcdRequests.ok
          ? [k.apiserver.data.etcdRequests.failure.message]
          : [],
    };
    return { finding, explain };
  },
};

/** The apiserver probe timed out while other probes got answers: it is up, and slower than the deadline. */
function timeoutSignal(k: KubernetesEvidence): Signal[] {
  if (k.apiserver.ok || k.apiserver.failure.kind !== 'timeout') return [];
  const others = [k.pods, k.nodes, k.leases, k.events].some((o) => o.ok);
  return others
    ? [
        {
          severity: 'critical',
          text: failureText(k.apiserver, 'apiserver') ?? 'the apiserver did not answer',
        },
      ]
    : [];
}

function apiserverSignals(data: ApiserverData | undefined): Signal[] {
  if (!data) return [];
  const out: Signal[] = [];
  if (data.latency.ok) {
    const { getNamespaceMs, versionMs } = data.latency.data;
    if (getNamespaceMs > GET_LATENCY_WARNING_MS) {
      out.push({
        severity: getNamespaceMs > GET_LATENCY_CRITICAL_MS ? 'critical' : 'warning',
        text: `GET namespace kube-system took ${formatMs(getNamespaceMs)} while /version took ${formatMs(versionMs)}${versionMs < getNamespaceMs / 4 ? ': the time is spent in etcd' : ''}`,
      });
    }
  }
  if (data.readyz.ok) {
    const failed = data.readyz.data.checks.filter((c) => !c.ok && c.name.startsWith('etcd'));
    if (failed.length > 0) {
      out.push({
        severity: 'critical',
        text: `readyz reports ${unique(failed.map((c) => `[-]${c.name} failed`)).join(', ')} (HTTP ${data.readyz.data.httpStatus})`,
      });
    }
  }
  if (data.etcdRequests.ok) {
    const r = data.etcdRequests.data;
    if ((r.p99Seconds ?? 0) > ETCD_REQUEST_P99_WARNING_S) {
      const slowest = r.slowest
        ? `; slowest: ${r.slowest.operation} ${r.slowest.resource} mean ${formatSecondsAsMs(r.slowest.meanSeconds)}`
        : '';
      out.push({
        severity: 'warning',
        text: `the apiserver's etcd requests: p99 ${formatSecondsAsMs(r.p99Seconds)}, mean ${formatSecondsAsMs(r.meanSeconds)} over ${plural(r.count, 'request')} since it started${slowest}`,
      });
    }
  }
  return out;
}

function logTimeouts(k: KubernetesEvidence): number {
  return countIn(scansOf(k, 'kube-apiserver'), (s) => s.requestTimedOut).count;
}
