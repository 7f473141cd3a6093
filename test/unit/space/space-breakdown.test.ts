import { describe, expect, it } from '@jest/globals';
import { breakDownSpace, placeKey } from '../../../src/space/space-breakdown.js';

describe('placeKey: the Kubernetes key layout', () => {
  it.each([
    [
      '/registry/configmaps/kube-system/coredns',
      { resource: 'configmaps', prefix: '/registry/configmaps/', namespace: 'kube-system' },
    ],
    ['/registry/namespaces/default', { resource: 'namespaces', prefix: '/registry/namespaces/' }],
    [
      '/kubernetes.io/events/openshift-etcd/etcd-m1.17a',
      { resource: 'events', prefix: '/kubernetes.io/events/', namespace: 'openshift-etcd' },
    ],
    [
      '/registry/example.com/widgets/ns/name',
      { resource: 'widgets.example.com', prefix: '/registry/example.com/widgets/', namespace: 'ns' },
    ],
    [
      '/registry/apiregistration.k8s.io/apiservices/v1.apps',
      {
        resource: 'apiservices.apiregistration.k8s.io',
        prefix: '/registry/apiregistration.k8s.io/apiservices/',
      },
    ],
    [
      '/registry/services/specs/default/kubernetes',
      { resource: 'services', prefix: '/registry/services/specs/', namespace: 'default' },
    ],
    [
      '/registry/services/endpoints/default/kubernetes',
      { resource: 'endpoints', prefix: '/registry/services/endpoints/', namespace: 'default' },
    ],
    [
      '/openshift.io/routes/app/web',
      { resource: 'routes', prefix: '/openshift.io/routes/', namespace: 'app' },
    ],
    ['/foo/bar/baz/qux', { resource: '/foo/bar', prefix: '/foo/bar/' }],
    ['compact_rev_key', { resource: 'compact_rev_key', prefix: 'compact_rev_key' }],
  ])('%s', (key, place) => {
    expect(placeKey(key)).toEqual(place);
  });

  it('takes a configured prefix', () => {
    expect(placeKey('/k3s/pods/default/web', ['/k3s/'])).toEqual({
      resource: 'pods',
      prefix: '/k3s/pods/',
      namespace: 'default',
    });
    expect(placeKey('/registry/pods/default/web', ['/k3s/']).resource).toBe('/registry/pods');
  });
});

describe('breakDownSpace', () => {
  const entries = [
    { key: '/registry/events/ns-a/e1', bytes: 100 },
    { key: '/registry/events/ns-a/e2', bytes: 100 },
    { key: '/registry/events/ns-b/e3', bytes: 100 },
    { key: '/registry/configmaps/ns-b/big', bytes: 5000 },
    { key: '/registry/example.com/widgets/ns-a/w1', bytes: 300 },
    { key: '/kubernetes.io/pods/ns-c/p1', bytes: 200 },
    { key: '/registry/namespaces/ns-a', bytes: 50 },
  ];

  it('ranks resources by bytes, with keys and the share of all bytes', () => {
    const b = breakDownSpace(entries);
    expect(b.totalKeys).toBe(7);
    expect(b.totalBytes).toBe(5850);
    expect(b.byResource.map((r) => [r.resource, r.keys, r.bytes])).toEqual([
      ['configmaps', 1, 5000],
      ['events', 3, 300],
      ['widgets.example.com', 1, 300],
      ['pods', 1, 200],
      ['namespaces', 1, 50],
    ]);
    expect(b.byResource[0]?.share).toBeCloseTo(5000 / 5850, 4);
    expect(b.byResource.find((r) => r.resource === 'pods')?.prefix).toBe('/kubernetes.io/pods/');
  });

  it('namespaces within the top resources; cluster-scoped objects have none', () => {
    const b = breakDownSpace(entries, { topResources: 2 });
    expect(b.byNamespace).toEqual([
      { resource: 'configmaps', namespace: 'ns-b', keys: 1, bytes: 5000 },
      { resource: 'events', namespace: 'ns-a', keys: 2, bytes: 200 },
      { resource: 'events', namespace: 'ns-b', keys: 1, bytes: 100 },
    ]);
  });

  it('names the largest objects, largest first, at most n', () => {
    const b = breakDownSpace(entries, { largest: 2 });
    expect(b.largest).toEqual([
      { key: '/registry/configmaps/ns-b/big', bytes: 5000, resource: 'configmaps' },
      { key: '/registry/example.com/widgets/ns-a/w1', bytes: 300, resource: 'widgets.example.com' },
    ]);
  });

  it('an empty store has empty lists', () => {
    expect(breakDownSpace([])).toEqual({
      totalKeys: 0,
      totalBytes: 0,
      byResource: [],
      byNamespace: [],
      largest: [],
    });
  });
});
