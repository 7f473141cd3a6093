import type { EtcdInfoName, LogStreamMeta } from '../collection.js';

/**
 * Where each file of a collection sits in its layout, and what a reader does with it.
 *
 * `oc adm must-gather` runs `oc adm inspect` inside `<root>/<image-dir>/` (openshift/oc
 * pkg/cli/admin/inspect: namespace.go, pod.go, util.go dirPathForInfo):
 *   namespaces/<ns>/<group>/<resource>.yaml          a List (`core` for the core group)
 *   namespaces/<ns>/<group>/<resource>/<name>.yaml   one object
 *   namespaces/<ns>/pods/<pod>/<pod>.yaml            the pod
 *   namespaces/<ns>/pods/<pod>/<c>/<c>/logs/{current,previous}.log   `--timestamps` container logs
 *   cluster-scoped-resources/<group>/<resource>[/<name>].yaml        nodes, etcds.operator.openshift.io
 *   etcd_info/{member_list,endpoint_status,endpoint_health,alarm_list}.json  (gather_etcd)
 * `kubectl cluster-info dump --output-directory` (kubectl pkg/cmd/clusterinfo/clusterinfo_dump.go):
 *   nodes.json, <ns>/{events,pods,services,...}.json, <ns>/<pod>/logs.txt (START/END sections).
 */
export type Layout = 'must-gather' | 'cluster-info-dump';

export type EntryRole =
  | { layout: Layout; role: 'log'; meta: LogStreamMeta }
  | { layout: Layout; role: 'log-sections' }
  | { layout: Layout; role: 'objects'; format: 'yaml' | 'json' }
  | { layout: Layout; role: 'etcd-info'; name: EtcdInfoName };

/** The objects the rules read (pods, nodes, events, leases, the OpenShift etcd operator), by API group. */
export const WANTED_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  core: ['pods', 'events', 'nodes'],
  'coordination.k8s.io': ['leases'],
  'operator.openshift.io': ['etcds'],
};

const ETCD_INFO = new Set<string>(['member_list', 'endpoint_status', 'endpoint_health', 'alarm_list']);
const MG_MARKERS = new Set(['namespaces', 'cluster-scoped-resources', 'etcd_info']);
/** Names only a must-gather has, for telling its kind before any object is read. */
const MG_ONLY = new Set([
  ...MG_MARKERS,
  'audit_logs',
  'host_service_logs',
  'timestamp',
  'event-filter.html',
  'must-gather.logs',
]);
const DUMP_LISTS = new Set(['nodes', 'pods', 'events']);

/** The role of a file, or undefined for files no rule needs (configmaps, metrics, audit logs, ...). */
export function classifyEntry(path: string): EntryRole | undefined {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  const at = parts.findIndex((p) => MG_MARKERS.has(p));
  if (at !== -1) return mustGatherRole(parts.slice(at));
  return dumpRole(parts);
}

/** Which layout a path (file or folder) gives away, for sniffing a tarball or a directory. */
export function layoutHint(path: string): Layout | undefined {
  const parts = path.split('/').filter((p) => p !== '' && p !== '.');
  if (parts.some((p) => MG_ONLY.has(p)) || parts[0]?.startsWith('must-gather.local.')) return 'must-gather';
  return dumpRole(parts) ? 'cluster-info-dump' : undefined;
}

function mustGatherRole(parts: string[]): EntryRole | undefined {
  const [top, ns, group, ...rest] = parts;
  const file = parts.at(-1) ?? '';
  if (top === 'etcd_info') {
    const name = file.replace(/\.json$/, '');
    return parts.length === 2 && file.endsWith('.json') && ETCD_INFO.has(name)
      ? { layout: 'must-gather', role: 'etcd-info', name: name as EtcdInfoName }
      : undefined;
  }
  if (top === 'namespaces' && ns && group === 'pods') return podFileRole(ns, rest);
  if (top === 'namespaces' && ns && group) return objectsRole(group, rest);
  if (top === 'cluster-scoped-resources' && ns) return objectsRole(ns, group ? [group, ...rest] : []);
  return undefined;
}

/** `<pod>/<pod>.yaml`, or `<pod>/<c>/<c>/logs/{current,previous}.log` (and rotated `logs/...log*`). */
function podFileRole(namespace: string, rest: string[]): EntryRole | undefined {
  const [pod, container, again, logs, ...file] = rest;
  if (!pod) return undefined;
  if (rest.length === 2 && container === `${pod}.yaml`)
    return { layout: 'must-gather', role: 'objects', format: 'yaml' };
  const name = file.at(-1) ?? '';
  if (!container || again !== container || logs !== 'logs' || !/\.log($|\.)/.test(name)) return undefined;
  const source = ['namespaces', namespace, 'pods', ...rest].join('/');
  const meta: LogStreamMeta = { source, namespace, pod, container, previous: name.startsWith('previous') };
  return { layout: 'must-gather', role: 'log', meta };
}

/** `<group>/<resource>.yaml` (a List) or `<group>/<resource>/<name>.yaml`, for the wanted resources. */
function objectsRole(group: string, rest: string[]): EntryRole | undefined {
  const [first, second] = rest;
  const resource = rest.length === 1 ? first?.replace(/\.yaml$/, '') : rest.length === 2 ? first : undefined;
  const file = rest.length === 1 ? first : second;
  if (!resource || !file?.endsWith('.yaml') || !WANTED_RESOURCES[group]?.includes(resource)) return undefined;
  return { layout: 'must-gather', role: 'objects', format: 'yaml' };
}

function dumpRole(parts: string[]): EntryRole | undefined {
  const file = parts.at(-1) ?? '';
  if (file === 'logs.txt' && parts.length >= 3) return { layout: 'cluster-info-dump', role: 'log-sections' };
  const list = file.replace(/\.json$/, '');
  if (!file.endsWith('.json') || !DUMP_LISTS.has(list)) return undefined;
  if (list !== 'nodes' && parts.length < 2) return undefined; // <ns>/pods.json, <ns>/events.json
  return { layout: 'cluster-info-dump', role: 'objects', format: 'json' };
}
