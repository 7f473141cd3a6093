import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IPolicyRule } from 'kubernetes-models/rbac.authorization.k8s.io/v1';
import type { IContainer, IPodSpec } from 'kubernetes-models/v1';
import { findObject, type KubeObject, kubectlBinary, renderKustomization } from './kustomize.js';

export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const KUSTOMIZE_ROOT = join(REPO_ROOT, 'deploy', 'kubernetes');

/** Every kustomization shipped in deploy/kubernetes, plus `install`: an overlay built as the README says. */
export const TARGETS = [
  'base',
  'overlays/socket-mode',
  'overlays/http',
  'components/remediation',
  'components/servicemonitor',
  'components/ingress',
  'components/mcp',
  'components/redis-networkpolicy',
  'components/analyzer',
  'control-plane-namespaces/kubeadm',
  'control-plane-namespaces/openshift',
  'install',
] as const;
export type Target = (typeof TARGETS)[number];

/** What the README's user writes next to the checkout: the http overlay with every opt-in. */
export const INSTALL_CLUSTERS_FILE = `clusters:
  - name: local
    kubernetes: { inCluster: true }
    etcd:
      tls:
        caFile: /etc/etcd-doctor/etcd/ca.crt
        certFile: /etc/etcd-doctor/etcd/client.crt
        keyFile: /etc/etcd-doctor/etcd/client.key
  - name: prod
    etcd:
      endpoints: [https://etcd-0.etcd.prod.svc:2379]
    kubernetes: { kubeconfig: /etc/etcd-doctor/kube/prod.kubeconfig }
offline:
  analysisIn: analyzer
`;

function writeInstallOverlay(dir: string): void {
  const from = (path: string) => relative(dir, join(KUSTOMIZE_ROOT, path));
  writeFileSync(join(dir, 'etcd-doctor.yaml'), INSTALL_CLUSTERS_FILE);
  writeFileSync(
    join(dir, 'ingress-host.yaml'),
    '- op: replace\n  path: /spec/rules/0/host\n  value: etcd-doctor.platform.example.com\n' +
      '- op: replace\n  path: /spec/tls/0/hosts/0\n  value: etcd-doctor.platform.example.com\n',
  );
  writeFileSync(
    join(dir, 'kustomization.yaml'),
    `bases:
  - ${from('overlays/http')}
  - ${from('components/ingress')}
  - ${from('components/servicemonitor')}
  - ${from('components/remediation')}
  - ${from('components/mcp')}
  - ${from('components/redis-networkpolicy')}
  - ${from('components/analyzer')}
configMapGenerator:
  - name: etcd-doctor-config
    behavior: replace
    files:
      - etcd-doctor.yaml
images:
  - name: etcd-doctor
    newName: registry.example.com/platform/etcd-doctor
    newTag: 0.1.0
patchesJson6902:
  - target: { group: networking.k8s.io, version: v1, kind: Ingress, name: etcd-doctor }
    path: ingress-host.yaml
`,
  );
}

/** Renders every target with kubectl kustomize. Throws, with what to install, when kubectl is missing. */
export function renderAllTargets(env: Record<string, string | undefined>): Map<Target, KubeObject[]> {
  const kubectl = kubectlBinary(env);
  const installDir = mkdtempSync(join(tmpdir(), 'etcd-doctor-install-'));
  try {
    writeInstallOverlay(installDir);
    return new Map(
      TARGETS.map((target) => [
        target,
        renderKustomization(kubectl, target === 'install' ? installDir : join(KUSTOMIZE_ROOT, target)),
      ]),
    );
  } finally {
    rmSync(installDir, { recursive: true, force: true });
  }
}

export function objectsOf(rendered: Map<Target, KubeObject[]>, target: Target): KubeObject[] {
  const objects = rendered.get(target);
  if (!objects) throw new Error(`${target} was not rendered`);
  return objects;
}

/** Deployments of a rendering; call after the schema test has validated them. */
export function deploymentsOf(objects: readonly KubeObject[]): IDeployment[] {
  return objects.filter((o) => o.kind === 'Deployment') as unknown as IDeployment[];
}

export function deploymentNamed(objects: readonly KubeObject[], name: string): IDeployment {
  return findObject(objects, 'Deployment', name) as unknown as IDeployment;
}

export function podSpecOf(deployment: IDeployment): IPodSpec {
  const spec = deployment.spec?.template.spec;
  if (!spec) throw new Error(`Deployment ${deployment.metadata?.name} has no pod spec`);
  return spec;
}

export function containerOf(deployment: IDeployment, name: string): IContainer {
  const container = podSpecOf(deployment).containers.find((c) => c.name === name);
  if (!container) throw new Error(`Deployment ${deployment.metadata?.name} has no container ${name}`);
  return container;
}

export function rulesOf(object: KubeObject): IPolicyRule[] {
  return (object as { rules?: IPolicyRule[] }).rules ?? [];
}

/** Verbs that change something, or that widen access (escalate, bind, impersonate). */
export const WRITE_VERBS = [
  'create',
  'update',
  'patch',
  'delete',
  'deletecollection',
  'escalate',
  'bind',
  'impersonate',
] as const;

/** Why a role is not read-only: secrets, wildcards, or write verbs. Empty when it is. */
export function readOnlyViolations(rules: readonly IPolicyRule[]): string[] {
  return rules.flatMap((rule, i) => {
    const problems: string[] = [];
    const fields = [rule.apiGroups, rule.resources, rule.verbs, rule.nonResourceURLs, rule.resourceNames];
    if (fields.some((values) => values?.some((v) => v.includes('*')))) problems.push(`rule ${i}: wildcard`);
    if (rule.resources?.some((r) => r === 'secrets' || r.startsWith('secrets/')))
      problems.push(`rule ${i}: secrets`);
    for (const verb of rule.verbs) {
      if ((WRITE_VERBS as readonly string[]).includes(verb)) problems.push(`rule ${i}: ${verb}`);
    }
    return problems;
  });
}

const LOOPBACK_V4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;
const IPV4 = /\b\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}\b/g;
const URL_HOST = /\b[a-z][a-z0-9+.-]*:\/\/(?:[^@/\s]*@)?(\[[0-9a-f:]+\]|[A-Za-z0-9.-]+)/gi;

function isClusterAddress(host: string): boolean {
  return (
    LOOPBACK_V4.test(host) ||
    host === 'localhost' ||
    host === '[::1]' ||
    /\.svc(\.cluster\.local)?$/.test(host)
  );
}

/** IP literals and URL hosts in a text that are neither loopback nor a cluster DNS name. */
export function foreignAddresses(text: string): string[] {
  const ips = [...text.matchAll(IPV4)].map((m) => m[0]).filter((ip) => !LOOPBACK_V4.test(ip));
  const hosts = [...text.matchAll(URL_HOST)]
    .map((m) => m[1] ?? '')
    .filter((host) => host !== '' && !isClusterAddress(host));
  return [...ips, ...hosts];
}
