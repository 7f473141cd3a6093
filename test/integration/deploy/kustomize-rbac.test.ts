import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parseAllDocuments } from 'yaml';
import {
  objectsOf,
  REPO_ROOT,
  readOnlyViolations,
  renderAllTargets,
  rulesOf,
  type Target,
} from '../../support/deploy/deploy-manifests.js';
import { describeObject, findObject, type KubeObject } from '../../support/deploy/kustomize.js';
import { KUBEADM_LAYOUT, OPENSHIFT_LAYOUT } from '../../../src/probes/kubernetes/layout.js';

/** Least privilege: read-only by default, the mutating role only when someone opts in. */

let rendered: Map<Target, KubeObject[]>;
beforeAll(() => {
  rendered = renderAllTargets(process.env);
});

const RBAC_KINDS = ['Role', 'ClusterRole', 'RoleBinding', 'ClusterRoleBinding'];
const WORKER = { kind: 'ServiceAccount', name: 'etcd-doctor-worker', namespace: 'etcd-doctor' };

function yamlFilesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return yamlFilesUnder(path);
    return /\.ya?ml$/.test(entry.name) ? [path] : [];
  });
}

describe('the read-only ClusterRole', () => {
  it('has no secrets access, no wildcards and no write verbs', () => {
    const role = findObject(
      objectsOf(rendered, 'overlays/socket-mode'),
      'ClusterRole',
      'etcd-doctor-readonly',
    );
    expect(rulesOf(role).length).toBeGreaterThan(0);
    expect(readOnlyViolations(rulesOf(role))).toEqual([]);
    for (const rule of rulesOf(role)) expect(['get', 'list']).toEqual(expect.arrayContaining(rule.verbs));
  });

  it('the check catches secrets, wildcards and every write verb', () => {
    const bad = [
      { apiGroups: [''], resources: ['secrets'], verbs: ['get'] },
      { apiGroups: ['*'], resources: ['pods'], verbs: ['list'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['create', 'patch', 'delete', 'escalate', 'bind'] },
      { nonResourceURLs: ['/metrics*'], verbs: ['get'] },
      {
        apiGroups: [''],
        resources: ['serviceaccounts'],
        verbs: ['impersonate', 'deletecollection', 'update'],
      },
    ];
    expect(readOnlyViolations(bad)).toEqual([
      'rule 0: secrets',
      'rule 1: wildcard',
      'rule 2: create',
      'rule 2: patch',
      'rule 2: delete',
      'rule 2: escalate',
      'rule 2: bind',
      'rule 3: wildcard',
      'rule 4: impersonate',
      'rule 4: deletecollection',
      'rule 4: update',
    ]);
  });

  it('is bound to the worker only, in every overlay', () => {
    for (const target of ['base', 'overlays/socket-mode', 'overlays/http'] as const) {
      const binding = findObject(objectsOf(rendered, target), 'ClusterRoleBinding', 'etcd-doctor-readonly');
      expect(binding).toMatchObject({
        roleRef: { kind: 'ClusterRole', name: 'etcd-doctor-readonly' },
        subjects: [WORKER],
      });
    }
  });

  it('exists once in deploy/: the base holds the only copy', () => {
    const copies = yamlFilesUnder(join(REPO_ROOT, 'deploy')).filter((file) =>
      parseAllDocuments(readFileSync(file, 'utf8')).some((doc) => {
        const o = doc.toJS() as { kind?: unknown; metadata?: { name?: unknown } } | null;
        return o?.kind === 'ClusterRole' && o.metadata?.name === 'etcd-doctor-readonly';
      }),
    );
    expect(copies.map((f) => f.slice(REPO_ROOT.length))).toEqual([
      'deploy/kubernetes/base/clusterrole-readonly.yaml',
    ]);
  });
});

/**
 * Issue 38 L7: the read-only ClusterRole read pods, their logs and events in every namespace. Now a
 * ClusterRoleBinding grants only what has no namespace (and the backup CronJobs and Jobs); pods,
 * logs, events and leases come from RoleBindings in exactly the namespaces the probes read
 * (src/probes/kubernetes/layout.ts, and node events in `default`).
 */
describe('what the worker reads inside namespaces', () => {
  const INSIDE = ['pods', 'pods/log', 'events', 'leases'];
  const grantsInside = (role: KubeObject) =>
    rulesOf(role).some((r) => r.resources?.some((resource) => INSIDE.includes(resource)));
  /** namespace -> ClusterRole of every RoleBinding to the worker; and the ClusterRoles bound cluster-wide. */
  function bindings(objects: readonly KubeObject[]) {
    const toWorker = (o: KubeObject) =>
      ((o as { subjects?: Array<{ name: string }> }).subjects ?? []).some((x) => x.name === WORKER.name);
    const roleOf = (o: KubeObject) => (o as unknown as { roleRef: { name: string } }).roleRef.name;
    const perNamespace = objects
      .filter((o) => o.kind === 'RoleBinding' && toWorker(o) && !/remediation/.test(o.metadata.name))
      .map((o) => `${o.metadata.namespace}: ${roleOf(o)}`)
      .sort();
    const clusterWide = objects.filter((o) => o.kind === 'ClusterRoleBinding' && toWorker(o)).map(roleOf);
    return { perNamespace, clusterWide };
  }
  const expected = (layout: typeof KUBEADM_LAYOUT, events: string[]) =>
    [
      ...new Set([
        ...layout.podSelectors.map((p) => p.namespace),
        ...layout.leases.map((l) => l.namespace),
        ...layout.eventNamespaces,
        ...Object.values(layout.mirrorPods).map((m) => m.namespace),
      ]),
    ]
      .map((ns) => `${ns}: etcd-doctor-readonly-control-plane`)
      .concat(events.map((ns) => `${ns}: etcd-doctor-readonly-events`))
      .sort();

  it('no ClusterRoleBinding grants pods, logs, events or leases', () => {
    for (const target of ['overlays/socket-mode', 'overlays/http', 'install'] as const) {
      const objects = objectsOf(rendered, target);
      for (const name of bindings(objects).clusterWide)
        expect({ target, name, inside: grantsInside(findObject(objects, 'ClusterRole', name)) }).toEqual({
          target,
          name,
          inside: false,
        });
    }
  });

  it('kubeadm (the overlays): exactly the namespaces the kubeadm layout reads, and node events in default', () => {
    for (const target of ['overlays/socket-mode', 'overlays/http', 'install'] as const)
      expect(bindings(objectsOf(rendered, target)).perNamespace).toEqual(
        expected(KUBEADM_LAYOUT, ['default']),
      );
  });

  it('OpenShift (added to an overlay): the OpenShift layout, events only in its operator namespaces', () => {
    const both = [
      ...objectsOf(rendered, 'overlays/http'),
      ...objectsOf(rendered, 'control-plane-namespaces/openshift'),
    ];
    const kubeadmAndOpenShift = [
      ...new Set([
        ...expected(KUBEADM_LAYOUT, ['default']),
        ...expected(OPENSHIFT_LAYOUT, [...OPENSHIFT_LAYOUT.operatorNamespaces, 'default']),
      ]),
    ].sort();
    expect(bindings(both).perNamespace).toEqual(kubeadmAndOpenShift);
  });
});

describe('the remediation role', () => {
  it('is not in the base, the overlays or the other components', () => {
    const targets = [
      'base',
      'overlays/socket-mode',
      'overlays/http',
      'components/servicemonitor',
      'components/ingress',
      'components/mcp',
    ] as const;
    for (const target of targets) {
      const rbac = objectsOf(rendered, target)
        .filter((o) => RBAC_KINDS.includes(o.kind))
        .map(describeObject);
      const readOnly = [
        'ClusterRole etcd-doctor-readonly',
        'ClusterRole etcd-doctor-readonly-control-plane',
        'ClusterRole etcd-doctor-readonly-events',
        'ClusterRoleBinding etcd-doctor-readonly',
      ];
      const perNamespace = [
        'RoleBinding default/etcd-doctor-readonly',
        'RoleBinding kube-system/etcd-doctor-readonly',
      ];
      expect({ target, rbac: rbac.sort() }).toEqual({
        target,
        rbac: target.startsWith('components/')
          ? []
          : target === 'base'
            ? readOnly
            : [...readOnly, ...perNamespace].sort(),
      });
    }
  });

  it('grants exactly what the remediation actions need, in kube-system', () => {
    const objects = objectsOf(rendered, 'components/remediation');
    expect(objects.map(describeObject).sort()).toEqual([
      'ClusterRole etcd-doctor-remediation-openshift',
      'ClusterRoleBinding etcd-doctor-remediation-openshift',
      'ConfigMap kube-system/etcd-doctor-remediation',
      'Role kube-system/etcd-doctor-remediation',
      'RoleBinding kube-system/etcd-doctor-remediation',
      'ValidatingAdmissionPolicy etcd-doctor-remediation',
      'ValidatingAdmissionPolicy etcd-doctor-remediation-delete',
      'ValidatingAdmissionPolicy etcd-doctor-remediation-images',
      'ValidatingAdmissionPolicyBinding etcd-doctor-remediation',
      'ValidatingAdmissionPolicyBinding etcd-doctor-remediation-delete',
      'ValidatingAdmissionPolicyBinding etcd-doctor-remediation-images',
    ]);
    // Node-pinned restart pods and fio Jobs, and their logs. Nothing cluster-wide, no secrets, no exec.
    expect(rulesOf(findObject(objects, 'Role', 'etcd-doctor-remediation'))).toEqual([
      { apiGroups: [''], resources: ['pods'], verbs: ['create', 'delete'] },
      { apiGroups: [''], resources: ['pods/log'], verbs: ['get'] },
      { apiGroups: ['batch'], resources: ['jobs'], verbs: ['create', 'delete'] },
      // The admission policy's parameters, read by `etcd-doctor preflight`; only that one ConfigMap.
      {
        apiGroups: [''],
        resources: ['configmaps'],
        resourceNames: ['etcd-doctor-remediation'],
        verbs: ['get'],
      },
    ]);
    // OpenShift: forceRedeploymentReason on the operator singletons only.
    expect(rulesOf(findObject(objects, 'ClusterRole', 'etcd-doctor-remediation-openshift'))).toEqual([
      {
        apiGroups: ['operator.openshift.io'],
        resources: ['etcds', 'kubeapiservers', 'kubecontrollermanagers', 'kubeschedulers'],
        resourceNames: ['cluster'],
        verbs: ['patch'],
      },
    ]);
    for (const binding of objects.filter((o) => /^(Cluster)?RoleBinding$/.test(o.kind))) {
      expect(binding).toMatchObject({ subjects: [WORKER] });
    }
  });

  it('is in an install only when listed there, and keeps its namespace', () => {
    const objects = objectsOf(rendered, 'install');
    expect(findObject(objects, 'Role', 'etcd-doctor-remediation').metadata.namespace).toBe('kube-system');
    expect(findObject(objects, 'RoleBinding', 'etcd-doctor-remediation').metadata.namespace).toBe(
      'kube-system',
    );
  });
});
