import { metricsUrlOf } from '../../probes/member-targets.js';
import type { ActionContext } from '../action.js';
import type { ClusterState, MemberState } from './cluster-state.js';

/**
 * The second view of a member etcd-doctor cannot reach: do the other members still talk to it?
 * Each member's rafthttp keeps `etcd_network_active_peers{Local=<its id>,Remote=<peer id>}` at 1
 * while it holds a working stream to that peer and drops it to 0 when the stream fails (etcd
 * server/etcdserver/api/rafthttp peer_status.go activate/deactivate; metrics.go). A member its
 * peers are connected to is running: what fails is the path from etcd-doctor (a firewall, a
 * route, a wrong client URL), and removing it from the member list would make a healthy member exit.
 */
export interface PeerView {
  /** Members with an active peer connection to the target now. */
  seenBy: string[];
  /** Members that answered /metrics and hold no active connection to it. */
  notSeenBy: string[];
  /** Members whose /metrics did not answer, with why. */
  unasked: string[];
}

const ACTIVE_PEERS = /^etcd_network_active_peers\{([^}]{0,256})\}\s+(\S+)/;
const LABEL = /(\w+)="([^"]{0,64})"/g;

/** Scrapes every other reachable member's /metrics once (each with the action's short deadline). */
export async function peerView(
  state: ClusterState,
  target: MemberState,
  ctx: Pick<ActionContext, 'cluster' | 'clients'>,
  timeoutMs: number,
): Promise<PeerView> {
  const others = state.members.filter((m) => m !== target && m.reachable && m.id);
  const view: PeerView = { seenBy: [], notSeenBy: [], unasked: [] };
  await Promise.all(
    others.map(async (m) => {
      const url = metricsUrlOf(
        ctx.cluster,
        m.endpoint,
        ctx.cluster.etcd.endpoints?.indexOf(m.endpoint) ?? -1,
      );
      try {
        const text = await ctx.clients.metrics(url, AbortSignal.timeout(timeoutMs));
        const active = activeConnection(text, m.id, target.id);
        (active ? view.seenBy : view.notSeenBy).push(m.name);
      } catch (err) {
        view.unasked.push(`${m.name} (${url}: ${err instanceof Error ? err.message : String(err)})`);
      }
    }),
  );
  for (const list of [view.seenBy, view.notSeenBy, view.unasked]) list.sort();
  return view;
}

/** Whether `local`'s /metrics says it holds an active peer connection to `remote` (ids in hex). */
export function activeConnection(metricsText: string, local: string, remote: string): boolean {
  for (const line of metricsText.split('\n')) {
    const m = ACTIVE_PEERS.exec(line);
    if (!m) continue;
    const labels = Object.fromEntries([...(m[1] ?? '').matchAll(LABEL)].map((l) => [l[1], l[2]]));
    if (sameId(labels.Local, local) && sameId(labels.Remote, remote) && Number(m[2]) >= 1) return true;
  }
  return false;
}

const sameId = (a: string | undefined, b: string) =>
  a !== undefined && a.replace(/^0+/, '') === b.replace(/^0+/, '');

/** Why `name` may not be called lost on this view, or undefined when its peers lost it too. */
export function peerViewRefusal(name: string, endpoint: string, view: PeerView): string | undefined {
  if (view.seenBy.length)
    return `refusing to replace ${name}: etcd-doctor cannot reach it (${endpoint}), but ${view.seenBy.join(', ')} ${view.seenBy.length === 1 ? 'has' : 'have'} an active peer connection to it now (etcd_network_active_peers): it is running, and the path from etcd-doctor to it is what fails. Check the network, the firewall and the client URL between the worker and ${name}; a replaced member that still runs exits`;
  if (view.notSeenBy.length === 0)
    return `refusing to replace ${name}: etcd-doctor cannot reach it, and no other member's /metrics answered to say whether its peers can (${view.unasked.join('; ') || 'no other member answers'}); a member is called lost only when a second view agrees`;
  return undefined;
}
