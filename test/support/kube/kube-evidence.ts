import { afterAll, beforeAll } from '@jest/globals';
import { loadKubernetesClients } from '../../../src/clients/kubernetes.js';
import type { KubeProbeSettings } from '../../../src/probes/kubernetes/context.js';
import { collectKubernetesEvidence } from '../../../src/probes/kubernetes/collect.js';
import type { KubernetesEvidence } from '../../../src/probes/kubernetes/evidence.js';
import type { Evidence } from '../../../src/probes/evidence.js';
import { type MemberSpec, member, ok } from '../evidence/evidence.js';
import { type DelayRule, type FakeKubeApi, type ForbidRule, startFakeKubeApi } from './fake-kube-api.js';
import { writeFakeKubeconfig } from './fake-kubeconfig.js';
import { readFile } from 'node:fs/promises';

/** etcd members of the kubeadm fixtures: kubeadm names each member after its node. */
export const KUBEADM_MEMBERS = [
  { name: 'master-1', id: '8e9e05c52164694d' },
  { name: 'master-2', id: 'd7523d07ecd5d55e' },
  { name: 'master-3', id: 'b366cbcd316c915f' },
] as const;

/** etcd members of the OpenShift fixtures (`ETCD_NAME` is the node name). */
export const OPENSHIFT_MEMBERS = [
  { name: 'master-0', id: '4e2a1c7f9b3d5e60' },
  { name: 'master-1', id: '7a9c3e1f5b2d4c81' },
  { name: 'master-2', id: 'c1d3e5f7a9b2c4d6' },
] as const;

/**
 * The etcd half of an Evidence, in the shapes the etcd probes produce, for tests that exercise
 * the Kubernetes half against the fake apiserver. Members answer and are healthy unless overridden.
 */
export function etcdPart(
  members: ReadonlyArray<{ name: string; id: string }>,
  overrides: Record<string, Partial<MemberSpec>> = {},
  collectedAt = Date.parse('2024-05-14T09:30:00Z'),
): Evidence {
  const leaderId = members[0]?.id ?? '0';
  const built = members.map((m, i) => {
    const probed = member({ name: m.name, id: m.id, leaderId, ...overrides[m.name] });
    const endpoint = `https://127.20.0.${11 + i}:2379`;
    return { ...probed, target: { ...probed.target, endpoint, metricsUrl: `${endpoint}/metrics` } };
  });
  return {
    cluster: 'test',
    collectedAt,
    memberList: ok(
      built.map((m) => ({
        id: m.target.id ?? '',
        name: m.target.name,
        peerUrls: [m.target.endpoint.replace(/2379$/, '2380')],
        clientUrls: [m.target.endpoint],
        isLearner: false,
      })),
    ),
    alarms: ok([]),
    members: built,
    probes: [],
    timeoutMs: 3000,
  };
}

export function withKubernetes(evidence: Evidence, kubernetes: KubernetesEvidence): Evidence {
  return { ...evidence, kubernetes: { ok: true, data: kubernetes, durationMs: 10 } };
}

export interface ScenarioRun {
  fake: FakeKubeApi;
  kubernetes: KubernetesEvidence;
  /** The fixture's recording time: use it as "now" for the rules. */
  now: number;
  /** Wall time of the collection. */
  elapsedMs: number;
}

export interface ScenarioOptions {
  forbid?: ForbidRule[];
  delays?: DelayRule[];
  settings?: Partial<KubeProbeSettings>;
  clusterName?: string;
  /** Pod logs served instead of the fixture's, by `namespace/pod/container`. */
  logs?: Record<string, string>;
}

/** Starts the fake on a fixture, loads real clients from a written kubeconfig, and collects. */
/**
 * collectScenario before the enclosing describe block's tests, and the fake apiserver closed after
 * them. The fields read through to the run once it exists (inside tests and hooks).
 */
export function useScenario(fixture: string, opts: ScenarioOptions = {}): ScenarioRun {
  let run: ScenarioRun | undefined;
  beforeAll(async () => {
    run = await collectScenario(fixture, opts);
  });
  afterAll(() => run?.fake.close());
  const started = (): ScenarioRun => {
    if (!run) throw new Error(`scenario ${fixture} is collected in beforeAll: read it inside a test or hook`);
    return run;
  };
  return {
    get fake() {
      return started().fake;
    },
    get kubernetes() {
      return started().kubernetes;
    },
    get now() {
      return started().now;
    },
    get elapsedMs() {
      return started().elapsedMs;
    },
  };
}

export async function collectScenario(fixture: string, opts: ScenarioOptions = {}): Promise<ScenarioRun> {
  const fake = await startFakeKubeApi({
    fixture,
    ...(opts.forbid ? { forbid: opts.forbid } : {}),
    ...(opts.delays ? { delays: opts.delays } : {}),
  });
  try {
    for (const [at, text] of Object.entries(opts.logs ?? {})) {
      const [namespace = '', pod = '', container = ''] = at.split('/');
      fake.setLog(namespace, pod, container, text);
    }
    const kubeconfig = await writeFakeKubeconfig(fake.url, {
      token: fake.token,
      context: 'etcd-doctor@fake',
    });
    const clients = await loadKubernetesClients(
      { kubeconfig, context: 'etcd-doctor@fake' },
      { readFile: (p) => readFile(p, 'utf8') },
    );
    const now = fake.fixture.recordedAtMs;
    const started = performance.now();
    // A clock that reads the recording time when collection starts, and runs from there.
    const clock = () => now + Math.round(performance.now() - started);
    const kubernetes = await collectKubernetesEvidence(
      { name: opts.clusterName ?? 'test', kubernetes: { kubeconfig, context: 'etcd-doctor@fake' } },
      { clients, now: clock, ...(opts.settings ? { settings: opts.settings } : {}) },
    );
    return { fake, kubernetes, now, elapsedMs: performance.now() - started };
  } catch (err) {
    await fake.close();
    throw err;
  }
}
