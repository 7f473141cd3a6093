import { basename } from 'node:path';
import { boundedMessage } from '../untrusted-text.js';
import {
  CONTROL_PLANE_COMPONENTS,
  type ControlPlaneComponent,
  type ControlPlaneNode,
  type ControlPlanePod,
  type EtcdOperatorStatus,
  type EtcdPodSpec,
  type LeaseInfo,
  type WarningEvent,
} from '../probes/kubernetes/evidence.js';
import {
  plainControlPlaneNode,
  plainControlPlanePod,
  plainEtcdPodSpec,
  plainLeaderLease,
  plainPodComponent,
  plainWarningEvent,
} from '../probes/kubernetes/plain-objects.js';
import { parseEtcdOperator } from '../probes/kubernetes/static-pod-summary.js';
import type { CollectionSink, EtcdInfoName, KubeObject, LogStreamMeta } from './collection.js';
import { OfflineInputError } from '../errors.js';
import { SHARE_INSTEAD } from './readers/limits.js';
import { scanLogStream, type WriterLog } from './log-stream.js';

/** One writer of one log stream, with the component it is. */
export interface CollectedLog {
  meta: LogStreamMeta;
  writer: WriterLog;
  component: ControlPlaneComponent;
}

/** What the rules need from a collection, and no more: summaries, never whole objects or logs. */
export interface Collected {
  logs: CollectedLog[];
  /** Streams that were read but are not control-plane logs (another pod's), by count. */
  otherStreams: number;
  pods: ControlPlanePod[] | undefined;
  etcdSpecs: EtcdPodSpec[];
  nodes: ControlPlaneNode[] | undefined;
  events: WarningEvent[] | undefined;
  leases: LeaseInfo[] | undefined;
  etcdOperator: EtcdOperatorStatus | undefined;
  etcdInfo: Partial<Record<EtcdInfoName, unknown>>;
  /** Namespaces objects came from: OpenShift's tell the distribution. */
  namespaces: Set<string>;
  skipped: string[];
  objects: number;
}

export interface OfflineSink extends CollectionSink {
  collected(): Collected;
}

/**
 * Control-plane container logs read from one input. Each keeps its writers' summaries (~3.5 KB):
 * 50,000 one-line etcd logs in a 500 KB tarball held 176 MB. A must-gather has a few dozen (each
 * control-plane pod's containers, current and previous).
 */
export const MAX_COMPONENT_LOGS = 2000;

/** Newest Warning events kept; a must-gather holds thousands, rules read the last few dozen. */
const MAX_EVENTS = 500;
const MAX_SKIPPED_NOTES = 20;

export function createOfflineSink(opts: { maxLineChars: number; signal?: AbortSignal }): OfflineSink {
  const c: Collected = {
    logs: [],
    otherStreams: 0,
    pods: undefined,
    etcdSpecs: [],
    nodes: undefined,
    events: undefined,
    leases: undefined,
    etcdOperator: undefined,
    etcdInfo: {},
    namespaces: new Set(),
    skipped: [],
    objects: 0,
  };
  let componentLogs = 0;
  return {
    async log(meta, lines) {
      if (meta.container !== undefined && !isComponent(meta.container)) {
        c.otherStreams++;
        for await (const _ of lines) opts.signal?.throwIfAborted();
        return;
      }
      if (++componentLogs > MAX_COMPONENT_LOGS) throw tooManyLogs(meta);
      const writers = await scanLogStream(lines, {
        name: streamName(meta),
        maxLineChars: opts.maxLineChars,
        ...(opts.signal ? { signal: opts.signal } : {}),
      });
      for (const writer of writers) c.logs.push({ meta, writer, component: componentOf(meta, writer) });
    },
    object(obj) {
      c.objects++;
      addObject(c, obj);
    },
    etcdInfo(name, json) {
      c.etcdInfo[name] = json;
    },
    skipped(source, reason) {
      // An entry's path is the file's: cut, as any untrusted text in a message (untrusted-text.ts).
      if (c.skipped.length < MAX_SKIPPED_NOTES) c.skipped.push(boundedMessage(`${source}: ${reason}`, 400));
    },
    collected: () => c,
  };
}

function tooManyLogs(meta: LogStreamMeta): OfflineInputError {
  return new OfflineInputError(
    `more than ${MAX_COMPONENT_LOGS} control-plane container logs (the last: ${meta.source}), over the limit for one analysis: ${SHARE_INSTEAD}`,
  );
}

function addObject(c: Collected, obj: KubeObject): void {
  const ns = obj.metadata?.namespace;
  if (ns) c.namespaces.add(ns);
  if (obj.kind === 'Pod') {
    c.pods ??= [];
    const component = plainPodComponent(obj);
    if (!component) return;
    c.pods.push(plainControlPlanePod(obj, component));
    if (component === 'etcd') c.etcdSpecs.push(plainEtcdPodSpec(obj));
  } else if (obj.kind === 'Node') {
    c.nodes ??= [];
    const node = plainControlPlaneNode(obj);
    if (node) c.nodes.push(node);
  } else if (obj.kind === 'Event') {
    c.events ??= [];
    const event = plainWarningEvent(obj);
    if (event) c.events.push(event);
    if (c.events.length > 2 * MAX_EVENTS) c.events = newest(c.events);
  } else if (obj.kind === 'Lease') {
    c.leases ??= [];
    const lease = plainLeaderLease(obj);
    if (lease) c.leases.push(lease);
  } else if (obj.kind === 'Etcd' && obj.metadata?.name === 'cluster') {
    c.etcdOperator = parseEtcdOperator(obj);
  }
}

export function newest(events: WarningEvent[]): WarningEvent[] {
  return [...events].sort((a, b) => (b.lastSeen ?? 0) - (a.lastSeen ?? 0)).slice(0, MAX_EVENTS);
}

function isComponent(name: string): name is ControlPlaneComponent {
  return (CONTROL_PLANE_COMPONENTS as readonly string[]).includes(name);
}

/** A log file is its member: `etcd-1.log` -> etcd-1, `etcd-1.log.gz` -> etcd-1, `/tmp/m2-etcd.txt.1` -> m2-etcd; stdin is `stdin`. */
export function streamName(meta: LogStreamMeta): string {
  if (meta.member) return meta.member;
  if (meta.pod) return meta.pod;
  if (meta.source === '-') return 'stdin';
  const name = basename(meta.source).replace(/(\.(log|txt|json|out|gz|\d+))+$/i, '');
  return name || meta.source;
}

/** Longest first: `kube-controller-manager-m1` is not kube-apiserver, `etcd-m1` is etcd. */
const BY_NAME: ControlPlaneComponent[] = [
  'kube-controller-manager',
  'kube-scheduler',
  'kube-apiserver',
  'etcd',
];

function componentOf(meta: LogStreamMeta, w: WriterLog): ControlPlaneComponent {
  for (const name of [meta.container, w.container]) if (name && isComponent(name)) return name;
  if (w.etcdLines > w.klogLines) return 'etcd';
  const named = BY_NAME.find((c) => w.name.includes(c) || basename(meta.source).includes(c));
  if (named) return named;
  if (w.etcdLines > 0) return 'etcd';
  // klog without a name: the lease holders say leaderelection lost; anything else is read as the apiserver's.
  return w.signals.leaderElectionLost.count > 0 ? 'kube-controller-manager' : 'kube-apiserver';
}
