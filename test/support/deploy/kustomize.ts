import { spawnSync } from 'node:child_process';
import { parseAllDocuments } from 'yaml';

/** The fields every rendered Kubernetes object has; the rest is checked against the schemas. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

/**
 * The kubectl that renders the overlays: $KUBECTL, else `kubectl` on PATH. Debian's kubernetes-client
 * (kubectl 1.20, kustomize v2.0.3) and any kubectl >= 1.21 both work.
 */
export function kubectlBinary(env: Record<string, string | undefined>): string {
  return env.KUBECTL ?? 'kubectl';
}

const MISSING_KUBECTL =
  'is needed to render deploy/kubernetes (kubectl kustomize). Install it with ' +
  '`apt-get install kubernetes-client` (Debian) or set KUBECTL to a kubectl binary';

/** `kubectl kustomize <dir>`, parsed. Throws with the reason when kubectl is missing or the build fails. */
export function renderKustomization(kubectl: string, dir: string): KubeObject[] {
  const run = spawnSync(kubectl, ['kustomize', dir], { encoding: 'utf8', timeout: 30_000 });
  if (run.error) {
    const code = (run.error as NodeJS.ErrnoException).code;
    throw new Error(
      code === 'ENOENT' ? `${kubectl} not found: kubectl ${MISSING_KUBECTL}` : run.error.message,
    );
  }
  if (run.status !== 0) throw new Error(`${kubectl} kustomize ${dir} failed:\n${run.stderr}`);
  return parseManifests(run.stdout, dir);
}

/** Multi-document YAML to objects; a document that is not a Kubernetes object is an error. */
export function parseManifests(text: string, source: string): KubeObject[] {
  return parseAllDocuments(text).flatMap((doc, index) => {
    if (doc.errors.length > 0) throw new Error(`${source} document ${index}: ${doc.errors[0]?.message}`);
    const value: unknown = doc.toJS();
    if (value === null || value === undefined) return [];
    if (!isKubeObject(value)) throw new Error(`${source} document ${index} is not a Kubernetes object`);
    return [value];
  });
}

function isKubeObject(value: unknown): value is KubeObject {
  if (typeof value !== 'object' || value === null) return false;
  const { apiVersion, kind, metadata } = value as Record<string, unknown>;
  return (
    typeof apiVersion === 'string' &&
    typeof kind === 'string' &&
    typeof metadata === 'object' &&
    metadata !== null &&
    typeof (metadata as Record<string, unknown>).name === 'string'
  );
}

export function findObject(objects: readonly KubeObject[], kind: string, name: string): KubeObject {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in [${objects.map(describeObject).join(', ')}]`);
  return found;
}

export function describeObject(o: KubeObject): string {
  return `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ''}${o.metadata.name}`;
}

/** Every string anywhere in a value, with its path (for scanning addresses). */
export function stringsIn(value: unknown, path = ''): Array<{ path: string; text: string }> {
  if (typeof value === 'string') return [{ path, text: value }];
  if (Array.isArray(value)) return value.flatMap((v, i) => stringsIn(v, `${path}[${i}]`));
  if (typeof value === 'object' && value !== null) {
    return Object.entries(value).flatMap(([k, v]) => stringsIn(v, `${path}.${k}`));
  }
  return [];
}
