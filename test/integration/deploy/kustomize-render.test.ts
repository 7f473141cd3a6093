import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { beforeAll, describe, expect, it } from '@jest/globals';
import { parse } from 'yaml';
import { parseConfigText } from '../../../src/config/load-config.js';
import {
  containerOf,
  deploymentNamed,
  deploymentsOf,
  foreignAddresses,
  INSTALL_CLUSTERS_FILE,
  KUSTOMIZE_ROOT,
  objectsOf,
  podSpecOf,
  renderAllTargets,
  TARGETS,
  type Target,
} from '../../support/deploy/deploy-manifests.js';
import { schemaErrors } from '../../support/kube/kube-schemas.js';
import { describeObject, findObject, type KubeObject, stringsIn } from '../../support/deploy/kustomize.js';

/** deploy/kubernetes renders with kubectl kustomize, and every object is one the API server accepts. */

let rendered: Map<Target, KubeObject[]>;
beforeAll(() => {
  rendered = renderAllTargets(process.env);
});

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? filesUnder(path) : [path];
  });
}

function labelsMatch(
  selector: Record<string, string> | undefined,
  labels: Record<string, string> | undefined,
) {
  return Object.entries(selector ?? {}).every(([k, v]) => labels?.[k] === v);
}

describe('kubectl kustomize', () => {
  it('renders every overlay and component, and every object matches the Kubernetes schemas', () => {
    for (const target of TARGETS) {
      const objects = objectsOf(rendered, target);
      expect({ target, count: objects.length > 0 }).toEqual({ target, count: true });
      const errors = objects.flatMap((o) =>
        schemaErrors(o).map((e) => `${target}: ${describeObject(o)}: ${e}`),
      );
      expect(errors).toEqual([]);
    }
  });

  it('the schema check fails on a wrong type, a missing field and an unknown field', () => {
    const bad = {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: 'x' },
      spec: {
        selector: { matchLabels: { a: 'b' } },
        template: {
          spec: {
            containers: [{ name: 'c', readinesProbe: {}, securityContext: { runAsNonRoot: 'yes' } }],
          },
        },
      },
    };
    expect(schemaErrors(bad)).toEqual([
      expect.stringContaining('runAsNonRoot must be boolean'),
      'unknown field .spec.template.spec.containers[0].readinesProbe',
    ]);
    expect(schemaErrors({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' } })).toEqual([
      'no schema for v1 Pod: add it to test/support/kube-schemas.ts',
    ]);
  });

  it('kustomization files use only what kustomize v2.0.3 (Debian kubectl 1.20) understands', () => {
    const v2Fields = new Set([
      'apiVersion',
      'kind',
      'namespace',
      'bases',
      'resources',
      'patchesStrategicMerge',
      'patchesJson6902',
      'configMapGenerator',
      'images',
    ]);
    const kustomizations = filesUnder(KUSTOMIZE_ROOT).filter((f) => f.endsWith('kustomization.yaml'));
    expect(kustomizations.length).toBe(11);
    for (const file of kustomizations) {
      const k = parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
      expect({ file, kind: k.kind, unknown: Object.keys(k).filter((f) => !v2Fields.has(f)) }).toEqual({
        file,
        kind: 'Kustomization',
        unknown: [],
      });
      // v2 takes only files in `resources`; directories go in `bases`.
      for (const resource of (k.resources as string[] | undefined) ?? []) expect(resource).toMatch(/\.yaml$/);
    }
  });
});

describe('addresses', () => {
  it('are loopback or cluster DNS names, in every file and every rendered value', () => {
    for (const file of filesUnder(KUSTOMIZE_ROOT)) {
      expect({ file, foreign: foreignAddresses(readFileSync(file, 'utf8')) }).toEqual({ file, foreign: [] });
    }
    for (const target of TARGETS) {
      for (const { path, text } of objectsOf(rendered, target).flatMap((o) =>
        stringsIn(o, describeObject(o)),
      )) {
        expect({ path, foreign: foreignAddresses(text) }).toEqual({ path, foreign: [] });
      }
    }
  });

  it('the check flags private IPs and outside hosts', () => {
    const text = 'a: https://10.0.0.3:2379\nb: 192.168.1.5\nc: https://etcd.corp.internal:2379\n';
    const ok =
      'redis://:pw@redis.etcd-doctor.svc:6379 https://127.20.0.11:2379 http://x.y.svc.cluster.local:80';
    expect(foreignAddresses(text)).toEqual(['10.0.0.3', '192.168.1.5', '10.0.0.3', 'etcd.corp.internal']);
    expect(foreignAddresses(ok)).toEqual([]);
  });

  it('Ingress hosts are documentation placeholders (example.com)', () => {
    for (const target of TARGETS) {
      for (const ingress of objectsOf(rendered, target).filter((o) => o.kind === 'Ingress')) {
        const hosts = stringsIn((ingress as { spec?: unknown }).spec).filter(
          (s) => s.path.endsWith('host') || s.path.includes('.hosts'),
        );
        expect(hosts.length).toBeGreaterThan(0);
        for (const { text } of hosts) expect(text).toMatch(/(^|\.)example\.com$/);
      }
    }
  });
});

