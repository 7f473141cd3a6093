import { parseZap } from '../etcd/scan-logs.js';

/**
 * Who an etcd log belongs to and whom it names: collected logs come without a member list, so
 * the member ids the rules see (`clock difference against peer 8e9e05c52164694d`) are tied to
 * names by the members' own startup lines.
 */
export interface MemberIdentity {
  /** The writer's own member id (hex), from `local-member-id` or `starting member <id>`. */
  selfId: string | undefined;
  /** Its `--name`, from `starting an etcd server` or `published {Name:...}`. */
  selfName: string | undefined;
  /** Members it added to its view of the cluster: id -> peer URLs (`added member`). */
  peers: Map<string, string[]>;
}

export function emptyIdentity(): MemberIdentity {
  return { selfId: undefined, selfName: undefined, peers: new Map() };
}

/** A cluster holds at most this many members worth remembering (etcd recommends 7 at most). */
const MAX_PEERS = 16;

// capnslog forms (ETCD33/34 etcdserver/raft.go, membership/cluster.go, embed/config_logging.go);
// under journald (etcd 3.0–3.4 as a systemd unit) the `<package>: ` prefix is not in the message.
const STARTING = /\b(?:re)?starting member ([0-9a-f]+) in cluster/;
const NAME_IS = /(?:\bembed: |^)name = (\S+)$/;
const PUBLISHED = /published \{Name:(\S+) /;
const ADDED = /\badded member ([0-9a-f]+) \[([^\]]*)\] to cluster/;

/** Reads identity from one application line; cheap for the lines that carry none. */
export function readIdentity(text: string, id: MemberIdentity): void {
  if (!text.includes('member') && !text.includes('name')) return;
  const zap = text.startsWith('{"') ? parseZap(text) : undefined;
  if (zap) {
    readZapIdentity(zap.msg, zap.fields, id);
    return;
  }
  id.selfId ??= STARTING.exec(text)?.[1];
  id.selfName ??= NAME_IS.exec(text)?.[1] ?? PUBLISHED.exec(text)?.[1];
  const added = ADDED.exec(text);
  if (added?.[1]) addPeer(id, added[1], (added[2] ?? '').split(/[ ,]+/).filter(Boolean));
}

function readZapIdentity(msg: string, fields: Record<string, unknown>, id: MemberIdentity): void {
  const str = (key: string) => (typeof fields[key] === 'string' ? (fields[key] as string) : undefined);
  id.selfId ??= str('local-member-id');
  if (msg === 'starting an etcd server') id.selfName ??= str('name');
  if (msg === 'published local member to cluster through raft')
    id.selfName ??= /\{Name:(\S+) /.exec(str('local-member-attributes') ?? '')?.[1];
  if (msg === 'added member') {
    const urls = fields['added-peer-peer-urls'];
    const peer = str('added-peer-id');
    if (peer) addPeer(id, peer, Array.isArray(urls) ? urls.filter((u) => typeof u === 'string') : []);
  }
}

function addPeer(id: MemberIdentity, peer: string, urls: string[]): void {
  if (id.peers.has(peer) || id.peers.size < MAX_PEERS) id.peers.set(peer, urls);
}
