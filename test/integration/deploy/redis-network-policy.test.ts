import { beforeAll, describe, expect, it } from '@jest/globals';
import {
  deploymentNamed,
  objectsOf,
  renderAllTargets,
  type Target,
} from '../../support/deploy/deploy-manifests.js';
import { findObject, type KubeObject } from '../../support/deploy/kustomize.js';

/**
 * Issue 38 item 3: only etcd-doctor's pods reach its Redis. The rendered NetworkPolicy of
 * components/redis-networkpolicy, evaluated as the NetworkPolicy API defines it (a selected pod
 * accepts ingress that some rule admits: a `from` peer and a port; a podSelector without a
 * namespaceSelector means the policy's own namespace), against the bot and worker pod templates as
 * the overlays render them, Redis pods, and pods that are not etcd-doctor's.
 */
interface Selector {
  matchLabels?: Record<string, string>;
  matchExpressions?: Array<{
    key: string;
    operator: 'In' | 'NotIn' | 'Exists' | 'DoesNotExist';
    values?: string[];
  }>;
}
interface Peer {
  podSelector?: Selector;
  namespaceSelector?: Selector;
}
interface NetworkPolicy {
  metadata: { namespace: string };
  spec: {
    podSelector: Selector;
    policyTypes: string[];
    ingress: Array<{ from?: Peer[]; ports?: Array<{ protocol: string; port: number }> }>;
  };
}
interface Pod {
  namespace: string;
  labels: Record<string, string>;
}

function matches(selector: Selector, labels: Record<string, string>): boolean {
  const byLabel = Object.entries(selector.matchLabels ?? {}).every(([k, v]) => labels[k] === v);
  const byExpression = (selector.matchExpressions ?? []).every((e) => {
    const value = labels[e.key];
    if (e.operator === 'In') return value !== undefined && (e.values ?? []).includes(value);
    if (e.operator === 'NotIn') return value === undefined || !(e.values ?? []).includes(value);
    if (e.operator === 'Exists') return value !== undefined;
    return value === undefined;
  });
  return byLabel && byExpression;
}

/** Whether `from` may open a TCP connection to `to` on `port` under this one policy. */
function admitted(policy: NetworkPolicy, from: Pod, to: Pod, port: number): boolean {
  const selected = to.namespace === policy.metadata.namespace && matches(policy.spec.podSelector, to.labels);
  if (!selected || !policy.spec.policyTypes.includes('Ingress')) return true;
  const peerAdmits = (peer: Peer) => {
    const namespaceOk = peer.namespaceSelector
      ? matches(peer.namespaceSelector, { 'kubernetes.io/metadata.name': from.namespace })
      : from.namespace === policy.metadata.namespace;
    return namespaceOk && (!peer.podSelector || matches(peer.podSelector, from.labels));
  };
  return policy.spec.ingress.some(
    (rule) =>
      (!rule.from || rule.from.some(peerAdmits)) &&
      (!rule.ports || rule.ports.some((p) => p.protocol === 'TCP' && p.port === port)),
  );
}

let objects: KubeObject[];
let policy: NetworkPolicy;
beforeAll(() => {
  const rendered: Map<Target, KubeObject[]> = renderAllTargets(process.env);
  objects = objectsOf(rendered, 'install');
  policy = findObject(objects, 'NetworkPolicy', 'etcd-doctor-redis') as unknown as NetworkPolicy;
});

const podOf = (name: string): Pod => {
  const d = deploymentNamed(objects, name);
  return { namespace: d.metadata?.namespace ?? '', labels: d.spec?.template.metadata?.labels ?? {} };
};
const REDIS: Pod = { namespace: 'etcd-doctor', labels: { 'app.kubernetes.io/name': 'redis' } };

describe('the Redis NetworkPolicy (components/redis-networkpolicy, in an install)', () => {
  it("admits etcd-doctor's bot, worker and analyzer pods on Redis' and Sentinel's ports", () => {
    for (const name of ['etcd-doctor-bot', 'etcd-doctor-worker', 'etcd-doctor-analyzer'])
      for (const port of [6379, 26379])
        expect({ name, port, ok: admitted(policy, podOf(name), REDIS, port) }).toEqual({
          name,
          port,
          ok: true,
        });
  });

  it('admits Redis pods to each other on any port (replication, sentinels, the cluster bus)', () => {
    for (const port of [6379, 26379, 16379]) expect(admitted(policy, REDIS, REDIS, port)).toBe(true);
  });

  it('refuses every other pod: another app here, the same labels in another namespace, a pod with no labels', () => {
    const others: Pod[] = [
      { namespace: 'etcd-doctor', labels: { 'app.kubernetes.io/name': 'debug-shell' } },
      { namespace: 'etcd-doctor', labels: { 'app.kubernetes.io/name': 'etcd-doctor' } },
      { namespace: 'team-a', labels: podOf('etcd-doctor-worker').labels },
      { namespace: 'default', labels: {} },
    ];
    for (const from of others)
      expect({ from, ok: admitted(policy, from, REDIS, 6379) }).toEqual({ from, ok: false });
  });

  it("refuses the worker on a port that is not Redis'", () => {
    expect(admitted(policy, podOf('etcd-doctor-worker'), REDIS, 8080)).toBe(false);
  });

  it('selects the Redis pods of the etcd-doctor namespace, for ingress', () => {
    expect(policy.metadata.namespace).toBe('etcd-doctor');
    expect(policy.spec.policyTypes).toEqual(['Ingress']);
    expect(matches(policy.spec.podSelector, podOf('etcd-doctor-worker').labels)).toBe(false);
  });
});
