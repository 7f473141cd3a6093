import { z } from 'zod';
import { done, failed, refused, defineAction } from '../action.js';
import { quorumGuard, readClusterState } from './cluster-state.js';
import { defragmentInOrder, orderText } from './etcd-members.js';

/**
 * Defragment every member, one at a time, followers first and the leader last, with a pause and a
 * health check between members (KB R3). Refuses on an unhealthy cluster or one without failure
 * margin (KB R2). Defragment blocks one member's reads and writes while it rebuilds; the others
 * keep the cluster writable.
 */
export const defragment = defineAction({
  id: 'defragment',
  label: 'Defragment',
  access: 'responders',
  sideEffects: [
    'etcd: Maintenance.Defragment on every member, one at a time (blocks that member while it runs)',
  ],
  needsConfirmation: true,
  argsSchema: z.object({ member: z.string().optional() }),
  describe(_args, s) {
    const names = s.members.map((m) => m.name);
    return [
      `Defragment ${orderText(names, s.leader)}, one at a time; about 10 s each for a DB under 1 GiB, with a pause and a health check between members.`,
      'The cluster stays writable: only the member being defragmented pauses. It refuses to start if any member is unhealthy or the cluster has no failure margin.',
    ];
  },
  async run(_args, ctx) {
    const etcd = await ctx.clients.etcd();
    const state = await readClusterState(etcd, ctx);
    const problem = quorumGuard(state, 'defragment');
    if (problem) return refused(problem);
    const result = await defragmentInOrder(etcd, state, ctx);
    if (!result.ok) return failed(result.stopped ?? 'stopped', result.lines);
    const verb = ctx.dryRun ? 'would defragment' : 'defragmented';
    return done(
      `${verb} ${orderText(result.order, state.members.find((m) => m.isLeader)?.name)}`,
      result.lines,
    );
  },
});
