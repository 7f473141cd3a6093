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
      expect({ target, rbac }).toEqual({
        target,
        rbac: target.startsWith('components/')
          ? []
          : ['ClusterRole etcd-doctor-readonly', 'ClusterRoleBinding etcd-doctor-readonly'],
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
      'ValidatingAdmissionPolicy etcd-doctor-remediation-images',
      'ValidatingAdmissionPolicyBinding etcd-doctor-remediation',
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
