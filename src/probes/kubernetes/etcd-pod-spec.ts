import type { V1Container, V1Pod } from '@kubernetes/client-node';
import { EXPERIMENTAL_FLAG_GATES, featureGatesOfFlags } from '../../etcd/feature-gates.js';
import type { Probe } from '../probe.js';
import type { KubeProbeContext } from './context.js';
import type { DataVolume, EtcdPodSpec } from './evidence.js';

/**
 * The etcd pods' own configuration (KB F8, §2.4): where the data dir lives (hostPath, or an
 * emptyDir that `medium: Memory` puts on tmpfs), `--unsafe-no-fsync`, heartbeat/election/quota,
 * the member name (kubeadm passes `--name=<node>`) and the client URLs.
 */
export function createEtcdPodSpecProbe(timeoutMs: number): Probe<KubeProbeContext, EtcdPodSpec[]> {
  return {
    kind: 'k8s-etcd-spec',
    asks: 'read the etcd pod specs',
    timeoutMs,
    async collect(ctx) {
      const pods = await ctx.controlPlanePods();
      return pods.filter((p) => p.component === 'etcd').map((p) => parseEtcdPodSpec(p.pod));
    },
  };
}

/** etcd flags that take no value (etcd `--help`); any other `--flag value` takes the next word. */
const BOOLEAN_FLAGS = new Set([
  'unsafe-no-fsync',
  'client-cert-auth',
  'peer-client-cert-auth',
  'auto-tls',
  'peer-auto-tls',
  'enable-pprof',
  'enable-v2',
  'force-new-cluster',
  'strict-reconfig-check',
  'debug',
  // The experimental boolean flags 3.6 turned into feature gates (etcd/feature-gates.ts).
  ...Object.keys(EXPERIMENTAL_FLAG_GATES),
]);

export function parseEtcdPodSpec(pod: V1Pod): EtcdPodSpec {
  const container = pod.spec?.containers.find((c) => c.name === 'etcd') ?? pod.spec?.containers[0];
  const flags = container ? etcdFlags(container) : new Map<string, string>();
  const memberName = flags.get('name');
  const dataDir = flags.get('data-dir') ?? (container ? `${memberName ?? 'default'}.etcd` : undefined);
  return {
    pod: pod.metadata?.name ?? '',
    namespace: pod.metadata?.namespace ?? '',
    node: pod.spec?.nodeName,
    memberName,
    image: container?.image,
    dataDir,
    dataVolume: container && dataDir ? dataVolumeOf(pod, container, dataDir) : { kind: 'none' },
    unsafeNoFsync: flags.get('unsafe-no-fsync') === 'true',
    heartbeatIntervalMs: numberFlag(flags, 'heartbeat-interval'),
    electionTimeoutMs: numberFlag(flags, 'election-timeout'),
    quotaBackendBytes: numberFlag(flags, 'quota-backend-bytes'),
    listenClientUrls: urls(flags, 'listen-client-urls'),
    advertiseClientUrls: urls(flags, 'advertise-client-urls'),
    peerUrls: urls(flags, 'initial-advertise-peer-urls'),
    listenMetricsUrls: urls(flags, 'listen-metrics-urls'),
    ...optionalNumbers({
      maxRequestBytes: numberFlag(flags, 'max-request-bytes'),
      memoryLimitBytes: quantityBytes(container?.resources?.limits?.memory),
    }),
    upgradeFlags: upgradeFlagsOf(flags),
    ...nonEmptyGates(featureGatesOfFlags(flags)),
  };
}

/**
 * The feature gates the flags set: `--feature-gates=InitialCorruptCheck=true` (3.6+) and
 * `--experimental-initial-corrupt-check` (3.4 to 3.6) both read as `InitialCorruptCheck: true`.
 */
function nonEmptyGates(gates: Record<string, boolean>): { featureGates?: Record<string, boolean> } {
  return Object.keys(gates).length ? { featureGates: gates } : {};
}

/** Flags whose meaning changes across minors (src/lifecycle/upgrade-rules.ts); at most 64 kept. */
const UPGRADE_FLAGS = new Set([
  'enable-v2',
  'v2-deprecation',
  'max-learners',
  'feature-gates',
  'snapshot-count',
  'max-snapshots',
]);

function upgradeFlagsOf(flags: ReadonlyMap<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  let kept = 0;
  for (const [name, value] of flags) {
    if (kept >= 64) break;
    if (!UPGRADE_FLAGS.has(name) && !name.startsWith('experimental-')) continue;
    out[name] = value.slice(0, 200);
    kept++;
  }
  return out;
}

function optionalNumbers<K extends string>(
  values: Record<K, number | undefined>,
): Partial<Record<K, number>> {
  return Object.fromEntries(Object.entries(values).filter(([, v]) => v !== undefined)) as Partial<
    Record<K, number>
  >;
}

