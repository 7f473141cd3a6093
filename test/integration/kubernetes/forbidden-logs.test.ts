import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { loadKubernetesClients } from '../../../src/clients/kubernetes.js';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { collectKubernetesOutcome, kubernetesProbeRecords } from '../../../src/probes/kubernetes/collect.js';
import { etcdPart, KUBEADM_MEMBERS, withKubernetes, useScenario } from '../../support/kube/kube-evidence.js';

describe('RBAC without pods/log and /metrics', () => {
  // The incident's pods, so rules that want the logs have something to say without them.
  const run = useScenario('leaderelection-restarts', {
    forbid: [{ resource: 'pods/log' }, { resource: '/metrics' }],
  });

  it('fails the log scan with the permission it needs, and keeps everything else', () => {
    const k = run.kubernetes;
    expect(k.logs.ok).toBe(false);
    if (k.logs.ok) return;
    expect(k.logs.failure.kind).toBe('forbidden');
    expect(k.logs.failure.message).toMatch(
      /^the apiserver of test \(http:\/\/127\.0\.0\.1:\d+\): user "system:serviceaccount:monitoring:etcd-doctor" is forbidden to get pods\/log in kube-system \(needs RBAC: get pods\/log\)$/,
    );
    expect(
      kubernetesProbeRecords(k)
        .filter((r) => !r.ok)
        .map((r) => r.name),
    ).toEqual(['k8s-logs']);
    expect(k.pods.ok && k.nodes.ok && k.leases.ok && k.events.ok && k.staticPods.ok && k.etcdPods.ok).toBe(
      true,
    );
  });

  it('keeps a 403 on /metrics as a note inside the apiserver evidence', () => {
    const apiserver = run.kubernetes.apiserver;
    if (!apiserver.ok) throw new Error(apiserver.failure.message);
    expect(apiserver.data.readyz.ok && apiserver.data.latency.ok).toBe(true);
    expect(apiserver.data.etcdRequests).toMatchObject({
      ok: false,
      failure: {
        kind: 'forbidden',
        message:
          'GET /metrics: etcd-doctor is forbidden to get /metrics (needs RBAC: get on nonResourceURLs /metrics)',
      },
    });
  });

  it('still reports the restarts, and says the logs were not read', () => {
    const result = diagnose(withKubernetes(etcdPart(KUBEADM_MEMBERS), run.kubernetes), rules, {
      now: run.now,
    });
    const restarts = result.findings.find((f) => f.cause === 'control-plane-restarts');
    expect(restarts?.evidence[0]).toBe(
      'kube-scheduler-master-1 restarted 562 times (135/day), now in CrashLoopBackOff; last exit: Error, exit code 1, 2 min ago',
    );
    expect(restarts?.unknowns[0]).toContain('no logs: the apiserver of test');
    expect(restarts?.unknowns[0]).toContain('(needs RBAC: get pods/log)');
  });
});

describe('a kubeconfig that cannot be loaded', () => {
  it('becomes failure evidence that names the cluster and the file', async () => {
    const outcome = await collectKubernetesOutcome(
      { name: 'prod', kubernetes: { kubeconfig: '/nonexistent/kubeconfig' } },
      {
        now: Date.now,
        loadClients: () =>
          loadKubernetesClients(
            { kubeconfig: '/nonexistent/kubeconfig' },
            { readFile: (p) => readFile(p, 'utf8') },
          ),
      },
    );
    expect(outcome).toMatchObject({
      ok: false,
      failure: {
        kind: 'error',
        message: expect.stringMatching(
          /^cluster prod: kubernetes: cannot load \/nonexistent\/kubeconfig: ENOENT/,
        ),
      },
    });
  });
});
