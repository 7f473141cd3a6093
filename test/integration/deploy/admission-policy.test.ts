import { beforeAll, describe, expect, it } from '@jest/globals';
import { evaluate } from '@marcbachmann/cel-js';
import { CONTROL_PLANE_COMPONENTS } from '../../../src/probes/kubernetes/evidence.js';
import { fioJob } from '../../../src/remediation/actions/disk-benchmark.js';
import { manifestMoverPod } from '../../../src/remediation/actions/restart-static-pod.js';
import { ADMISSION_PARAMS, identityProblem } from '../../../src/remediation/preflight.js';
import { DEFAULT_REMEDIATION_SETTINGS } from '../../../src/remediation/settings.js';
import { objectsOf, renderAllTargets, type Target } from '../../support/deploy/deploy-manifests.js';
import { findObject, type KubeObject } from '../../support/deploy/kustomize.js';

/**
 * The ValidatingAdmissionPolicies of components/remediation, evaluated with a CEL evaluator
 * (@marcbachmann/cel-js) as the API server would: their own expressions, from the rendered YAML,
 * with the rendered parameter ConfigMap, against the specs the actions really build (admitted) and
 * against impostors that keep the helper's shape but do another job (denied).
 */
interface Policy {
  matchConditions: Array<{ name: string; expression: string }>;
  variables: Array<{ name: string; expression: string }>;
  validations: Array<{ expression: string; message: string }>;
}

let policies: Policy[];
let objects: KubeObject[];
let params: { data: Record<string, string> };
beforeAll(() => {
  const rendered: Map<Target, KubeObject[]> = renderAllTargets(process.env);
  objects = objectsOf(rendered, 'components/remediation');
  policies = ['etcd-doctor-remediation', 'etcd-doctor-remediation-images'].map(
    (name) => (findObject(objects, 'ValidatingAdmissionPolicy', name) as unknown as { spec: Policy }).spec,
  );
  params = findObject(objects, 'ConfigMap', 'etcd-doctor-remediation') as unknown as typeof params;
});

const WORKER = 'system:serviceaccount:etcd-doctor:etcd-doctor-worker';
const FIO_IMAGE = `registry.example/fio:3.35@sha256:${'ab'.repeat(32)}`;
const OTHER_IMAGE = `registry.example/evil:1@sha256:${'cd'.repeat(32)}`;

/** The parameters an install that configured a benchmark image has (its overlay sets the key). */
const withBenchmark = () => ({ ...params, data: { ...params.data, diskBenchmarkImage: FIO_IMAGE } });

/**
 * The messages of the validations that deny `object` (a CEL error denies too: failurePolicy Fail).
 * Variables are evaluated in order, as the API server does lazily: one that fails fails only the
 * validations that use it.
 */
function denials(object: unknown, p: unknown = withBenchmark(), username = WORKER): string[] {
  return policies.flatMap((policy) => {
    const request = { userInfo: { username } };
    if (!policy.matchConditions.every((m) => evaluate(m.expression, { request, params: p }) === true))
      return [];
    const variables: Record<string, unknown> = {};
    for (const v of policy.variables) {
      try {
        variables[v.name] = evaluate(v.expression, { object, params: p, variables });
      } catch {
        // left unset: a validation that reads it errors, and an error denies
      }
    }
    return policy.validations.flatMap((v) => {
      try {
        return evaluate(v.expression, { object, params: p, variables }) === true ? [] : [v.message];
      } catch (err) {
        return [`${v.message} (error: ${(err as Error).message})`];
      }
    });
  });
}

type Spec = Record<string, unknown> & {
  containers: Array<Record<string, unknown> & { env?: Array<Record<string, unknown>>; command: string[] }>;
  initContainers?: Array<Record<string, unknown> & { command: string[] }>;
  volumes: unknown[];
};
type Pod = { metadata: { labels?: Record<string, string> }; spec: Spec };
type Job = {
  metadata: { labels?: Record<string, string> };
  spec: Record<string, unknown> & { template: { spec: Spec } };
};