const QUANTITY_SUFFIX: Record<string, number> = {
  '': 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
};

/**
 * A Kubernetes memory quantity (`512Mi`, `2G`, `1e9`, `1.5Gi`) in bytes; undefined when absent or not
 * one of those forms (k8s.io/apimachinery resource.Quantity's binary and decimal SI suffixes).
 */
export function quantityBytes(text: string | undefined): number | undefined {
  const m = /^([0-9]+(?:\.[0-9]+)?(?:e[0-9]+)?)(Ki|Mi|Gi|Ti|k|M|G|T)?$/.exec(text?.trim() ?? '');
  if (!m?.[1]) return undefined;
  const n = Number(m[1]) * (QUANTITY_SUFFIX[m[2] ?? ''] ?? Number.NaN);
  return Number.isFinite(n) && n > 0 ? Math.round(n) : undefined;
}

/**
 * The flags etcd runs with: `ETCD_<FLAG>` env vars (etcd reads them), then `--flag=value` words
 * from command and args, which win. OpenShift runs etcd from a shell script with `${VAR}`
 * references and `export ETCD_NAME=...`; both are expanded from the container env.
 */
export function etcdFlags(container: V1Container): Map<string, string> {
  const env = new Map<string, string>();
  for (const e of container.env ?? []) if (e.value !== undefined) env.set(e.name, e.value);
  const words = [...(container.command ?? []), ...(container.args ?? [])]
    .flatMap(shellWords)
    .map((w) => expand(w, env));
  for (const word of words) {
    const assignment = /^(ETCD_[A-Z0-9_]+)=(.*)$/.exec(word);
    if (assignment?.[1] && assignment[2] !== undefined) env.set(assignment[1], assignment[2]);
  }
  const flags = new Map<string, string>();
  for (const [name, value] of env) {
    if (name.startsWith('ETCD_')) flags.set(name.slice(5).toLowerCase().replaceAll('_', '-'), value);
  }
  for (let i = 0; i < words.length; i++) {
    const match = /^--([a-z0-9-]+)(?:=(.*))?$/.exec(words[i] ?? '');
    if (!match?.[1]) continue;
    const next = words[i + 1];
    if (match[2] !== undefined) flags.set(match[1], match[2]);
    else if (BOOLEAN_FLAGS.has(match[1]) || next === undefined || next.startsWith('-'))
      flags.set(match[1], 'true');
    else {
      flags.set(match[1], next);
      i++;
    }
  }
  return flags;
}

/** Splits a command word that may be a whole shell script into words, dropping quotes and `\` line ends. */
function shellWords(text: string): string[] {
  return text
    .replace(/\\\n/g, ' ')
    .split(/\s+/)
    .map((w) => w.replace(/^["']|["']$/g, ''))
    .filter((w) => w.length > 0);
}

/** `${VAR}` (shell) and `$(VAR)` (Kubernetes) references, from the container env. */
function expand(word: string, env: Map<string, string>): string {
  return word.replace(
    /\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\(([A-Za-z_][A-Za-z0-9_]*)\)/g,
    (whole, a?: string, b?: string) => {
      const name = a ?? b ?? '';
      return env.get(name) ?? whole;
    },
  );
}

/** The volume mounted at the longest prefix of the data dir; `none` means the container's own layer. */
function dataVolumeOf(pod: V1Pod, container: V1Container, dataDir: string): DataVolume {
  const dir = withSlash(dataDir);
  const mount = (container.volumeMounts ?? [])
    .filter((m) => dir.startsWith(withSlash(m.mountPath)))
    .sort((a, b) => b.mountPath.length - a.mountPath.length)[0];
  const volume = mount ? pod.spec?.volumes?.find((v) => v.name === mount.name) : undefined;
  if (!volume) return { kind: 'none' };
  if (volume.hostPath) return { kind: 'hostPath', volume: volume.name, path: volume.hostPath.path };
  if (volume.emptyDir)
    return { kind: 'emptyDir', volume: volume.name, medium: volume.emptyDir.medium || undefined };
  // The client's deserializer sets every known field, mostly to undefined: find the one in use.
  const source =
    Object.entries(volume).find(([k, v]) => k !== 'name' && v !== undefined && v !== null)?.[0] ?? 'unknown';
  return { kind: 'other', volume: volume.name, source };
}

const withSlash = (path: string) => (path.endsWith('/') ? path : `${path}/`);

function numberFlag(flags: Map<string, string>, name: string): number | undefined {
  const value = flags.get(name);
  const n = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(n) ? n : undefined;
}

function urls(flags: Map<string, string>, name: string): string[] {
  return (flags.get(name) ?? '')
    .split(',')
    .map((u) => u.trim())
    .filter((u) => /^(https?|unixs?):\/\//.test(u));
}
