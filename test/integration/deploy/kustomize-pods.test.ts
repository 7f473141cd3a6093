import { beforeAll, describe, expect, it } from '@jest/globals';
import type { IDeployment } from 'kubernetes-models/apps/v1';
import type { IContainer, IEnvVar } from 'kubernetes-models/v1';
import {
  containerOf,
  deploymentNamed,
  deploymentsOf,
  objectsOf,
  podSpecOf,
  renderAllTargets,
  type Target,
} from '../../support/deploy/deploy-manifests.js';
import { findObject, type KubeObject } from '../../support/deploy/kustomize.js';
import { parseConfigText } from '../../../src/config/load-config.js';
import type { ConfigFile } from '../../../src/config/schema.js';
import { DEFAULT_ANALYSIS_MEMORY_MB } from '../../../src/offline/analyze-isolated.js';
import { MAX_FILES } from '../../../src/offline/file-requests.js';
import { NODE_OWN_MB } from '../../../src/offline/isolated-process.js';
import { DEFAULT_ANALYSIS_CONCURRENCY, DEFAULT_MAX_FILE_BYTES } from '../../../src/offline/install.js';
import { DEFAULT_REMEDIATION_SETTINGS } from '../../../src/remediation/settings.js';

/** What the pods run as, how Kubernetes checks them, and which Slack mode each overlay sets up. */

let rendered: Map<Target, KubeObject[]>;
beforeAll(() => {
  rendered = renderAllTargets(process.env);
});

const APP_TARGETS = ['base', 'overlays/socket-mode', 'overlays/http', 'install'] as const;

function env(container: IContainer, name: string): IEnvVar | undefined {
  return container.env?.find((e) => e.name === name);
}

function everyDeployment(): Array<{
  target: Target;
  name: string;
  deployment: IDeployment;
}> {
  return APP_TARGETS.flatMap((target) =>
    deploymentsOf(objectsOf(rendered, target)).map((deployment) => ({
      target,
      name: deployment.metadata?.name ?? '',
      deployment,
    })),
  );
}

describe('the Deployments', () => {
  it('are the bot and the worker (and, where components/analyzer is added, the analyzer), running their role', () => {
    for (const target of APP_TARGETS) {
      const deployments = deploymentsOf(objectsOf(rendered, target));
      expect(deployments.map((d) => d.metadata?.name).sort()).toEqual([
        ...(target === 'install' ? ['etcd-doctor-analyzer'] : []),
        'etcd-doctor-bot',
        'etcd-doctor-worker',
      ]);
    }
    const base = objectsOf(rendered, 'base');
    expect(containerOf(deploymentNamed(base, 'etcd-doctor-bot'), 'bot').args).toEqual(['bot']);
    expect(containerOf(deploymentNamed(base, 'etcd-doctor-worker'), 'worker').args).toEqual(['worker']);
  });

  it('run as non-root, with a read-only root filesystem, no capabilities and seccomp', () => {
    for (const { target, name, deployment } of everyDeployment()) {
      const pod = podSpecOf(deployment);
      expect({ target, name, pod: pod.securityContext }).toEqual({
        target,
        name,
        pod: expect.objectContaining({
          runAsNonRoot: true,
          runAsUser: 10001,
          seccompProfile: { type: 'RuntimeDefault' },
        }),
      });
      expect(pod.hostNetwork ?? false).toBe(false);
      for (const container of [...pod.containers, ...(pod.initContainers ?? [])]) {
        expect({ target, name, container: container.securityContext }).toEqual({
          target,
          name,
          container: {
            runAsNonRoot: true,
            readOnlyRootFilesystem: true,
            allowPrivilegeEscalation: false,
            capabilities: { drop: ['ALL'] },
          },
        });
      }
    }
  });

  it('have memory limits, requests and a pinned image', () => {
    for (const { target, name, deployment } of everyDeployment()) {
      for (const container of podSpecOf(deployment).containers) {
        expect({ target, name, resources: container.resources }).toEqual({
          target,
          name,
          resources: {
            requests: { cpu: expect.any(String), memory: expect.any(String) },
            limits: { memory: expect.any(String) },
          },
        });
        expect(container.image).toMatch(/:\d+\.\d+\.\d+$/);
      }
    }
    const installed = deploymentsOf(objectsOf(rendered, 'install'));
    for (const d of installed) {
      expect(podSpecOf(d).containers[0]?.image).toBe('registry.example.com/platform/etcd-doctor:0.1.0');
    }
  });

  it('probe /healthz (liveness) and /readyz (readiness) on the port the process listens on', () => {
    for (const { target, name, deployment } of everyDeployment()) {
      for (const container of podSpecOf(deployment).containers) {
        const port = container.ports?.find((p) => p.name === 'http');
        expect({ target, name, port: port?.containerPort, PORT: env(container, 'PORT')?.value }).toEqual({
          target,
          name,
          port: 3000,
          PORT: '3000',
        });
        expect(container.livenessProbe?.httpGet).toEqual({ path: '/healthz', port: 'http' });
        expect(container.readinessProbe?.httpGet).toEqual({ path: '/readyz', port: 'http' });
      }
    }
  });

  it('have a disruption budget each', () => {
    for (const target of APP_TARGETS) {
      const objects = objectsOf(rendered, target);
      for (const name of ['etcd-doctor-bot', 'etcd-doctor-worker']) {
        const deployment = findObject(objects, 'Deployment', name) as { spec?: { selector?: unknown } };
        const pdb = findObject(objects, 'PodDisruptionBudget', name) as { spec?: { selector?: unknown } };
        expect(pdb.spec?.selector).toEqual(deployment.spec?.selector);
      }
    }
  });
});

