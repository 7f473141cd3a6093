import { describe, expect, it } from '@jest/globals';
import { diagnose } from '../../../src/diagnosis/diagnose.js';
import { rules } from '../../../src/diagnosis/rules/index.js';
import { failed } from '../../support/evidence/evidence.js';
import {
  etcdPart,
  OPENSHIFT_MEMBERS,
  withKubernetes,
  useScenario,
} from '../../support/kube/kube-evidence.js';

describe('incident (g): static pod manifests missing on two of three OpenShift masters', () => {
  const run = useScenario('missing-static-pods');

  it('lists the absent mirror pods, the MissingStaticPod events and the operator conditions', () => {
    const data = run.kubernetes.staticPods.ok ? run.kubernetes.staticPods.data : undefined;
    expect(data?.expected.filter((e) => !e.present).map((e) => `${e.namespace}/${e.podName}`)).toEqual([
      'openshift-kube-controller-manager/kube-controller-manager-master-0',
      'openshift-kube-scheduler/openshift-kube-scheduler-master-0',
      'openshift-etcd/etcd-master-1',
      'openshift-kube-controller-manager/kube-controller-manager-master-1',
      'openshift-kube-scheduler/openshift-kube-scheduler-master-1',
    ]);
    expect(data?.missingStaticPodEvents.map((e) => e.namespace).sort()).toEqual([
      'openshift-etcd-operator',
      'openshift-kube-controller-manager-operator',
      'openshift-kube-controller-manager-operator',
      'openshift-kube-scheduler-operator',
    ]);
    const op = data?.etcdOperator;
    expect(op?.ok && op.data.conditions.find((c) => c.type === 'StaticPodsDegraded')).toMatchObject({
      status: 'True',
      message: 'pods "etcd-master-1" not found',
    });
  });

  it('names both nodes and their components, and explains the etcd member that is down', () => {
    const down = failed(
      'unreachable',
      'master-1 (https://127.20.0.12:2379) is unreachable (Status: connect ECONNREFUSED)',
    );
    const evidence = withKubernetes(
      etcdPart(OPENSHIFT_MEMBERS, { 'master-1': { status: down, health: down, metrics: down, clock: down } }),
      run.kubernetes,
    );
    const result = diagnose(evidence, rules, { now: run.now });
    const [first] = result.findings;
    expect(first).toMatchObject({
      cause: 'static-pod-missing',
      severity: 'critical',
      nodes: ['master-0', 'master-1'],
      members: ['master-1'],
    });
    expect(first?.summary).toBe(
      'Static pods are missing on master-0 and master-1: kube-controller-manager and kube-scheduler on master-0; etcd, kube-controller-manager and kube-scheduler on master-1',
    );
    expect(first?.evidence).toContain(
      'event MissingStaticPod (3×): static pod lifecycle failure - static pod: "etcd" in namespace: "openshift-etcd" for revision: 7 on node: "master-1" didn\'t show up, waited: 2m30s',
    );
    expect(first?.evidence).toContain(
      'etcd operator EtcdMembersDegraded=True (UnhealthyMembers): 2 of 3 members are available, master-1 is unhealthy',
    );
    expect(first?.steps[0]?.text).toContain('Do not hand-edit');
    expect(result.findings.find((f) => f.cause === 'member-down')).toMatchObject({
      members: ['master-1'],
      causedBy: 'static-pod-missing',
    });
    // master-1's peers log that it refuses connections: it is down, not cut off.
    expect(result.findings.some((f) => f.cause === 'peer-network')).toBe(false);
  });

  it('waits for a node that only just became Ready', () => {
    const justReady = run.now - 60_000;
    const nodes = run.kubernetes.nodes.ok ? run.kubernetes.nodes.data : [];
    const kubernetes = {
      ...run.kubernetes,
      nodes: {
        ok: true as const,
        durationMs: 1,
        data: nodes.map((n) =>
          n.name === 'master-0'
            ? {
                ...n,
                conditions: {
                  ...n.conditions,
                  Ready: {
                    status: 'True' as const,
                    reason: 'KubeletReady',
                    message: undefined,
                    since: justReady,
                  },
                },
              }
            : n,
        ),
      },
    };
    const result = diagnose(withKubernetes(etcdPart(OPENSHIFT_MEMBERS), kubernetes), rules, {
      now: run.now,
    });
    const finding = result.findings.find((f) => f.cause === 'static-pod-missing');
    expect(finding?.nodes).toEqual(['master-1']);
    expect(finding?.unknowns).toContain(
      'master-0 is not Ready or became Ready less than 5 min ago: its static pods may still be starting',
    );
  });
});