describe('the clusters file', () => {
  it('is mounted where ETCD_DOCTOR_CONFIG points, and the default one loads', () => {
    for (const target of ['base', 'overlays/socket-mode', 'overlays/http', 'install'] as const) {
      const objects = objectsOf(rendered, target);
      for (const deployment of deploymentsOf(objects)) {
        const pod = podSpecOf(deployment);
        const container = pod.containers[0]!;
        const path = container.env?.find((e) => e.name === 'ETCD_DOCTOR_CONFIG')?.value;
        const mount = container.volumeMounts?.find((m) => m.mountPath === path);
        const volume = pod.volumes?.find((v) => v.name === mount?.name);
        const map = findObject(objects, 'ConfigMap', volume?.configMap?.name ?? '(none)') as {
          data?: Record<string, string>;
        };
        const text = map.data?.[mount?.subPath ?? ''];
        expect({ target, mounted: mount?.readOnly, text: typeof text }).toEqual({
          target,
          mounted: true,
          text: 'string',
        });
        const config = parseConfigText(text ?? '', `${target} ${path}`);
        expect(config).toMatchObject({ ok: true });
        if (target === 'install') expect(text).toBe(INSTALL_CLUSTERS_FILE);
      }
    }
  });

  it('names certificate files the worker mounts read-only from the etcd client Secret', () => {
    const objects = objectsOf(rendered, 'base');
    const worker = deploymentNamed(objects, 'etcd-doctor-worker');
    const mounts = containerOf(worker, 'worker').volumeMounts ?? [];
    const volumes = podSpecOf(worker).volumes ?? [];
    const map = objects.find((o) => o.kind === 'ConfigMap') as { data?: Record<string, string> };
    const config = parseConfigText(map.data?.['etcd-doctor.yaml'] ?? '', 'base');
    if (!config.ok) throw new Error(config.error);
    const files = config.value.clusters
      .flatMap((c) => Object.values(c.etcd.tls ?? {}))
      .filter((f) => f !== undefined);
    expect(files.length).toBe(3);
    for (const file of files) {
      const mount = mounts.find((m) => m.mountPath === dirname(file));
      const secret = volumes.find((v) => v.name === mount?.name)?.secret;
      expect({ file, readOnly: mount?.readOnly, secret: secret?.secretName }).toEqual({
        file,
        readOnly: true,
        secret: 'etcd-doctor-etcd-client',
      });
    }
  });
});

describe('MCP for in-cluster assistants (components/mcp)', () => {
  it('reaches the workers only, which serve /mcp once the etcd-doctor-mcp Secret exists; the bots never get the token', () => {
    const objects = objectsOf(rendered, 'install');
    const service = findObject(objects, 'Service', 'etcd-doctor-mcp') as {
      spec?: { type?: string; selector?: Record<string, string> };
    };
    expect(service.spec).toMatchObject({ type: 'ClusterIP' });
    const selected = deploymentsOf(objects)
      .filter((d) => labelsMatch(service.spec?.selector, d.spec?.template.metadata?.labels))
      .map((d) => d.metadata?.name);
    expect(selected).toEqual(['etcd-doctor-worker']);
    const token = containerOf(deploymentNamed(objects, 'etcd-doctor-worker'), 'worker').env?.find(
      (e) => e.name === 'MCP_TOKEN',
    );
    expect(token?.valueFrom?.secretKeyRef).toEqual({
      name: 'etcd-doctor-mcp',
      key: 'MCP_TOKEN',
      optional: true,
    });
    for (const target of ['base', 'overlays/socket-mode', 'overlays/http', 'install'] as const) {
      const bot = deploymentNamed(objectsOf(rendered, target), 'etcd-doctor-bot');
      const env = podSpecOf(bot)
        .containers.flatMap((c) => c.env ?? [])
        .map((e) => e.name);
      expect({ target, mcp: env.includes('MCP_TOKEN') }).toEqual({ target, mcp: false });
    }
  });
});