describe('secrets and the Slack mode', () => {
  const SECRET_ENV = /TOKEN|SECRET|REDIS_URL|PASSWORD|KEY/;

  it('reference Secrets and never hold a value', () => {
    for (const target of APP_TARGETS)
      expect(objectsOf(rendered, target).filter((o) => o.kind === 'Secret')).toEqual([]);
    for (const { target, name, deployment } of everyDeployment()) {
      for (const container of podSpecOf(deployment).containers) {
        for (const variable of (container.env ?? []).filter((e) => SECRET_ENV.test(e.name))) {
          expect({ target, name, variable: variable.name, value: variable.value }).toEqual({
            target,
            name,
            variable: variable.name,
            value: undefined,
          });
          expect(variable.valueFrom?.secretKeyRef?.name).toMatch(/^etcd-doctor-/);
        }
      }
    }
  });

  it('socket mode: the bot has SLACK_APP_TOKEN and nothing is exposed', () => {
    const objects = objectsOf(rendered, 'overlays/socket-mode');
    const bot = containerOf(deploymentNamed(objects, 'etcd-doctor-bot'), 'bot');
    expect(env(bot, 'SLACK_APP_TOKEN')?.valueFrom?.secretKeyRef).toEqual({
      name: 'etcd-doctor-slack',
      key: 'SLACK_APP_TOKEN',
    });
    expect(env(bot, 'SLACK_SIGNING_SECRET')).toBeUndefined();
    expect(objects.filter((o) => o.kind === 'Ingress')).toEqual([]);
    // ClusterIP only: the bot Service is for Alertmanager in the cluster, the metrics one for Prometheus.
    const services = objects.filter((o) => o.kind === 'Service') as Array<
      KubeObject & { spec?: { type?: string } }
    >;
    expect(services.map((s) => [s.metadata.name, s.spec?.type ?? 'ClusterIP'])).toEqual([
      ['etcd-doctor-bot', 'ClusterIP'],
      ['etcd-doctor-metrics', 'ClusterIP'],
    ]);
  });

  it('http mode: the bot checks SLACK_SIGNING_SECRET behind the etcd-doctor-bot Service', () => {
    const objects = objectsOf(rendered, 'overlays/http');
    const bot = containerOf(deploymentNamed(objects, 'etcd-doctor-bot'), 'bot');
    expect(env(bot, 'SLACK_SIGNING_SECRET')?.valueFrom?.secretKeyRef).toEqual({
      name: 'etcd-doctor-slack',
      key: 'SLACK_SIGNING_SECRET',
    });
    expect(env(bot, 'SLACK_APP_TOKEN')).toBeUndefined();
    expect(findObject(objects, 'Service', 'etcd-doctor-bot')).toMatchObject({
      spec: {
        selector: { 'app.kubernetes.io/name': 'etcd-doctor', 'app.kubernetes.io/component': 'bot' },
        ports: [{ name: 'http', port: 3000, targetPort: 'http' }],
      },
    });
  });

  it('the worker posts with the bot token only: it takes no Slack events', () => {
    for (const target of APP_TARGETS) {
      const worker = containerOf(
        deploymentNamed(objectsOf(rendered, target), 'etcd-doctor-worker'),
        'worker',
      );
      const slack = (worker.env ?? []).map((e) => e.name).filter((n) => n.startsWith('SLACK_'));
      expect({ target, slack }).toEqual({ target, slack: ['SLACK_BOT_TOKEN'] });
    }
  });

  it('the bot and the worker read every Redis setting from etcd-doctor-redis, each key optional', () => {
    // One Secret says where Redis is: a URL, the sentinels, or the cluster nodes (docs/install-kubernetes.md §8).
    const REDIS_ENV = [
      'REDIS_URL',
      'REDIS_SENTINELS',
      'REDIS_SENTINEL_NAME',
      'REDIS_CLUSTER_NODES',
      'REDIS_PASSWORD',
      'REDIS_SENTINEL_PASSWORD',
      'REDIS_TLS',
      'REDIS_SENTINEL_TLS',
      'REDIS_TLS_CA_FILE',
      'REDIS_TLS_CERT_FILE',
      'REDIS_TLS_KEY_FILE',
    ];
    for (const target of APP_TARGETS) {
      for (const [name, role] of [
        ['etcd-doctor-bot', 'bot'],
        ['etcd-doctor-worker', 'worker'],
      ] as const) {
        const container = containerOf(deploymentNamed(objectsOf(rendered, target), name), role);
        const refs = REDIS_ENV.map((key) => env(container, key)?.valueFrom?.secretKeyRef);
        expect({ target, name, refs }).toEqual({
          target,
          name,
          refs: REDIS_ENV.map((key) => ({ name: 'etcd-doctor-redis', key, optional: true })),
        });
      }
    }
  });

  it('the bot and the worker share REMEDIATION_SIGNING_KEY from one Secret, required (never optional)', () => {
    for (const target of APP_TARGETS)
      for (const [name, role] of [
        ['etcd-doctor-bot', 'bot'],
        ['etcd-doctor-worker', 'worker'],
      ] as const) {
        const container = containerOf(deploymentNamed(objectsOf(rendered, target), name), role);
        expect({
          target,
          name,
          ref: env(container, 'REMEDIATION_SIGNING_KEY')?.valueFrom?.secretKeyRef,
        }).toEqual({
          target,
          name,
          ref: { name: 'etcd-doctor-signing', key: 'REMEDIATION_SIGNING_KEY' },
        });
      }
  });

  it('only the worker gets a Kubernetes API token', () => {
    const objects = objectsOf(rendered, 'base');
    const pods = Object.fromEntries(
      deploymentsOf(objects).map((d) => [d.metadata?.name, podSpecOf(d).automountServiceAccountToken]),
    );
    // The worker asks for its token explicitly; neither account hands one to any other pod.
    expect(pods).toEqual({ 'etcd-doctor-bot': false, 'etcd-doctor-worker': true });
    for (const account of ['etcd-doctor-bot', 'etcd-doctor-worker'])
      expect(findObject(objects, 'ServiceAccount', account)).toMatchObject({
        automountServiceAccountToken: false,
      });
  });
});

