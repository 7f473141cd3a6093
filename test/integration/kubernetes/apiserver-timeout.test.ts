import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import {
  collectScenario,
  etcdPart,
  KUBEADM_MEMBERS,
  withKubernetes,
} from '../../support/kube/kube-evidence.js';

const settings = { timeoutMs: 1000, logTimeoutMs: 1500 };

describe('an apiserver that does not answer', () => {
  it('fails every probe within its own timeout, and the etcd diagnosis still runs', async () => {
    const run = await collectScenario('kubeadm-1.29-healthy', {
      delays: [{ resource: '*', ms: 10_000 }],
      settings,
    });
    try {
      const k = run.kubernetes;
      expect(run.elapsedMs).toBeLessThan(1500 + 1000);
      const parts = [k.pods, k.logs, k.leases, k.nodes, k.staticPods, k.etcdPods, k.apiserver, k.events];
      expect(parts.map((p) => (p.ok ? 'ok' : p.failure.kind))).toEqual(Array(8).fill('timeout'));
      expect(k.pods.ok ? '' : k.pods.failure.message).toMatch(
        /^the apiserver of test \(http:\/\/127\.0\.0\.1:\d+\) did not answer list control-plane pods in 1 s$/,
      );
      expect(k.distribution).toBe('unknown');
      expect(parts.every((p) => p.durationMs < 1600)).toBe(true);
      const result = diagnose(withKubernetes(etcdPart(KUBEADM_MEMBERS), k), rules, {
        now: run.now,
      });
      expect(result.status).toBe('healthy');
      // All parts timed out: nothing shows the apiserver is up, so no latency claim.
      expect(result.findings).toEqual([]);
    } finally {
      await run.fake.close();
    }
  });

  it('keeps what arrived when only the pod list hangs', async () => {
    const run = await collectScenario('kubeadm-1.29-healthy', {
      delays: [{ resource: 'pods', ms: 10_000 }],
      settings,
    });
    try {
      const k = run.kubernetes;
      expect(run.elapsedMs).toBeLessThan(2500);
      expect([k.pods, k.logs, k.staticPods, k.etcdPods].map((p) => (p.ok ? 'ok' : p.failure.kind))).toEqual(
        Array(4).fill('timeout'),
      );
      expect([k.nodes, k.leases, k.events, k.apiserver].every((p) => p.ok)).toBe(true);
      expect(k.distribution).toBe('kubeadm');
    } finally {
      await run.fake.close();
    }
  });

  it('calls an apiserver that answers lists but not its own checks slow', async () => {
    const run = await collectScenario('kubeadm-1.29-healthy', {
      delays: [
        { resource: '/readyz', ms: 10_000 },
        { resource: 'namespaces', ms: 10_000 },
      ],
      settings,
    });
    try {
      const result = diagnose(withKubernetes(etcdPart(KUBEADM_MEMBERS), run.kubernetes), rules, {
        now: run.now,
      });
      expect(result.findings[0]).toMatchObject({ cause: 'apiserver-latency', severity: 'critical' });
      expect(result.findings[0]?.summary).toMatch(
        /^The apiserver is slow: the apiserver of test \(.+\) did not answer the readyz, latency and metrics checks in 1 s$/,
      );
    } finally {
      await run.fake.close();
    }
  });
});