const json = <T>(v: T): T => JSON.parse(JSON.stringify(v)) as T;
const helperPod = (component: (typeof CONTROL_PLANE_COMPONENTS)[number] = 'etcd'): Pod =>
  json(
    manifestMoverPod({
      name: 'etcd-doctor-restart-abc',
      namespace: 'kube-system',
      node: 'master-1',
      component,
      image: DEFAULT_REMEDIATION_SETTINGS.helperImage,
      holdSeconds: DEFAULT_REMEDIATION_SETTINGS.manifestHoldSeconds,
      planId: 'plan12345',
      notAfterSeconds: 1_900_000_000,
    }),
  ) as unknown as Pod;
const benchJob = (): Job =>
  json(
    fioJob({
      name: 'etcd-doctor-fio-abc',
      namespace: 'kube-system',
      node: 'master-2',
      image: FIO_IMAGE,
      helperImage: DEFAULT_REMEDIATION_SETTINGS.helperImage,
      minFreeBytes: DEFAULT_REMEDIATION_SETTINGS.benchmarkMinFreeBytes,
      timeoutSeconds: Math.ceil(DEFAULT_REMEDIATION_SETTINGS.benchmarkTimeoutMs / 1000),
      planId: 'plan12345',
    }),
  ) as unknown as Job;
const mover = (p: Pod) =>
  p.spec.containers[0] as Pod['spec']['containers'][number] & { env: Array<Record<string, unknown>> };

/** What the issue's attacker runs: the helper's shape, writing a privileged hostPID static pod. */
const EVIL_STATIC_POD =
  "cat > /manifests/x.yaml <<'EOF'\napiVersion: v1\nkind: Pod\nmetadata: {name: x, namespace: kube-system}\nspec:\n  hostPID: true\n  containers: [{name: x, image: busybox, securityContext: {privileged: true}}]\nEOF";

