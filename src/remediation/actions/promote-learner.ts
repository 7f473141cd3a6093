import { z } from 'zod';
import type { EtcdClients } from '../../clients/etcd-clients.js';
import { type ActionContext, defineAction, done, failed, refused } from '../action.js';
import { readClusterState } from './cluster-state.js';
import { decimalId, findMember, guardedMemberCall, memberListLine, promoteRefusal } from './member-change.js';

/**
 * A learner that has caught up becomes a voting member (MemberPromote, WEB learner.md). Offered on a
 * diagnosis (learner-not-promoted) and at the end of replace-member. Refused unless it answers,
 * follows the leader and is caught up, and unless the healthy voters stay a quorum of the larger
 * cluster; checked at the start and again right before the call (member-change.ts).
 */
export const promoteLearner = defineAction({
  id: 'promote-learner',
  label: 'Promote',
  access: 'responders',
  sideEffects: ['etcd: MemberPromote of one learner (it becomes a voting member; quorum grows with it)'],
  needsConfirmation: true,
  argsSchema: z.object({ member: z.string().min(1).max(253) }),
  describe(args, s) {
    const voters = s.members.length;
    return [
      `Promote learner ${args.member} to a voting member. Quorum is then counted over one more voter; it refuses unless ${args.member} answers, follows the leader and is within 100 applied entries of it, and unless the healthy voters stay a quorum.`,
      `${s.members.filter((m) => m.reachable).length} of ${voters} members answered at the diagnosis.`,
    ];
  },
  async run(args, ctx) {
    const etcd = await ctx.clients.etcd();
    const state = await readClusterState(etcd);
    const why = promoteRefusal(state, args.member);
    if (why) return refused(why, [memberListLine(state)]);
    if (ctx.dryRun) return done(`would promote ${args.member}`, [memberListLine(state)]);
    const promoted = await promoteInPlace(etcd, args.member, ctx);
    const list = memberListLine(await readClusterState(etcd));
    if (!promoted.ok) return (promoted.refused ? refused : failed)(promoted.line, [list]);
    return done(promoted.line, [list]);
  },
});

/**
 * MemberPromote of the learner named `name`, guarded right before each try. etcd answers `can only
 * promote a learner member which is in sync with leader` until its own gate is met; that is
 * retried (member-change.ts), as is a promotion whose answer was lost (it shows as a voter).
 */
export async function promoteInPlace(
  etcd: EtcdClients,
  name: string,
  ctx: ActionContext,
): Promise<{ ok: boolean; refused: boolean; line: string }> {
  const before = await readClusterState(etcd);
  const found = findMember(before, name, 'promote');
  if ('why' in found) return { ok: false, refused: true, line: found.why };
  const id = found.member.id;
  const result = await guardedMemberCall(
    etcd,
    ctx,
    {
      name: `promote ${name}`,
      guard: (s) => promoteRefusal(s, name),
      already: (s) => (s.members.some((m) => m.id === id && !m.isLearner) ? 'promoted' : undefined),
    },
    (client, opts) => client.cluster.memberPromote({ ID: decimalId(id) }, opts).then(() => 'promoted'),
  );
  if (!result.ok) return { ok: false, refused: result.refused, line: result.why };
  await untilListedAsVoter(etcd, id, ctx);
  return { ok: true, refused: false, line: `promoted ${name} (id ${id}) to a voting member` };
}

/** How long the member list is read again after a promotion until it shows it. */
const LISTED_SETTLE_MS = 5000;

/**
 * etcd 3.4 serves MemberList from the answering member's own view (MemberListRequest's
 * `linearizable` came in 3.5, api/etcdserverpb/rpc.proto): right after a promotion, a member that
 * has not applied it yet still lists a learner, and the "member list now" line would say so. The
 * list is read again, briefly, until it shows the promotion; after that the line says what it says.
 */
async function untilListedAsVoter(etcd: EtcdClients, id: string, ctx: ActionContext): Promise<void> {
  const giveUpAt = ctx.now() + LISTED_SETTLE_MS;
  for (let read = 0; read < LISTED_SETTLE_MS / 250; read += 1) {
    const state = await readClusterState(etcd);
    if (state.members.some((m) => m.id === id && !m.isLearner) || ctx.now() >= giveUpAt) return;
    await ctx.sleep(250);
  }
}