describe('the snapshot volume', () => {
  it('gives recover-nospace a writable volume of its own at the default snapshotDir (the root filesystem is read-only)', () => {
    for (const target of APP_TARGETS) {
      const worker = deploymentNamed(objectsOf(rendered, target), 'etcd-doctor-worker');
      const mount = containerOf(worker, 'worker').volumeMounts?.find(
        (m) => m.mountPath === DEFAULT_REMEDIATION_SETTINGS.snapshotDir,
      );
      expect({ target, mount: mount?.name, readOnly: mount?.readOnly ?? false }).toEqual({
        target,
        mount: 'snapshots',
        readOnly: false,
      });
      const volume = podSpecOf(worker).volumes?.find((v) => v.name === 'snapshots');
      expect(volume?.emptyDir?.sizeLimit ?? volume?.persistentVolumeClaim?.claimName).toBeDefined();
    }
  });
});

/** `2560Mi`, `3Gi`, `500M`: a Kubernetes quantity in bytes (the suffixes the manifests use). */
function quantityBytes(q: string | number | undefined): number {
  const m = /^(\d+(?:\.\d+)?)(Ki|Mi|Gi|K|M|G)?$/.exec(String(q ?? ''));
  if (!m) return Number.NaN;
  const unit = { Ki: 1024, Mi: 1024 ** 2, Gi: 1024 ** 3, K: 1e3, M: 1e6, G: 1e9 }[m[2] ?? ''] ?? 1;
  return Number(m[1]) * unit;
}

