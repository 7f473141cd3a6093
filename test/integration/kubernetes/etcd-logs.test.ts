import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { clockSkewLogsRule } from '../../../src/diagnosis/rules/clock-skew-logs.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { slowDiskLogEvidence } from '../../../src/diagnosis/support/node-pressure.js';
import type { Evidence } from '../../../src/probes/evidence.js';
import { failed, ok } from '../../support/evidence/evidence.js';
import {
  etcdPart,
  KUBEADM_MEMBERS,
  type ScenarioRun,
  useScenario,
  withKubernetes,
} from '../../support/kube/kube-evidence.js';

/** kubeadm binds etcd's /metrics to 127.0.0.1:2381: from outside the node nothing answers there. */
function metricsUnreachable(run: ScenarioRun): Evidence {
  const noMetrics = failed(
    'unreachable',
    'http://127.0.0.1:2381/metrics is unreachable (connect ECONNREFUSED)',
  );
  const noClock = failed('unreachable', 'no Date header: /metrics is unreachable');
  const overrides = Object.fromEntries(
    KUBEADM_MEMBERS.map((m) => [m.name, { metrics: noMetrics, clock: noClock }]),
  );
  return withKubernetes(etcdPart(KUBEADM_MEMBERS, overrides), run.kubernetes);
}

describe('incidents (b), (c), (d): clock drift, peer i/o timeouts and slow requests in the etcd 3.4 logs', () => {
  const run = useScenario('etcd-logs');

  it('extracts durations, drift seconds with peer ids, and peer errors from capnslog lines', () => {
    const scans = run.kubernetes.logs.ok ? run.kubernetes.logs.data.scans : [];
    const m1 = scans.find((s) => s.pod === 'etcd-master-1')?.signals;
    expect(m1?.clockDrift).toEqual([
      expect.objectContaining({ peerId: 'd7523d07ecd5d55e', count: 20, maxSeconds: 10.545065453 }),
    ]);
    expect(m1?.peerUnreachable).toEqual([
      expect.objectContaining({
        peerId: 'b366cbcd316c915f',
        count: 20,
        address: '127.20.0.13:2380',
        lastError: 'dial tcp 127.20.0.13:2380: i/o timeout',
      }),
    ]);
    expect(m1?.tookTooLong).toMatchObject({ count: 5, maxSeconds: 1.26 });
    expect(m1?.leaderLost.count).toBe(5);
    expect(m1?.leaderElected.count).toBe(5);
  });

  it('names master-3 for the peer network and master-2 for the clock, from the logs alone', () => {
    const result = diagnose(metricsUnreachable(run), rules, { now: run.now });
    expect(result.findings.map((f) => [f.cause, f.members, f.nodes, f.causedBy ?? null])).toEqual([
      ['peer-network', ['master-3'], ['master-3'], null],
      ['clock-skew', ['master-2'], ['master-2'], null],
    ]);
    expect(result.findings[0]?.summary).toBe(
      'master-3 cannot be reached on the peer port: 40 failed health checks from master-1 and master-2 (dial tcp 127.20.0.13:2380: i/o timeout)',
    );
    expect(result.findings[0]?.evidence).toContain(
      'master-3 still answers us on the client port: the peer path is the problem',
    );
    expect(result.findings[1]?.summary).toBe(
      "master-2's clock is 10.6 s off from master-1 and master-3 (etcd logs; etcd's limit is 1 s)",
    );
    expect(slowDiskLogEvidence(metricsUnreachable(run))).toEqual([
      'master-1 etcd log: 5 × took too long (max 1.26 s)',
    ]);
  });

  it('leaves clock skew to the clock probe when the member clocks read now disagree', () => {
    const evidence = metricsUnreachable(run);
    const clocks = {
      ...evidence,
      members: evidence.members.map((m) => ({
        ...m,
        clock: ok({
          offsetMs: m.target.name === 'master-2' ? 10_500 : 20,
          uncertaintyMs: 500,
          rttMs: 1,
          maxRttMs: 2,
          meanRttMs: 1,
          samples: 4,
        }),
      })),
    };
    const result = clockSkewLogsRule.evaluate(clocks, { now: run.now });
    expect(result.finding).toBeUndefined();
    expect(result.explain.at(-1)).toBe('3 member clocks were read: the clock-skew rule decides');
  });

  it('logged drift while the clocks read now agree: history at info level, with when and what now', () => {
    const evidence = metricsUnreachable(run);
    const clocks = {
      ...evidence,
      members: evidence.members.map((m) => ({
        ...m,
        clock: ok({ offsetMs: 20, uncertaintyMs: 500, rttMs: 1, maxRttMs: 2, meanRttMs: 1, samples: 4 }),
      })),
    };
    const result = clockSkewLogsRule.evaluate(clocks, { now: run.now });
    expect(result.finding).toMatchObject({ cause: 'clock-skew', severity: 'info' });
    expect(result.finding?.summary).toMatch(
      /^etcd logged clock drift of up to 10\.6 s \(.*\), last 3 min ago \(2024-05-14T09:27:02\.000Z\); the member clocks agree now, within 0 ms$/,
    );
  });
});
