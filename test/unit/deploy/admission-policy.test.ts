import { beforeAll, describe, expect, it } from '@jest/globals';
import { evaluate } from '@marcbachmann/cel-js';
import { fioJob } from '../../../src/remediation/actions/disk-benchmark.js';
import { manifestMoverPod } from '../../../src/remediation/actions/restart-static-pod.js';
import { DEFAULT_REMEDIATION_SETTINGS } from '../../../src/remediation/settings.js';
import { objectsOf, renderAllTargets, type Target } from '../../support/deploy-manifests.js';
import { findObject, type KubeObject } from '../../support/kustomize.js';

/**
 * The ValidatingAdmissionPolicy of components/remediation, evaluated with a CEL evaluator
 * (@marcbachmann/cel-js) as the API server would: its own expressions, from the rendered YAML,
 * against the specs the actions really build (admitted) and against forbidden variants (denied).
 */
interface Policy {
  matchConditions: Array<{ name: string; expression: string }>;
  variables: Array<{ name: string; expression: string }>;
  validations: Array<{ expression: string; message: string }>;
}

let policy: Policy;
let binding: KubeObject;
beforeAll(() => {
  const rendered: Map<Target, KubeObject[]> = renderAllTargets(process.env);
  const objects = objectsOf(rendered, 'components/remediation');
  policy = (
    findObject(objects, 'ValidatingAdmissionPolicy', 'etcd-doctor-remediation') as unknown as { spec: Policy }
  ).spec;
  binding = findObject(objects, 'ValidatingAdmissionPolicyBinding', 'etcd-doctor-remediation');
});

const WORKER = 'system:serviceaccount:etcd-doctor:etcd-doctor-worker';
const FIO_IMAGE = `registry.example/fio:3.35@sha256:${'ab'.repeat(32)}`;

/** The messages of the validations that deny `object` (a CEL error denies too: failurePolicy Fail). */
function denials(object: unknown): string[] {
  const variables: Record<string, unknown> = {};
  for (const v of policy.variables) variables[v.name] = evaluate(v.expression, { object, variables });
  return policy.validations.flatMap((v) => {
    try {
      return evaluate(v.expression, { object, variables }) === true ? [] : [v.message];
    } catch (err) {
      return [`${v.message} (error: ${(err as Error).message})`];
    }
  });
}

const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const helperPod = () =>
  json(
    manifestMoverPod({
      name: 'etcd-doctor-restart-abc',
      namespace: 'kube-system',
      node: 'master-1',
      component: 'etcd',
      image: DEFAULT_REMEDIATION_SETTINGS.helperImage,
      holdSeconds: 30,
      planId: 'plan12345',
      notAfterSeconds: 1_900_000_000,
    }),
  ) as unknown as {
    spec: Record<string, unknown> & { containers: Array<Record<string, unknown>>; volumes: unknown[] };
  };
const benchJob = () =>
  json(
    fioJob({
      name: 'etcd-doctor-fio-abc',
      namespace: 'kube-system',
      node: 'master-2',
      image: FIO_IMAGE,
      helperImage: DEFAULT_REMEDIATION_SETTINGS.helperImage,
      minFreeBytes: 1024 ** 3,
      timeoutSeconds: 300,
      planId: 'plan12345',
    }),
  ) as unknown as {
    spec: {
      template: { spec: Record<string, unknown> & { initContainers: Array<Record<string, unknown>> } };
    };
  };

describe('the remediation admission policy', () => {
  it("applies to the worker's requests only, in kube-system, and denies", () => {
    const [only] = policy.matchConditions;
    expect(evaluate(only?.expression ?? 'false', { request: { userInfo: { username: WORKER } } })).toBe(true);
    expect(
      evaluate(only?.expression ?? 'false', {
        request: { userInfo: { username: 'system:serviceaccount:kube-system:job-controller' } },
      }),
    ).toBe(false);
    expect(binding).toMatchObject({
      spec: {
        policyName: 'etcd-doctor-remediation',
        validationActions: ['Deny'],
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        },
      },
    });
  });

  it('admits the restart helper pod and the benchmark Job exactly as the actions build them', () => {
    expect(denials(helperPod())).toEqual([]);
    expect(denials(benchJob())).toEqual([]);
  });

  it.each([
    [
      'a privileged container',
      (p: ReturnType<typeof helperPod>) => {
        (p.spec.containers[0] as { securityContext: Record<string, unknown> }).securityContext.privileged =
          true;
      },
      /no privileged container/,
    ],
    [
      'host networking',
      (p: ReturnType<typeof helperPod>) => {
        p.spec.hostNetwork = true;
      },
      /no host network/,
    ],
    [
      'host PID',
      (p: ReturnType<typeof helperPod>) => {
        p.spec.hostPID = true;
      },
      /no host network, PID/,
    ],
    [
      'an image by tag',
      (p: ReturnType<typeof helperPod>) => {
        (p.spec.containers[0] as { image: string }).image = 'busybox:1.36';
      },
      /pinned by digest/,
    ],
    [
      'a service-account token',
      (p: ReturnType<typeof helperPod>) => {
        delete p.spec.automountServiceAccountToken;
      },
      /no service-account token/,
    ],
    [
      'no nodeName',
      (p: ReturnType<typeof helperPod>) => {
        delete p.spec.nodeName;
      },
      /pinned to one node/,
    ],
    [
      'a hostPath of the whole root',
      (p: ReturnType<typeof helperPod>) => {
        p.spec.volumes = [{ name: 'root', hostPath: { path: '/' } }];
      },
      /exactly one volume/,
    ],
    [
      'a second volume',
      (p: ReturnType<typeof helperPod>) => {
        p.spec.volumes.push({
          name: 'token',
          projected: { sources: [{ serviceAccountToken: { path: 'token' } }] },
        });
      },
      /exactly one volume/,
    ],
    [
      "the benchmark's hostPath on a pod",
      (p: ReturnType<typeof helperPod>) => {
        p.spec.volumes = [{ name: 'bench', hostPath: { path: '/var/lib/etcd/etcd-doctor-fio' } }];
      },
      /exactly one volume/,
    ],
    [
      'an added capability',
      (p: ReturnType<typeof helperPod>) => {
        (
          p.spec.containers[0] as { securityContext: { capabilities: Record<string, unknown> } }
        ).securityContext.capabilities.add = ['SYS_ADMIN'];
      },
      /none added/,
    ],
    [
      'no securityContext at all',
      (p: ReturnType<typeof helperPod>) => {
        delete (p.spec.containers[0] as Record<string, unknown>).securityContext;
      },
      /no privileged container/,
    ],
    [
      'a host port',
      (p: ReturnType<typeof helperPod>) => {
        (p.spec.containers[0] as Record<string, unknown>).ports = [{ containerPort: 2379, hostPort: 2379 }];
      },
      /no host ports/,
    ],
  ])('denies a pod with %s', (_what, mutate, reason) => {
    const pod = helperPod();
    mutate(pod);
    expect(denials(pod).join('; ')).toMatch(reason);
  });

  it('denies a Job whose init container is privileged, or whose template mounts the manifests', () => {
    const job = benchJob();
    (
      job.spec.template.spec.initContainers[0] as { securityContext: Record<string, unknown> }
    ).securityContext.privileged = true;
    expect(denials(job).join('; ')).toMatch(/no privileged container/);
    const other = benchJob();
    other.spec.template.spec.volumes = [{ name: 'm', hostPath: { path: '/etc/kubernetes/manifests' } }];
    expect(denials(other).join('; ')).toMatch(/exactly one volume/);
  });
});