describe('the remediation admission policies', () => {
  it("apply to the worker's service account in any namespace, not to the Job controller or look-alikes", () => {
    for (const policy of policies) {
      const [only] = policy.matchConditions;
      const matches = (username: string) =>
        evaluate(only?.expression ?? 'false', { request: { userInfo: { username } } });
      expect(matches(WORKER)).toBe(true);
      expect(matches('system:serviceaccount:ops:etcd-doctor-worker')).toBe(true);
      expect(matches('system:serviceaccount:kube-system:job-controller')).toBe(false);
      expect(matches('system:serviceaccount:ops:etcd-doctor-worker-2')).toBe(false);
      expect(matches('system:serviceaccount:ops:not-etcd-doctor-worker')).toBe(false);
      // `etcd-doctor preflight` accepts exactly the identities the policies match.
      for (const username of [
        WORKER,
        'system:serviceaccount:ops:etcd-doctor-worker',
        'system:serviceaccount:ops:etcd-doctor-worker-2',
        'kubernetes-admin',
        'etcd-doctor-worker',
      ])
        expect({ username, preflightAccepts: identityProblem(username) === undefined }).toEqual({
          username,
          preflightAccepts: matches(username),
        });
    }
  });

  it('bind in kube-system and deny; the image policy reads its ConfigMap, fails closed, and selects only our objects', () => {
    expect(findObject(objects, 'ValidatingAdmissionPolicyBinding', 'etcd-doctor-remediation')).toMatchObject({
      spec: {
        policyName: 'etcd-doctor-remediation',
        validationActions: ['Deny'],
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        },
      },
    });
    const images = findObject(objects, 'ValidatingAdmissionPolicyBinding', 'etcd-doctor-remediation-images');
    expect(images).toMatchObject({
      spec: {
        policyName: 'etcd-doctor-remediation-images',
        validationActions: ['Deny'],
        paramRef: {
          name: 'etcd-doctor-remediation',
          namespace: 'kube-system',
          parameterNotFoundAction: 'Deny',
        },
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        },
      },
    });
    // The objectSelector picks what the actions build (and the first policy requires these labels).
    const selector = (
      images as unknown as {
        spec: { matchResources: { objectSelector: { matchLabels: Record<string, string> } } };
      }
    ).spec.matchResources.objectSelector.matchLabels;
    expect(Object.keys(selector).length).toBeGreaterThan(0);
    for (const labels of [helperPod().metadata.labels, benchJob().metadata.labels])
      expect(labels).toMatchObject(selector);
    expect(params).toMatchObject({
      metadata: { namespace: ADMISSION_PARAMS.namespace, name: ADMISSION_PARAMS.name },
    });
    expect(images).toMatchObject({ spec: { paramRef: ADMISSION_PARAMS } });
    expect(params.data).toEqual({
      helperImage: DEFAULT_REMEDIATION_SETTINGS.helperImage,
      diskBenchmarkImage: '',
    });
  });

  it.each(CONTROL_PLANE_COMPONENTS)(
    'admit the restart helper for %s exactly as the action builds it',
    (component) => {
      expect(denials(helperPod(component))).toEqual([]);
    },
  );

  it('admit the benchmark Job exactly as the action builds it, once its image is configured', () => {
    expect(denials(benchJob())).toEqual([]);
    // The shipped parameters name no benchmark image: no benchmark until the install sets one.
    expect(denials(benchJob(), params).join('; ')).toMatch(/fio runs only the configured benchmark image/);
  });

  it.each([
    [
      "the issue's impostor: the helper's shape, writing a privileged hostPID static pod",
      (p: Pod) => {
        mover(p).command = ['/bin/sh', '-c', EVIL_STATIC_POD];
      },
      /exactly the manifest mover script/,
    ],
    [
      'another image pinned by a digest',
      (p: Pod) => {
        mover(p).image = OTHER_IMAGE;
      },
      /run only the configured helper image/,
    ],
    [
      'MANIFEST naming another file',
      (p: Pod) => {
        const env = mover(p).env.find((e) => e.name === 'MANIFEST');
        if (env) env.value = 'x.yaml';
      },
      /MANIFEST \(etcd.yaml/,
    ],
    [
      'MANIFEST leaving the directory',
      (p: Pod) => {
        const env = mover(p).env.find((e) => e.name === 'MANIFEST');
        if (env) env.value = '../kube-apiserver.yaml';
      },
      /MANIFEST \(etcd.yaml/,
    ],
    [
      'an extra env variable',
      (p: Pod) => {
        mover(p).env.push({ name: 'MANIFESTS_DIR', value: '/' });
      },
      /env is exactly MANIFEST/,
    ],
    [
      'a manifest held out for a day',
      (p: Pod) => {
        const env = mover(p).env.find((e) => e.name === 'HOLD_SECONDS');
        if (env) env.value = '86400';
      },
      /HOLD_SECONDS \(at most 300\)/,
    ],
    [
      'an env value from a reference',
      (p: Pod) => {
        const env = mover(p).env.find((e) => e.name === 'MANIFEST');
        if (env) {
          delete env.value;
          env.valueFrom = { configMapKeyRef: { name: 'x', key: 'y' } };
        }
      },
      /env from references/,
    ],
    [
      'an extra init container',
      (p: Pod) => {
        p.spec.initContainers = [
          { ...json(mover(p)), name: 'first', command: ['/bin/sh', '-c', EVIL_STATIC_POD] },
        ];
      },
      /one container, move-manifest/,
    ],
    [
      'a second container',
      (p: Pod) => {
        p.spec.containers.push({ ...json(mover(p)), name: 'second' });
      },
      /one container, move-manifest/,
    ],
    [
      'args after the script',
      (p: Pod) => {
        mover(p).args = ['x'];
      },
      /no args/,
    ],
    [
      'a postStart hook',
      (p: Pod) => {
        mover(p).lifecycle = { postStart: { exec: { command: ['/bin/sh', '-c', EVIL_STATIC_POD] } } };
      },
      /lifecycle hooks/,
    ],
    [
      'an exec probe',
      (p: Pod) => {
        mover(p).livenessProbe = { exec: { command: ['/bin/sh', '-c', EVIL_STATIC_POD] } };
      },
      /probes/,
    ],
    [
      'no remediation labels',
      (p: Pod) => {
        delete p.metadata.labels;
      },
      /labelled app.kubernetes.io\/name=etcd-doctor/,
    ],
    [
      'an SELinux type',
      (p: Pod) => {
        (mover(p).securityContext as Record<string, unknown>).seLinuxOptions = { type: 'spc_t' };
      },
      /no SELinux/,
    ],
    [
      'a privileged container',
      (p: Pod) => {
        (mover(p).securityContext as Record<string, unknown>).privileged = true;
      },
      /no privileged container/,
    ],
    [
      'host networking',
      (p: Pod) => {
        p.spec.hostNetwork = true;
      },
      /no host network/,
    ],
    [
      'host PID',
      (p: Pod) => {
        p.spec.hostPID = true;
      },
      /no host network, PID/,
    ],
    [
      'an image by tag',
      (p: Pod) => {
        mover(p).image = 'busybox:1.36';
      },
      /pinned by digest/,
    ],
    [
      'a service-account token',
      (p: Pod) => {
        delete p.spec.automountServiceAccountToken;
      },
      /no service-account token/,
    ],
    [
      'no nodeName',
      (p: Pod) => {
        delete p.spec.nodeName;
      },
      /pinned to one node/,
    ],
    [
      'a hostPath of the whole root',
      (p: Pod) => {
        p.spec.volumes = [{ name: 'root', hostPath: { path: '/' } }];
      },
      /exactly one volume/,
    ],
    [
      'a second volume',
      (p: Pod) => {
        p.spec.volumes.push({
          name: 'token',
          projected: { sources: [{ serviceAccountToken: { path: 'token' } }] },
        });
      },
      /exactly one volume/,
    ],
    [
      "the benchmark's hostPath on a pod",
      (p: Pod) => {
        p.spec.volumes = [{ name: 'bench', hostPath: { path: '/var/lib/etcd/etcd-doctor-fio' } }];
      },
      /exactly one volume/,
    ],
    [
      'an added capability',
      (p: Pod) => {
        (mover(p).securityContext as { capabilities: Record<string, unknown> }).capabilities.add = [
          'SYS_ADMIN',
        ];
      },
      /none added/,
    ],
    [
      'no securityContext at all',
      (p: Pod) => {
        delete mover(p).securityContext;
      },
      /no privileged container/,
    ],
    [
      'a host port',
      (p: Pod) => {
        mover(p).ports = [{ containerPort: 2379, hostPort: 2379 }];
      },
      /no host ports/,
    ],
  ])('deny a restart helper with %s', (_what, mutate, reason) => {
    const pod = helperPod();
    mutate(pod);
    expect(denials(pod).join('; ')).toMatch(reason);
  });

  it('deny every restart helper when the parameters lack the helper image', () => {
    expect(denials(helperPod(), { data: {} }).join('; ')).toMatch(/run only the configured helper image/);
  });

  const initOf = (j: Job) =>
    (j.spec.template.spec.initContainers ?? [])[0] as Record<string, unknown> & { command: string[] };
  const fioOf = (j: Job) =>
    j.spec.template.spec.containers[0] as Record<string, unknown> & { command: string[] };
  it.each([
    [
      'fio from another image',
      (j: Job) => {
        fioOf(j).image = OTHER_IMAGE;
      },
      /fio runs only the configured benchmark image/,
    ],
    [
      'fio writing to a device (an extra argument)',
      (j: Job) => {
        fioOf(j).command.push('--filename=/dev/sda');
      },
      /exactly the fio wrapper with etcd's fio arguments/,
    ],
    [
      'fio arguments as args',
      (j: Job) => {
        fioOf(j).args = ['--filename=/dev/sda'];
      },
      /no args/,
    ],
    [
      'another space check command',
      (j: Job) => {
        initOf(j).command = ['/bin/sh', '-c', 'rm -rf /bench/..'];
      },
      /exactly the space check script/,
    ],
    [
      'a space check from another image',
      (j: Job) => {
        initOf(j).image = OTHER_IMAGE;
      },
      /run only the configured helper image/,
    ],
    [
      'a second init container',
      (j: Job) => {
        j.spec.template.spec.initContainers?.push({ ...json(initOf(j)), name: 'second' });
      },
      /one init container, check-space/,
    ],
    [
      'ten pods at once',
      (j: Job) => {
        j.spec.parallelism = 10;
        j.spec.completions = 10;
      },
      /runs one pod/,
    ],
    [
      'a manual selector (adopting other pods)',
      (j: Job) => {
        j.spec.manualSelector = true;
        j.spec.selector = { matchLabels: { component: 'etcd' } };
      },
      /selects only its own pods/,
    ],
    [
      'a privileged init container',
      (j: Job) => {
        (initOf(j).securityContext as Record<string, unknown>).privileged = true;
      },
      /no privileged container/,
    ],
    [
      'the manifests mounted',
      (j: Job) => {
        j.spec.template.spec.volumes = [{ name: 'm', hostPath: { path: '/etc/kubernetes/manifests' } }];
      },
      /exactly one volume/,
    ],
  ])('deny a benchmark Job with %s', (_what, mutate, reason) => {
    const job = benchJob();
    mutate(job);
    expect(denials(job).join('; ')).toMatch(reason);
  });
});

