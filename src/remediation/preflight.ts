import type { KubernetesClients } from '../clients/kubernetes.js';
import { kubeCall, KubeStatusError } from '../probes/kubernetes/kube-call.js';
import { ProbeError } from '../probes/probe.js';
import type { RemediationSettings } from './settings.js';

/**
 * Whether components/remediation would be enforced on a cluster: its Role lets the worker
 * create pods in kube-system, and only its admission policies hold those pods to the helper's job.
 * `kubectl apply -k` applies the Role even where the policies cannot be applied, so this is checked
 * first, with the worker's own credentials (`etcd-doctor preflight <cluster>`).
 */

/** admissionregistration.k8s.io/v1 ValidatingAdmissionPolicy is GA, and on by default, from 1.30. */
export const ADMISSION_POLICY_MIN_MINOR = 30;

/** The service account the admission policies apply to, in whatever namespace it is. */
export const WORKER_SERVICE_ACCOUNT = 'etcd-doctor-worker';

/** The namespace the shipped RoleBindings name (deploy/kubernetes/components/remediation). */
export const SHIPPED_WORKER_NAMESPACE = 'etcd-doctor';

/** The policies' parameters: the exact images they admit (paramRef of etcd-doctor-remediation-images). */
export const ADMISSION_PARAMS = { namespace: 'kube-system', name: 'etcd-doctor-remediation' } as const;

export interface ServerVersion {
  major: number;
  minor: number;
  gitVersion: string;
}

export type PreflightResult =
  | { ok: true; lines: string[] }
  /** `couldNotCheck`: our own access failed, so nothing was decided (exit 3, not 1). */
  | { ok: false; reason: string; couldNotCheck: boolean };

/** `/version`'s body; minor may carry a suffix (`"30+"` on EKS and GKE). */
export function parseServerVersion(body: string): ServerVersion | undefined {
  let parsed: { major?: unknown; minor?: unknown; gitVersion?: unknown };
  try {
    parsed = JSON.parse(body) as typeof parsed;
  } catch {
    return undefined;
  }
  const gitVersion = typeof parsed.gitVersion === 'string' ? parsed.gitVersion : '';
  const fromGit = /^v(\d+)\.(\d+)/.exec(gitVersion);
  const major = Number.parseInt(String(parsed.major ?? fromGit?.[1] ?? ''), 10);
  const minor = Number.parseInt(String(parsed.minor ?? fromGit?.[2] ?? ''), 10);
  if (Number.isNaN(major) || Number.isNaN(minor)) return undefined;
  return { major, minor, gitVersion: gitVersion || `v${major}.${minor}` };
}

/** Why this Kubernetes version leaves the policies unenforced, or undefined. */
export function versionProblem(v: ServerVersion): string | undefined {
  if (v.major > 1 || (v.major === 1 && v.minor >= ADMISSION_POLICY_MIN_MINOR)) return undefined;
  return `it runs Kubernetes ${v.gitVersion}, and the admission policies of components/remediation need 1.30 or newer (ValidatingAdmissionPolicy v1); without them its Role would let the worker create any pod in kube-system, so do not apply components/remediation to this cluster`;
}

/** The namespace of a service-account username the policies match, or undefined. */
export function policyServiceAccountNamespace(username: string): string | undefined {
  const m = /^system:serviceaccount:([^:]+):([^:]+)$/.exec(username);
  return m && m[2] === WORKER_SERVICE_ACCOUNT ? m[1] : undefined;
}

/** Why the policies would not apply to a worker acting as `username`, or undefined. */
export function identityProblem(username: string): string | undefined {
  if (policyServiceAccountNamespace(username) !== undefined) return undefined;
  return `the worker acts as "${username}" there, and the admission policies of components/remediation apply only to a service account named ${WORKER_SERVICE_ACCOUNT}: give the worker that service account's credentials for this cluster before applying it`;
}

/** Why the policies' parameters would deny (or admit other than) what this cluster's config runs. */
export function paramsProblem(
  data: Record<string, string> | undefined,
  settings: Pick<RemediationSettings, 'helperImage' | 'diskBenchmarkImage'>,
): string | undefined {
  const where = `ConfigMap ${ADMISSION_PARAMS.namespace}/${ADMISSION_PARAMS.name}`;
  if (!data)
    return `the ${where} is missing, so the admission policies deny every restart helper and benchmark: apply components/remediation again`;
  if (data.helperImage !== settings.helperImage)
    return `the admission policies admit the helper image "${data.helperImage ?? ''}" (${where}, key helperImage) but the clusters file runs "${settings.helperImage}" (remediation.helperImage): make them equal, or every restart is denied`;
  const bench = settings.diskBenchmarkImage;
  if (bench && data.diskBenchmarkImage !== bench)
    return `the admission policies admit the benchmark image "${data.diskBenchmarkImage ?? ''}" (${where}, key diskBenchmarkImage) but the clusters file runs "${bench}" (remediation.diskBenchmarkImage): make them equal, or every benchmark is denied`;
  return undefined;
}