/** The clusters file the worker of `target` loads (its ConfigMap, where ETCD_DOCTOR_CONFIG points). */
function workerConfig(target: Target): ConfigFile {
  const objects = objectsOf(rendered, target);
  const worker = deploymentNamed(objects, 'etcd-doctor-worker');
  const container = containerOf(worker, 'worker');
  const path = env(container, 'ETCD_DOCTOR_CONFIG')?.value;
  const mount = container.volumeMounts?.find((m) => m.mountPath === path);
  const volume = podSpecOf(worker).volumes?.find((v) => v.name === mount?.name);
  const map = findObject(objects, 'ConfigMap', volume?.configMap?.name ?? '(none)') as {
    data?: Record<string, string>;
  };
  const config = parseConfigText(map.data?.[mount?.subPath ?? ''] ?? '', `${target} ${path}`);
  if (!config.ok) throw new Error(config.error);
  return config.value;
}

/** Sized for what an analysis may download: up to 250 MB x 10 files per analysis went to a 64 Mi /tmp, and the kubelet evicted the worker. */
describe('room for the analysis of shared files', () => {
  it("sizes the worker's download volume to the caps x concurrency (the download directory is the temp dir)", () => {
    for (const target of APP_TARGETS) {
      const offline = workerConfig(target).offline;
      const perAnalysis = (offline?.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES) * MAX_FILES;
      const needed = perAnalysis * (offline?.concurrency ?? DEFAULT_ANALYSIS_CONCURRENCY) + 64 * 1024 ** 2;
      const worker = deploymentNamed(objectsOf(rendered, target), 'etcd-doctor-worker');
      // No TMPDIR in the image or the pod: os.tmpdir() is /tmp, where analyze-job.ts downloads.
      expect(env(containerOf(worker, 'worker'), 'TMPDIR')).toBeUndefined();
      const mount = containerOf(worker, 'worker').volumeMounts?.find((m) => m.mountPath === '/tmp');
      const volume = podSpecOf(worker).volumes?.find((v) => v.name === mount?.name);
      const size = quantityBytes(volume?.emptyDir?.sizeLimit);
      expect({ target, roomForIt: size >= needed, size }).toEqual({ target, roomForIt: true, size });
    }
  });

  it("holds the worker's heap and one analysis process per slot in the memory limit", () => {
    for (const target of APP_TARGETS) {
      const offline = workerConfig(target).offline;
      const container = containerOf(
        deploymentNamed(objectsOf(rendered, target), 'etcd-doctor-worker'),
        'worker',
      );
      const heapMb = Number(
        /--max-old-space-size=(\d+)/.exec(env(container, 'NODE_OPTIONS')?.value ?? '')?.[1],
      );
      // An analysis process holds its heap and Node's own (RLIMIT_DATA, isolated-process.ts).
      const analysesMb =
        ((offline?.analysisMemoryMb ?? DEFAULT_ANALYSIS_MEMORY_MB) + NODE_OWN_MB) *
        (offline?.concurrency ?? DEFAULT_ANALYSIS_CONCURRENCY);
      // The worker's code, buffers and young generations outside its heap: ~180 MiB measured at a digest's peak.
      const neededMb = heapMb + analysesMb + 256;
      const limitMb = quantityBytes(container.resources?.limits?.memory) / 1024 ** 2;
      expect({ target, heapMb, fits: limitMb >= neededMb, limitMb }).toEqual({
        target,
        heapMb: 256,
        fits: true,
        limitMb,
      });
    }
  });
});
