import type { KubernetesClients } from '../../clients/kubernetes.js';

const METRIC = 'apiserver_storage_objects';
const LINE = /^apiserver_storage_objects\{([^}]*)\}\s+(\S+)/;

/**
 * Objects per resource as the API server counts them (`apiserver_storage_objects{resource=…}`, the
 * count it keeps of what it stored in etcd; `widgets.example.com` for a custom resource, as the key
 * layout names it). A free cross-check of the keys counted in etcd.
 */
export async function readApiserverObjects(
  kube: KubernetesClients,
  timeoutMs: number,
): Promise<Map<string, number>> {
  const res = await kube.getRaw('/metrics', AbortSignal.timeout(timeoutMs), {
    keepLine: (line) => line.startsWith(METRIC),
  });
  if (res.status !== 200) throw new Error(`the API server answered /metrics with HTTP ${res.status}`);
  const objects = new Map<string, number>();
  for (const line of res.body.split('\n')) {
    const match = LINE.exec(line);
    const resource = match?.[1] && /(?:^|,)resource="([^"]+)"/.exec(match[1])?.[1];
    const count = Number(match?.[2]);
    // -1 is "not known yet" (the apiserver had not listed it).
    if (resource && Number.isFinite(count) && count >= 0) objects.set(resource, count);
  }
  if (objects.size === 0) throw new Error(`the API server's /metrics has no ${METRIC}`);
  return objects;
}