export interface PreflightDeps {
  kube: KubernetesClients;
  settings: Pick<RemediationSettings, 'helperImage' | 'diskBenchmarkImage'>;
  signal: AbortSignal;
  timeoutMs: number;
}

/** Reads the version, the worker's identity and the policies' parameters; the first problem refuses. */
export async function runPreflight(cluster: string, deps: PreflightDeps): Promise<PreflightResult> {
  const refuse = (reason: string): PreflightResult => ({
    ok: false,
    reason: `cluster ${cluster}: ${reason}`,
    couldNotCheck: false,
  });
  try {
    const version = await readVersion(deps);
    const tooOld = versionProblem(version);
    if (tooOld) return refuse(tooOld);
    const username = await readUsername(deps);
    const stranger = identityProblem(username);
    if (stranger) return refuse(stranger);
    const params = await readParams(deps);
    if (params === 'not-applied') return { ok: true, lines: readyLines(cluster, version, username, false) };
    const mismatch = paramsProblem(params, deps.settings);
    if (mismatch) return refuse(mismatch);
    return { ok: true, lines: readyLines(cluster, version, username, true) };
  } catch (err) {
    if (!(err instanceof ProbeError)) throw err;
    return { ok: false, reason: `cluster ${cluster}: could not check: ${err.message}`, couldNotCheck: true };
  }
}

function readyLines(cluster: string, v: ServerVersion, username: string, applied: boolean): string[] {
  const namespace = policyServiceAccountNamespace(username);
  return [
    `cluster ${cluster}: the admission policies of components/remediation would be enforced (Kubernetes ${v.gitVersion}, the worker acts as ${username})`,
    applied
      ? `components/remediation is applied, and its admitted images match the clusters file`
      : `components/remediation is not applied yet (the worker may not read ${ADMISSION_PARAMS.namespace}/${ADMISSION_PARAMS.name}); set its images, then apply it`,
    ...(namespace === SHIPPED_WORKER_NAMESPACE
      ? []
      : [
          `the worker's namespace is ${namespace}: set the namespace of the subjects of its RoleBinding and ClusterRoleBinding to ${namespace}`,
        ]),
  ];
}

async function readVersion(deps: PreflightDeps): Promise<ServerVersion> {
  const signal = AbortSignal.any([deps.signal, AbortSignal.timeout(deps.timeoutMs)]);
  const res = await deps.kube.getRaw('/version', signal).catch((err: unknown) => {
    throw new ProbeError('error', `GET /version failed: ${(err as Error).message}`, { cause: err });
  });
  const version = res.status === 200 ? parseServerVersion(res.body) : undefined;
  if (!version)
    throw new ProbeError(
      'error',
      `GET /version of ${deps.kube.server} answered HTTP ${res.status} without a version`,
    );
  return version;
}

async function readUsername(deps: PreflightDeps): Promise<string> {
  const action = { verb: 'create', resource: 'selfsubjectreviews.authentication.k8s.io' } as const;
  const review = await kubeCall(deps.kube, action, deps.signal, deps.timeoutMs, (options) =>
    deps.kube.authentication.createSelfSubjectReview(
      { body: { apiVersion: 'authentication.k8s.io/v1', kind: 'SelfSubjectReview' } },
      options,
    ),
  );
  const username = review.status?.userInfo?.username;
  if (!username) throw new ProbeError('error', 'the SelfSubjectReview named no user');
  return username;
}

/** The ConfigMap's data; undefined when it is missing; `not-applied` without the Role (403). */
async function readParams(deps: PreflightDeps): Promise<Record<string, string> | undefined | 'not-applied'> {
  const action = { verb: 'get', resource: 'configmaps', namespace: ADMISSION_PARAMS.namespace } as const;
  try {
    const cm = await kubeCall(deps.kube, action, deps.signal, deps.timeoutMs, (options) =>
      deps.kube.core.readNamespacedConfigMap({ ...ADMISSION_PARAMS }, options),
    );
    return cm.data ?? {};
  } catch (err) {
    // The Role grants get on this one name: 403 means the component is not applied, 404 that it
    // is and its ConfigMap is gone.
    if (err instanceof KubeStatusError && err.status === 403) return 'not-applied';
    if (err instanceof KubeStatusError && err.status === 404) return undefined;
    throw err;
  }
}
