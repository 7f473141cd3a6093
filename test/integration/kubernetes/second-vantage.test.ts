import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import type { KubernetesEvidence } from '../../../src/probes/kubernetes/evidence.js';
import { failed } from '../../support/evidence/evidence.js';
import { etcdPart, KUBEADM_MEMBERS, useScenario, withKubernetes } from '../../support/kube/kube-evidence.js';

const refused = failed(
  'unreachable',
  'https://127.20.0.13:2379 is unreachable (Status: UNAVAILABLE: Failed to connect)',
);

/**
 * One member refuses etcd-doctor while the kubeadm apiserver (the fake, healthy fixture) says
 * [+]etcd ok and that member's etcd pod is Ready: the path from here is at fault, not the member.
 * With its pod not Ready (and no recent log line), it is down as before.
 */
describe('a second vantage point for one member that refuses etcd-doctor', () => {
  const run = useScenario('kubeadm-1.29-healthy');
  const evidence = (kubernetes: KubernetesEvidence) =>
    withKubernetes(
      etcdPart(KUBEADM_MEMBERS, {
        'master-3': { status: refused, health: refused, metrics: refused, clock: refused },
      }),
      kubernetes,
    );

  it('its pod is Ready and the apiserver reaches etcd: unreachable-from-here, not member-down', () => {
    const result = diagnose(evidence(run.kubernetes), rules, { now: run.now });
    expect(result.findings.map((f) => f.cause)).not.toContain('member-down');
    const finding = result.findings.find((f) => f.cause === 'unreachable-from-here');
    expect(finding).toMatchObject({ severity: 'warning', members: ['master-3'] });
    expect(finding?.summary).toBe(
      'master-3 does not answer etcd-doctor (connections fail or time out), but the apiserver still reaches etcd: the path from etcd-doctor to etcd fails (network, firewall or wrong URLs), not etcd',
    );
    expect(finding?.evidence).toContain("the apiserver's /readyz?verbose says [+]etcd ok");
    expect(result.status).toBe('healthy');
  });

  it('its pod is not Ready and it logs no more: member-down, as before', () => {
    const k = run.kubernetes;
    const pods = k.pods.ok ? k.pods.data : [];
    const logs = k.logs.ok
      ? k.logs.data
      : { bounds: { tailLines: 0, sinceSeconds: 0, limitBytes: 0 }, scans: [], unread: [] };
    const down: KubernetesEvidence = {
      ...k,
      pods: {
        ...k.pods,
        ok: true,
        data: pods.map((p) => (p.name === 'etcd-master-3' ? { ...p, ready: false } : p)),
      },
      logs: {
        ok: true,
        durationMs: 1,
        data: { ...logs, scans: logs.scans.filter((s) => s.pod !== 'etcd-master-3') },
      },
    };
    const result = diagnose(evidence(down), rules, { now: run.now });
    expect(result.findings[0]).toMatchObject({ cause: 'member-down', members: ['master-3'] });
    expect(result.findings.map((f) => f.cause)).not.toContain('unreachable-from-here');
  });
});
