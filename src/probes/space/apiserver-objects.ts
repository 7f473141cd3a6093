import type { KubernetesClients } from '../../clients/kubernetes.js';

/**
 * The API server's count of the objects it stored, per resource, under either name:
 * `apiserver_storage_objects{resource="widgets.example.com"}` (STABLE until Kubernetes 1.34, which
 * deprecated it) and `apiserver_resource_objects{group="example.com",resource="widgets"}`, its
 * replacement with the group in a label of its own as the other apiserver metrics have it
 * (kubernetes/kubernetes#132965, in 1.34). A server that has both gives the same counts.
 */
export const OBJECT_METRICS = ['apiserver_storage_objects', 'apiserver_resource_objects'] as const;
export type ObjectMetric = (typeof OBJECT_METRICS)[number];
const LINE = /^(apiserver_storage_objects|apiserver_resource_objects)\{([^}]*)\}\s+(\S+)/;

export interface ApiserverObjects {
  /** The metric the counts were read from: the old name where the server still has it. */
  metric: ObjectMetric;
  /** Objects per resource, named as apiserver_storage_objects names them (`resource.group`). */
  objects: Map<string, number>;
}

const label = (labels: string, name: string) => new RegExp(`(?:^|,)${name}="([^"]*)"`).exec(labels)?.[1];

/** `apiserver_*_objects` lines of a /metrics page; counts of -1 ("not known yet": not listed) are left out. */
export function parseApiserverObjects(text: string): ApiserverObjects | undefined {
  const byMetric: Record<ObjectMetric, Map<string, number>> = {
    apiserver_storage_objects: new Map(),
    apiserver_resource_objects: new Map(),
  };
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (!match?.[1] || match[2] === undefined) continue;
    const metric = match[1] as ObjectMetric;
    const resource = label(match[2], 'resource');
    const group = metric === 'apiserver_resource_objects' ? label(match[2], 'group') : undefined;
    const count = Number(match[3]);
    if (!resource || !Number.isFinite(count) || count < 0) continue;
    byMetric[metric].set(group ? `${resource}.${group}` : resource, count);
  }
  const metric = OBJECT_METRICS.find((m) => byMetric[m].size > 0);
  return metric ? { metric, objects: byMetric[metric] } : undefined;
}

/**
 * Objects per resource as the API server counts them (the count it keeps of what it stored in etcd;
 * `widgets.example.com` for a custom resource, as the key layout names it). A free cross-check of
 * the keys counted in etcd.
 */
export async function readApiserverObjects(
  kube: KubernetesClients,
  timeoutMs: number,
): Promise<ApiserverObjects> {
  const res = await kube.getRaw('/metrics', AbortSignal.timeout(timeoutMs), {
    keepLine: (line) => OBJECT_METRICS.some((m) => line.startsWith(m)),
  });
  if (res.status !== 200) throw new Error(`the API server answered /metrics with HTTP ${res.status}`);
  const read = parseApiserverObjects(res.body);
  if (!read) throw new Error(`the API server's /metrics has neither ${OBJECT_METRICS.join(' nor ')}`);
  return read;
}