/**
 * Issue 38 L2: the remediation Role may delete pods and Jobs in kube-system, and RBAC cannot name
 * the ones etcd-doctor made; the policies covered create and update only, so the worker's
 * credentials could delete kube-apiserver's mirror pod or anyone's Job. The delete policy, evaluated
 * on DELETE requests (`object` is null, the stored object is `oldObject`), as the API server does.
 */
describe('the delete policy', () => {
  interface DeletePolicy extends Policy {
    matchConstraints: { resourceRules: Array<{ operations: string[]; resources: string[] }> };
  }
  const policy = () =>
    (
      findObject(objects, 'ValidatingAdmissionPolicy', 'etcd-doctor-remediation-delete') as unknown as {
        spec: DeletePolicy;
      }
    ).spec;
  const deleteDenials = (oldObject: unknown, username = WORKER): string[] => {
    const { matchConditions, validations } = policy();
    const request = { userInfo: { username }, operation: 'DELETE' };
    if (!matchConditions.every((m) => evaluate(m.expression, { request }) === true)) return [];
    return validations.flatMap((v) => {
      try {
        return evaluate(v.expression, { object: null, oldObject }) === true ? [] : [v.message];
      } catch (err) {
        return [`${v.message} (error: ${(err as Error).message})`];
      }
    });
  };
  const mirrorPod = {
    metadata: {
      name: 'kube-apiserver-master-1',
      namespace: 'kube-system',
      labels: { component: 'kube-apiserver', tier: 'control-plane' },
    },
  };
  const someJob = {
    metadata: { name: 'etcd-doctor-fio-abc', namespace: 'kube-system', labels: { app: 'backup' } },
  };

  it('matches DELETE of pods and Jobs, bound to kube-system', () => {
    expect(policy().matchConstraints.resourceRules.map((r) => [r.operations, r.resources])).toEqual([
      [['DELETE'], ['pods']],
      [['DELETE'], ['jobs']],
    ]);
    expect(
      findObject(objects, 'ValidatingAdmissionPolicyBinding', 'etcd-doctor-remediation-delete'),
    ).toMatchObject({
      spec: {
        policyName: 'etcd-doctor-remediation-delete',
        validationActions: ['Deny'],
        matchResources: {
          namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'kube-system' } },
        },
      },
    });
  });

  it("admits the worker's delete of the helper pod and the benchmark Job the actions build", () => {
    expect(deleteDenials(helperPod())).toEqual([]);
    expect(deleteDenials(benchJob())).toEqual([]);
  });

  it("denies the worker's delete of kube-apiserver's mirror pod, an unlabelled pod, and a Job named like its own", () => {
    const reason = /deletes only what it created/;
    expect(deleteDenials(mirrorPod).join('; ')).toMatch(reason);
    expect(deleteDenials({ metadata: { name: 'x', namespace: 'kube-system' } }).join('; ')).toMatch(reason);
    expect(deleteDenials(someJob).join('; ')).toMatch(reason);
  });

  it('leaves everyone else alone (an admin, the garbage collector)', () => {
    expect(deleteDenials(mirrorPod, 'kubernetes-admin')).toEqual([]);
    expect(deleteDenials(mirrorPod, 'system:serviceaccount:kube-system:generic-garbage-collector')).toEqual(
      [],
    );
  });
});
