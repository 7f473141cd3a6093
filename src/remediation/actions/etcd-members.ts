import type { EtcdClients, MemberClients } from '../../clients/etcd-clients.js';
import { formatBytes } from '../../report/format.js';
import type { ActionContext } from '../action.js';
import {
  type ClusterState,
  callOpts,
  type MemberState,
  quorumGuard,
  readClusterState,
  shortOpts,
} from './cluster-state.js';
import { waitMemberReady } from './member-ready.js';

/** Followers in member order, then the leader (CEOP and etcd-defrag: leader last). */
export function defragOrder(members: MemberState[]): MemberState[] {
  return [...members.filter((m) => !m.isLeader && !m.isLearner), ...members.filter((m) => m.isLeader)];
}

/** `defragment etcd-1, etcd-3, then leader etcd-2` */
export function orderText(names: string[], leader: string | undefined): string {
  const followers = names.filter((n) => n !== leader);
  if (!leader) return followers.join(', ');
  return followers.length ? `${followers.join(', ')}, then leader ${leader}` : `leader ${leader}`;
}

export interface DefragResult {
  ok: boolean;
  lines: string[];
  order: string[];
  /** Why it stopped early. */
  stopped?: string;
}

/**
 * Defragments every voting member, one at a time, leader last; between members it waits until the
 * defragmented member is ready again (member-ready.ts), and guards quorum before each (KB R2/R3).
 */
export async function defragmentInOrder(
  etcd: EtcdClients,
  state: ClusterState,
  ctx: ActionContext,
): Promise<DefragResult> {
  const order = defragOrder(state.members);
  const lines: string[] = [];
  const progress = (line: string) => void ctx.progress(line);
  for (const [i, m] of order.entries()) {
    const clients = etcd.forEndpoint(m.endpoint);
    const before = m.dbSizeBytes;
    if (ctx.dryRun) {
      lines.push(`${m.name}${m.isLeader ? ' (leader)' : ''}: would defragment (db ${size(before)})`);
      progress(lines.at(-1) ?? '');
      continue;
    }
    progress(`defragmenting ${m.name}${m.isLeader ? ' (leader)' : ''} (${i + 1} of ${order.length})…`);
    // KB R2/R3 again right before every member's Defragment, nothing but the lock's check awaited in
    // between: one may have died since the last look (during a long snapshot, or the previous
    // member's defragmentation), and another action may hold the cluster now.
    const problem = quorumGuard(await readClusterState(etcd, ctx), `defragment ${m.name}`);
    if (problem) return { ok: false, lines, order: order.map((o) => o.name), stopped: problem };
    await ctx.safePoint(`defragmenting ${m.name}`);
    const started = performance.now();
    await clients.maintenance.maintenance.defragment(callOpts(ctx));
    const tookMs = performance.now() - started;
    const after = await dbSize(clients, ctx);
    lines.push(
      `${m.name}${m.isLeader ? ' (leader)' : ''}: db ${size(before)} → ${size(after)} in ${(tookMs / 1000).toFixed(1)} s`,
    );
    progress(lines.at(-1) ?? '');
    if (i === order.length - 1) break;
    const ready = await waitMemberReady(etcd, m.name, ctx);
    if (!ready.ok) {
      const stopped = `${ready.line}; stopped before ${order[i + 1]?.name ?? 'the next member'}`;
      return { ok: false, lines, order: order.map((o) => o.name), stopped };
    }
    lines.push(ready.line);
    progress(ready.line);
  }
  return { ok: true, lines, order: order.map((o) => o.name) };
}

async function dbSize(clients: MemberClients, ctx: Pick<ActionContext, 'now'>): Promise<number | undefined> {
  try {
    return Number((await clients.maintenance.maintenance.status(shortOpts(ctx))).dbSize);
  } catch {
    return undefined;
  }
}

function size(bytes: number | undefined): string {
  return bytes === undefined ? 'unknown' : formatBytes(bytes);
}
