import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import type { LoadReading } from '../../probes/etcd-metrics.js';
import type { LoadRates } from '../../probes/metrics-window.js';
import type { EtcdPodSpec } from '../../probes/kubernetes/evidence.js';
import { formatBytes, formatMs } from '../../format.js';
import { dataOf, kubernetesOf, memberOfNode } from './kubernetes.js';

/** A member's load reading from its /metrics window (issue 39): both scrapes and the rates between. */
export interface MemberLoad {
  member: MemberEvidence;
  name: string;
  windowSeconds: number;
  load: LoadReading;
  before: LoadReading | undefined;
  rates: LoadRates | undefined;
}

/** Every member whose /metrics answered with a load reading. */
export function memberLoads(evidence: Evidence): MemberLoad[] {
  return evidence.members.flatMap((m) => {
    if (!m.metrics.ok || !m.metrics.data.load) return [];
    const d = m.metrics.data;
    return [
      {
        member: m,
        name: m.target.name,
        windowSeconds: d.windowSeconds,
        load: d.load as LoadReading,
        before: d.loadBefore,
        rates: d.loadRates,
      },
    ];
  });
}

/** `150 MB/s`. */
export function formatRate(bytesPerSecond: number): string {
  return `${formatBytes(bytesPerSecond)}/s`;
}

/** `3.2 ranges a second` or `12 ranges a second`. */
export function formatPerSecond(n: number, what?: string): string {
  return `${n >= 10 ? Math.round(n) : Number(n.toFixed(1))}${what ? ` ${what}` : ''} a second`;
}

/** The etcd pod spec of a member (its `--name`, else the node it runs on). */
export function podSpecOf(evidence: Evidence, member: string): EtcdPodSpec | undefined {
  const specs = dataOf(kubernetesOf(evidence)?.etcdPods) ?? [];
  return specs.find(
    (s) => s.memberName === member || (s.node !== undefined && memberOfNode(evidence, s.node) === member),
  );
}

/**
 * Latency the member shows now, which client load may explain: a linearizable read of 500 ms or
 * more (slow-reads' bound), GET /version answered 30 ms or more on average (cpu-starvation's stall
 * bound), or an apply over 100 ms in the window (etcd's own warning). Undefined: none.
 */
export function latencyShown(m: MemberEvidence): string | undefined {
  const signs: string[] = [];
  if (m.health.ok && m.health.data.tookMs >= 500)
    signs.push(`a linearizable read took ${formatMs(m.health.data.tookMs)}`);
  if (m.clock.ok && m.clock.data.samples >= 2 && m.clock.data.meanRttMs >= 30)
    signs.push(`GET /version took ${formatMs(m.clock.data.meanRttMs)} on average`);
  if (m.metrics.ok && m.metrics.data.deltas.slowApply > 0)
    signs.push(`${m.metrics.data.deltas.slowApply} applies over 100 ms in ${m.metrics.data.windowSeconds} s`);
  if (!m.health.ok && m.health.failure.kind === 'timeout') signs.push('a linearizable read timed out');
  return signs.length > 0 ? signs.join(', ') : undefined;
}
