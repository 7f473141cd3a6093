import type { Evidence, MemberEvidence, MemberInfo } from '../probes/evidence.js';
import type { ContainerLogScan, KubernetesEvidence } from '../probes/kubernetes/evidence.js';
import { layoutOf } from '../probes/kubernetes/layout.js';
import { expectedPods } from '../probes/kubernetes/static-pod-summary.js';
import { sameUrl } from '../etcd/member-ids.js';
import { type Outcome, skipped } from '../probes/outcome.js';
import { parseAlarmList, parseEndpointHealth, parseEndpointStatus, parseMemberList } from './etcd-info.js';
import { type Collected, type CollectedLog, newest } from './offline-sink.js';

const ok = <T>(data: T): Outcome<T> => ({ ok: true, data, durationMs: 0 });

/** Live readings a collection never holds: each rule that needs one says `not evaluated: offline`. */
const OFFLINE = (what: string) => skipped(`offline: ${what} cannot be read from collected evidence`);
const ABSENT = (what: string) => skipped(`offline: no ${what} in the collection`);

/**
 * The evidence model the rules already read, from what a collection held: Kubernetes objects and
 * log scans as `Evidence.kubernetes`, the must-gather's etcd_info as the member list, Status and
 * alarms. Members come only from etcd_info: a member etcd-doctor has no reading of is not in
 * `members`, so no rule calls it down for being absent from the collection.
 */
export function buildOfflineEvidence(c: Collected, label: string): Evidence {
  const scans = c.logs.map((log) => scanOf(log, c));
  const memberList = memberListOf(c);
  const kubernetes = kubernetesEvidence(c, scans, label);
  const info = c.etcdInfo;
  return {
    cluster: label,
    collectedAt: collectedAtOf(c, scans),
    memberList,
    alarms: info.alarm_list !== undefined ? ok(parseAlarmList(info.alarm_list)) : ABSENT('alarm list'),
    members: membersOf(c, memberList.ok ? memberList.data : []),
    kubernetes: ok(kubernetes),
    probes: [],
    timeoutMs: 0,
  };
}

function scanOf({ meta, writer, component }: CollectedLog, c: Collected): ContainerLogScan {
  const pod = meta.pod ?? writer.name;
  const node = meta.node ?? c.pods?.find((p) => p.name === pod)?.node;
  return {
    namespace: meta.namespace ?? '',
    pod,
    container: meta.container ?? writer.container ?? component,
    component,
    // A log file is its member: the rules find a member by the node its log came from.
    node: node ?? (meta.pod ? undefined : writer.name),
    previous: meta.previous,
    bytes: writer.bytes,
    lines: writer.lines,
    signals: writer.signals,
    ...(writer.lastLineAt ? { lastLineAt: writer.lastLineAt } : {}),
    ...(writer.firstLineAt ? { firstLineAt: writer.firstLineAt } : {}),
  };
}

/**
 * etcd_info's member list when the collection has one; otherwise the members the etcd logs name
 * (`added member <id> [<peer urls>]`), each named after the log that says it is that id. A member
 * no collected log speaks for keeps its id as its name.
 */
function memberListOf(c: Collected): Outcome<MemberInfo[]> {
  const etcdLogs = c.logs.filter((l) => l.component === 'etcd');
  const selfName = new Map<string, string>();
  for (const l of etcdLogs) if (l.writer.identity.selfId) selfName.set(l.writer.identity.selfId, nameOf(l));
  const urls = new Map<string, string[]>();
  for (const l of etcdLogs) for (const [id, u] of l.writer.identity.peers) if (u.length) urls.set(id, u);
  if (c.etcdInfo.member_list !== undefined) {
    // JSON rounds uint64 ids: take the exact one from the logs when a peer URL matches.
    const listed = parseMemberList(c.etcdInfo.member_list).map((m) => {
      const exact = [...urls].find(([, u]) => u.some((a) => m.peerUrls.some((b) => sameUrl(a, b))))?.[0];
      return exact ? { ...m, id: exact } : m;
    });
    return ok(listed);
  }
  const ids = new Set([...selfName.keys(), ...urls.keys()]);
  if (ids.size === 0) return ABSENT('member list (and no etcd startup lines naming the members)');
  return ok(
    [...ids].map((id) => ({
      id,
      name: selfName.get(id) ?? '',
      peerUrls: urls.get(id) ?? [],
      clientUrls: [],
      isLearner: false,
    })),
  );
}

