import { z } from 'zod';
import type { EtcdClients } from '../../clients/etcd-clients.js';
import { formatList } from '../../format.js';
import type { ActionContext, ActionOutcome, PlanSnapshot } from '../action.js';
import { done, failed, refused, defineAction } from '../action.js';
import type { RemediationSettings } from '../settings.js';
import { quorumGuard, readClusterState } from './cluster-state.js';
import { defragGain, type DefragThresholds, describeGain, smallGain, thresholdText } from './defrag-gain.js';
import { type DefragOptions, type DefragResult, defragmentInOrder, orderText } from './etcd-members.js';

/**
 * Defragment the members worth it, one at a time, followers first (KB R3): a member whose free
 * pages are under the cluster's thresholds is skipped with the reason, and the leader hands
 * leadership to a caught-up follower before its own turn (gardener/etcd-backup-restore#1052:
 * defragmenting the leader stalls every write), or goes last, as leader, when none can take it.
 * Refuses on an unhealthy cluster or one without failure margin (KB R2), checked again right
 * before every member.
 */
export const defragment = defineAction({
  id: 'defragment',
  label: 'Defragment',
  access: 'responders',
  sideEffects: [
    'etcd: Maintenance.Defragment on each member worth it, one at a time (blocks that member while it runs)',
    'etcd: Maintenance.MoveLeader from the leader to a caught-up follower before the leader is defragmented',
  ],
  needsConfirmation: true,
  argsSchema: z.object({ member: z.string().optional() }),
  describe: (_args, s, settings) => describeDefrag(s, settings),
  run: (_args, ctx) => runDefragment(ctx),
});

export function thresholdsOf(settings: RemediationSettings): DefragThresholds {
  return { minFreeRatio: settings.defragMinFreeRatio, minFreeBytes: settings.defragMinFreeBytes };
}

/** The confirmation: what each member would free (at the diagnosis), who is skipped, and the leader's turn. */
export function describeDefrag(s: PlanSnapshot, settings: RemediationSettings): string[] {
  const t = thresholdsOf(settings);
  if (s.members.length === 0)
    return [
      `Defragment each member worth it (${thresholdText(t)} free, read right before its turn), one at a time, followers first; the leader hands leadership to a caught-up follower first (MoveLeader), or goes last, as leader, when none can take it.`,
      'Only the member being defragmented pauses. It refuses to start if any member is unhealthy or the cluster has no failure margin.',
    ];
  const gains = s.members.map((m) => {
    const gain = defragGain(m.dbSizeBytes, m.dbSizeInUseBytes);
    const leader = m.name === s.leader ? ' (leader)' : '';
    if (!gain) return `${m.name}${leader}: would free an unknown amount (its in-use size was not read)`;
    const small = smallGain(gain, t);
    return small
      ? `${m.name}${leader}: skipped, ${small}`
      : `${m.name}${leader}: would free ${describeGain(gain)}`;
  });
  const worth = s.members
    .filter((m) => !smallGain(defragGain(m.dbSizeBytes, m.dbSizeInUseBytes), t))
    .map((m) => m.name);
  const leaderLine =
    s.leader && worth.includes(s.leader)
      ? `Leader ${s.leader} goes last: leadership first moves to a caught-up follower (MoveLeader), so writes go on; if no follower can take it, ${s.leader} is defragmented as leader and writes pause while it runs.`
      : undefined;
  return [
    `What a defragmentation would free, at the diagnosis (a member is worth it with ${thresholdText(t)}): ${gains.join('; ')}.`,
    worth.length
      ? `Defragment ${orderText(worth, s.leader)}, one at a time; about 10 s each for a DB under 1 GiB, with a health check between members. Each member's gain is read again right before its turn.`
      : 'No member is worth defragmenting now; pressing Run it reads the sizes again and defragments only those that grew worth it.',
    ...(leaderLine ? [leaderLine] : []),
    'Only the member being defragmented pauses. It refuses to start if any member is unhealthy or the cluster has no failure margin.',
  ];
}

/** The button's run and the maintenance window's: the same guards, the same order. */
export async function runDefragment(
  ctx: ActionContext,
  opts: Pick<DefragOptions, 'stopAtMs'> = {},
): Promise<ActionOutcome> {
  const etcd: EtcdClients = await ctx.clients.etcd();
  const state = await readClusterState(etcd);
  const problem = quorumGuard(state, 'defragment');
  if (problem) return refused(problem);
  const result = await defragmentInOrder(etcd, state, ctx, {
    ...opts,
    thresholds: thresholdsOf(ctx.settings),
    moveLeader: true,
  });
  if (!result.ok) return failed(result.stopped ?? 'stopped', result.lines);
  return done(defragSummary(result, ctx.dryRun), result.lines);
}

/** `defragmented etcd-1, etcd-3 and etcd-2 (leadership moved to etcd-1 first); skipped etcd-4 (little to gain)`. */
export function defragSummary(result: DefragResult, dryRun: boolean): string {
  const move = result.leaderMove;
  const verb = dryRun ? 'would defragment' : 'defragmented';
  const leaderPart = !move
    ? ''
    : move.moved
      ? ` (leadership ${dryRun ? 'would move' : 'moved'} from ${move.from} to ${move.to} first)`
      : ` (${move.from} as leader, last: ${move.why})`;
  const did = result.defragmented.length
    ? `${verb} ${formatList(result.defragmented)}${leaderPart}`
    : 'defragmented no member: none was worth it';
  const skipped = result.skipped.length ? `; skipped ${formatList(result.skipped)} (little to gain)` : '';
  return `${did}${skipped}`;
}
