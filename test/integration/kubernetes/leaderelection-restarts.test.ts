import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { slowDiskLogEvidence } from '../../../src/diagnosis/support/node-pressure.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { failed, latency, metricsData, ok } from '../../support/evidence/evidence.js';
import { etcdPart, KUBEADM_MEMBERS, withKubernetes, useScenario } from '../../support/kube/kube-evidence.js';

describe('incident (f): controller-manager and scheduler restart hundreds of times', () => {
  const run = useScenario('leaderelection-restarts');

  it('counts restarts, reads why from the previous logs, and measures the apiserver', () => {
    const k = run.kubernetes;
    const pods = k.pods.ok ? k.pods.data : [];
    expect(pods.find((p) => p.name === 'kube-scheduler-master-1')?.main).toMatchObject({
      restartCount: 562,
      state: 'waiting',
      waitingReason: 'CrashLoopBackOff',
      lastTermination: { reason: 'Error', exitCode: 1 },
    });
    const scans = k.logs.ok ? k.logs.data.scans : [];
    const previous = scans.find((s) => s.pod === 'kube-controller-manager-master-2' && s.previous);
    expect(previous?.signals.leaderElectionLost.count).toBe(1);
    expect(previous?.signals.leaseRenewFailed.leases).toEqual(['kube-system/kube-controller-manager']);
    const latencyData =
      k.apiserver.ok && k.apiserver.data.latency.ok ? k.apiserver.data.latency.data : undefined;
    expect(latencyData?.getNamespaceMs).toBeGreaterThanOrEqual(1250);
    expect(latencyData?.versionMs).toBeLessThan(500);
  });

  it('puts the slow etcd disk first and links the restarts and the slow apiserver to it', () => {
    const slow = ok(metricsData({ walFsync: latency(212, 201), backendCommit: latency(420, 400) }));
    const evidence = withKubernetes(
      etcdPart(KUBEADM_MEMBERS, { 'master-2': { metrics: slow, health: ok({ tookMs: 1318 }) } }),
      run.kubernetes,
    );
    const result = diagnose(evidence, rules, { now: run.now });
    expect(result.findings[0]).toMatchObject({ cause: 'slow-disk', members: ['master-2'] });
    const restarts = result.findings.find((f) => f.cause === 'control-plane-restarts');
    expect(restarts).toMatchObject({
      causedBy: 'slow-disk',
      severity: 'critical',
      nodes: ['master-1', 'master-2', 'master-3'],
    });
    expect(restarts?.summary).toBe(
      'kube-apiserver, kube-controller-manager and kube-scheduler keep restarting (kube-scheduler-master-1 restarted 562 times, on master-1, master-2 and master-3); kube-controller-manager and kube-scheduler exit with leaderelection lost: they could not renew their lease within 10 s',
    );
    expect(restarts?.evidence[0]).toBe(
      'kube-scheduler-master-1 restarted 562 times (135/day), now in CrashLoopBackOff; last exit: leaderelection lost (Error, exit code 1, 2 min ago)',
    );
    expect(restarts?.evidence).toContain(
      'lease kube-system/kube-controller-manager changed hands 1123 times (holder master-3, lease duration 15 s)',
    );
    expect(
      restarts?.evidence.some((e) => /^kube-apiserver logs: \d+ × etcdserver: request timed out/.test(e)),
    ).toBe(true);
    const apiserver = result.findings.find((f) => f.cause === 'apiserver-latency');
    expect(apiserver?.causedBy).toBe('slow-disk');
    expect(apiserver?.summary).toMatch(
      /^The apiserver is slow: GET namespace kube-system took 1\.\d s while \/version took [\d.]+ ms: the time is spent in etcd/,
    );
    expect(result.status).toBe('critical');
  });

  it('without etcd metrics, the slow apiserver explains the restarts and the etcd logs name master-2', () => {
    const unreachable = failed(
      'unreachable',
      'http://127.0.0.1:2381/metrics is unreachable (connect ECONNREFUSED)',
    );
    const evidence = withKubernetes(
      etcdPart(
        KUBEADM_MEMBERS,
        Object.fromEntries(KUBEADM_MEMBERS.map((m) => [m.name, { metrics: unreachable }])),
      ),
      run.kubernetes,
    );
    const result = diagnose(evidence, rules, { now: run.now });
    expect(result.findings.map((f) => [f.cause, f.causedBy ?? null])).toEqual([
      ['apiserver-latency', null],
      ['control-plane-restarts', 'apiserver-latency'],
    ]);
    expect(slowDiskLogEvidence(evidence, ['master-2'])).toEqual([
      'master-2 etcd log: 18 × took too long (max 2.26 s), 18 × slow fdatasync (max 2.02 s), 6 × heartbeat sent late',
    ]);
  });
});