/** The member a log speaks for: its node (must-gather: the member is named after it), else its writer. */
function nameOf(l: CollectedLog): string {
  return l.meta.node ?? l.writer.name;
}

/** Members with an etcd_info reading (endpoint status, endpoint health); live-only parts say offline. */
function membersOf(c: Collected, listed: MemberInfo[]): MemberEvidence[] {
  const statuses = c.etcdInfo.endpoint_status ? parseEndpointStatus(c.etcdInfo.endpoint_status) : [];
  const healths = c.etcdInfo.endpoint_health ? parseEndpointHealth(c.etcdInfo.endpoint_health) : [];
  return statuses.map(({ endpoint, status }) => {
    const member = listed.find((m) => m.clientUrls.some((u) => sameUrl(u, endpoint)));
    const health = healths.find((h) => sameUrl(h.endpoint, endpoint))?.health;
    return {
      target: {
        name: member?.name || endpoint,
        endpoint,
        metricsUrl: '',
        id: member?.id ?? status.memberId,
        isLearner: status.isLearner,
      },
      status: ok({ ...status, memberId: member?.id ?? status.memberId }),
      // A must-gather's `took` is history: the slow-reads rule needs a read timed now.
      health: health ? OFFLINE('a linearizable read') : ABSENT('endpoint health'),
      metrics: OFFLINE('a /metrics window'),
      clock: OFFLINE('the member clock'),
    };
  });
}

function kubernetesEvidence(c: Collected, scans: ContainerLogScan[], label: string): KubernetesEvidence {
  const openshift = [...c.namespaces].some((ns) => ns.startsWith('openshift-'));
  const layout = layoutOf(openshift ? 'openshift' : 'kubeadm');
  const pods = c.pods;
  const present = new Set((pods ?? []).map((p) => `${p.namespace}/${p.name}`));
  const events = c.events ? newest(c.events) : undefined;
  return {
    distribution: openshift ? 'openshift' : pods ? 'kubeadm' : 'unknown',
    server: label,
    collectedAt: collectedAtOf(c, scans),
    pods: pods ? ok(pods) : ABSENT('Pod objects'),
    logs: ok({ bounds: { tailLines: 0, sinceSeconds: 0, limitBytes: 0 }, scans, unread: c.skipped }),
    leases: c.leases ? ok(c.leases) : ABSENT('Lease objects'),
    nodes: c.nodes ? ok(c.nodes) : ABSENT('Node objects'),
    staticPods:
      pods && c.nodes
        ? ok({
            expected: c.nodes.flatMap((n) => expectedPods(layout, n.name, present)),
            missingStaticPodEvents: (events ?? []).filter((e) => e.reason === 'MissingStaticPod'),
            etcdOperator: c.etcdOperator ? ok(c.etcdOperator) : undefined,
            notes: [],
          })
        : ABSENT('Pod and Node objects'),
    etcdPods: pods ? ok(c.etcdSpecs) : ABSENT('etcd Pod objects'),
    apiserver: OFFLINE("the apiserver's readyz and read latency"),
    events: events ? ok(events) : ABSENT('Event objects'),
  };
}

/** The collection's own "now": its newest dated line or event, so ages read as of then. */
function collectedAtOf(c: Collected, scans: ContainerLogScan[]): number {
  const times = [
    ...scans.map((s) => (s.lastLineAt ? Date.parse(s.lastLineAt) : Number.NaN)),
    ...(c.events ?? []).map((e) => e.lastSeen ?? Number.NaN),
  ].filter(Number.isFinite);
  return times.length > 0 ? Math.max(...times) : Date.now();
}