describe('the analyzer for shared files (components/analyzer)', () => {
  it('runs `etcd-doctor analyzer` with no etcd certificate, no Kubernetes token, no kubeconfig and no signing key', () => {
    const objects = objectsOf(rendered, 'install');
    const analyzer = deploymentNamed(objects, 'etcd-doctor-analyzer');
    const pod = podSpecOf(analyzer);
    const container = containerOf(analyzer, 'analyzer');
    expect(container.args).toEqual(['analyzer']);
    expect(pod.automountServiceAccountToken).toBe(false);
    expect(pod.serviceAccountName).toBeUndefined();
    const secrets = (pod.volumes ?? []).flatMap((v) => (v.secret?.secretName ? [v.secret.secretName] : []));
    expect(secrets).toEqual(['etcd-doctor-redis-tls']);
    const env = (container.env ?? []).map((e) => e.name);
    for (const name of ['REMEDIATION_SIGNING_KEY', 'MCP_TOKEN', 'SLACK_APP_TOKEN', 'SLACK_SIGNING_SECRET'])
      expect({ name, present: env.includes(name) }).toEqual({ name, present: false });
    expect(container.envFrom ?? []).toEqual([]);
    // The worker, for contrast, holds the certificate the analyzer must not.
    const workerSecrets = (podSpecOf(deploymentNamed(objects, 'etcd-doctor-worker')).volumes ?? []).flatMap(
      (v) => (v.secret?.secretName ? [v.secret.secretName] : []),
    );
    expect(workerSecrets).toContain('etcd-doctor-etcd-client');
  });

  it("mounts the install's clusters file, which hands the analyze queue to it", () => {
    const objects = objectsOf(rendered, 'install');
    const volume = podSpecOf(deploymentNamed(objects, 'etcd-doctor-analyzer')).volumes?.find(
      (v) => v.name === 'config',
    );
    const map = findObject(objects, 'ConfigMap', volume?.configMap?.name ?? '') as {
      data?: Record<string, string>;
    };
    const config = parseConfigText(map.data?.['etcd-doctor.yaml'] ?? '', 'etcd-doctor.yaml');
    if (!config.ok) throw new Error(config.error);
    expect(config.value.offline?.analysisIn).toBe('analyzer');
  });
});

describe('Services, monitoring and ingress', () => {
  it('every Service, budget and ServiceMonitor selects something that exists', () => {
    const objects = objectsOf(rendered, 'install');
    const pods = deploymentsOf(objects).map((d) => d.spec?.template.metadata?.labels);
    const services = objects.filter((o) => o.kind === 'Service');
    for (const service of services) {
      const selector = (service as { spec?: { selector?: Record<string, string> } }).spec?.selector;
      expect({ service: service.metadata.name, selects: pods.some((p) => labelsMatch(selector, p)) }).toEqual(
        {
          service: service.metadata.name,
          selects: true,
        },
      );
    }
    const monitor = findObject(objects, 'ServiceMonitor', 'etcd-doctor') as KubeObject & {
      spec?: {
        selector?: { matchLabels?: Record<string, string> };
        endpoints?: Array<{ port?: string; path?: string }>;
      };
    };
    const scraped = services.filter((s) =>
      labelsMatch(monitor.spec?.selector?.matchLabels, s.metadata.labels),
    );
    expect(scraped.map((s) => s.metadata.name)).toEqual(['etcd-doctor-metrics']);
    expect(monitor.spec?.endpoints).toEqual([expect.objectContaining({ port: 'http', path: '/metrics' })]);
    expect(monitor.metadata.namespace).toBe('etcd-doctor');
  });

  it('the Ingress publishes only /slack/events, to the bot Service', () => {
    const objects = objectsOf(rendered, 'install');
    expect(findObject(objects, 'Ingress', 'etcd-doctor')).toMatchObject({
      spec: {
        tls: [{ hosts: ['etcd-doctor.platform.example.com'] }],
        rules: [
          {
            host: 'etcd-doctor.platform.example.com',
            http: {
              paths: [
                {
                  path: '/slack/events',
                  pathType: 'Exact',
                  backend: { service: { name: 'etcd-doctor-bot', port: { name: 'http' } } },
                },
              ],
            },
          },
        ],
      },
    });
    findObject(objects, 'Service', 'etcd-doctor-bot');
  });

  it('app objects land in the etcd-doctor namespace; only the read-only RoleBindings are where they grant', () => {
    for (const target of ['base', 'overlays/socket-mode', 'overlays/http'] as const) {
      const namespaced = objectsOf(rendered, target).filter((o) => !o.kind.startsWith('Cluster'));
      const grants = (o: KubeObject) =>
        o.kind === 'RoleBinding' && o.metadata.name === 'etcd-doctor-readonly';
      const app = namespaced.filter((o) => !grants(o));
      expect(new Set(app.map((o) => o.metadata.namespace))).toEqual(new Set(['etcd-doctor']));
      expect(
        namespaced
          .filter(grants)
          .map((o) => o.metadata.namespace)
          .sort(),
      ).toEqual(target === 'base' ? [] : ['default', 'kube-system']);
    }
  });
});
