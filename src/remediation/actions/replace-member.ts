import { z } from 'zod';
import type { EtcdClients } from '../../clients/etcd-clients.js';
import type { ClusterConfig } from '../../config/schema.js';
import { detectDistribution } from '../../probes/kubernetes/layout.js';
import { formatDuration } from '../../format.js';
import { type ActionContext, type ActionOutcome, defineAction, done, failed, refused } from '../action.js';
import {
  type ClusterState,
  type MemberState,
  readClusterState,
  readClusterStateAfterElection,
} from './cluster-state.js';
import { initialClusterOf, joinInstructions } from './join-instructions.js';
import { watchLearner } from './learner-watch.js';
import { decimalId, findMember, guardedMemberCall, memberListLine, replaceRefusal } from './member-change.js';
import { promoteInPlace } from './promote-learner.js';
import { peerView, peerViewRefusal } from './peer-view.js';

/**
 * OpenShift's cluster-etcd-operator owns membership there: it removes and adds members itself,
 * and a member changed behind its back fights it. The documented procedure instead.
 */
export const OPENSHIFT_REPLACE_RUNBOOK =
  'https://docs.openshift.com/container-platform/latest/backup_and_restore/control_plane_backup_and_restore/replacing-unhealthy-etcd-member.html';

const argsSchema = z.object({
  member: z.string().min(1).max(253),
  /** Chosen in the confirmation: promote once caught up, or leave it to a Promote button. */
  promote: z.enum(['auto', 'button']).optional(),
});

/**
 * A voter whose disk or machine is gone: remove it by ID, add it back as a learner with the same
 * peer URLs (MemberAdd isLearner; its name arrives when it starts), tell the thread exactly how to
 * start it, watch it catch up, and promote it (WEB runtime-configuration.md "Replace a failed
 * machine"; faq.md: remove first, then add; learner.md). Every step reads the cluster again right
 * before it acts (member-change.ts guards).
 */
export const replaceMember = defineAction({
  id: 'replace-member',
  label: 'Replace',
  access: 'responders',
  sideEffects: [
    'etcd: MemberRemove of the lost member, then MemberAdd of a learner with the same peer URLs',
    'etcd: MemberPromote of that learner once it has caught up (or a Promote button)',
    'nothing on the machine: a person starts the member as the thread says',
  ],
  needsConfirmation: true,
  choices: [
    { label: 'Run it, promote when caught up', args: { promote: 'auto' } },
    { label: 'Run it, I will press Promote', args: { promote: 'button' } },
  ],
  argsSchema,
  unavailable: (cluster) => (isOpenShift(cluster) ? openShiftText(cluster.name) : undefined),
  describe(args, s) {
    const up = s.members.filter((m) => m.reachable).length;
    return [
      `Replace ${args.member}: remove it from the member list, add it back as a learner with the same name and peer URLs, and post in the thread how to start it with an empty data dir and \`--initial-cluster-state existing\`. Once it has caught up with the leader, promote it yourself with etcd-doctor's Promote button, or let etcd-doctor promote it.`,
      `${up} of ${s.members.length} members answered at the diagnosis. It refuses if ${args.member} answers, if another member still has a peer connection to it (then it runs, and the path from etcd-doctor is what fails), if another member is down, if the cluster has a learner already, or if removing it would leave fewer healthy voters than quorum.`,
      'Only for a member whose data or machine is gone: its old data dir must not be started again.',
    ];
  },
  async run(args, ctx) {
    const where = await whereItRuns(ctx);
    if (where === 'openshift')
      return {
        ...refused(openShiftText(ctx.cluster.name)),
        link: { label: 'Runbook', url: OPENSHIFT_REPLACE_RUNBOOK },
      };
    if (typeof where !== 'string') return refused(where.why);
    const etcd = await ctx.clients.etcd();
    const state = await readClusterStateAfterElection(etcd, ctx);
    const why = replaceRefusal(state, args.member);
    if (why) return refused(why, [memberListLine(state)]);
    const found = findMember(state, args.member, 'replace');
    if ('why' in found) return refused(found.why);
    // "Does not answer etcd-doctor" is one view; its peers' is the second (peer-view.ts).
    const view = await peerView(state, found.member, ctx, PEER_VIEW_TIMEOUT_MS);
    const alive = peerViewRefusal(args.member, found.member.endpoint, view);
    if (alive) return refused(alive, [memberListLine(state)]);
    if (ctx.dryRun)
      return done(`would replace ${args.member}`, [
        `would remove ${args.member} (id ${found.member.id}) and add it back as a learner with peer URLs ${(found.member.peerUrls ?? []).join(', ')}`,
        memberListLine(state),
      ]);
    const plan = { distribution: where, promote: args.promote ?? 'button' } as const;
    return replace(etcd, found.member, plan, ctx);
  },
  interrupted: (args) =>
    `Check \`etcdctl member list\`: if ${args.member} is missing (removed, not added back), add it as a learner with the peer URLs it had (\`etcdctl member add ${args.member} --learner --peer-urls=<its peer URLs>\`) and start it with an empty data dir as the thread says; if it is listed as a learner, start it as posted and press Promote (or \`etcdctl member promote <id>\`) once it has caught up.`,
});

/** One /metrics GET per other member: answered locally, as Status is. */
const PEER_VIEW_TIMEOUT_MS = 3000;

const isOpenShift = (cluster: ClusterConfig) => cluster.kubernetes?.distribution === 'openshift';

function openShiftText(cluster: string): string {
  return `cluster ${cluster} runs OpenShift, whose etcd operator replaces members itself; follow its runbook "Replacing an unhealthy etcd member" (${OPENSHIFT_REPLACE_RUNBOOK}) instead. Nothing was done`;
}

/** kubeadm or OpenShift as configured or detected (as restart-static-pod does); `plain` without Kubernetes. */
async function whereItRuns(ctx: ActionContext): Promise<'kubeadm' | 'openshift' | 'plain' | { why: string }> {
  const k8s = ctx.cluster.kubernetes;
  if (!k8s) return 'plain';
  if (k8s.distribution && k8s.distribution !== 'auto') return k8s.distribution;
  try {
    return await detectDistribution(await ctx.clients.kubernetes(), 5000);
  } catch (err) {
    return {
      why: `could not tell whether cluster ${ctx.cluster.name} runs OpenShift, whose operator must do this itself (${err instanceof Error ? err.message : String(err)}); nothing was done. Set kubernetes.distribution in the config`,
    };
  }
}

interface ReplacePlan {
  distribution: 'kubeadm' | 'plain';
  promote: 'auto' | 'button';
}

async function replace(
  etcd: EtcdClients,
  target: MemberState,
  plan: ReplacePlan,
  ctx: ActionContext,
): Promise<ActionOutcome> {
  const lines: string[] = [];
  const step = (line: string) => {
    lines.push(line);
    void ctx.progress(line);
  };
  const name = target.name;
  const peerUrls = target.peerUrls ?? [];
  const removed = await guardedMemberCall(
    etcd,
    ctx,
    {
      name: `remove ${name}`,
      guard: (s) => replaceRefusal(s, name),
      already: (s) => (s.members.some((m) => m.id === target.id) ? undefined : 'removed'),
    },
    (client, opts) => client.cluster.memberRemove({ ID: decimalId(target.id) }, opts).then(() => 'removed'),
  );
  if (!removed.ok) return (removed.refused ? refused : failed)(removed.why, await endLines(etcd, lines));
  step(`removed ${name} (id ${target.id}) from the member list`);
  const added = await guardedMemberCall(
    etcd,
    ctx,
    {
      name: `add ${name} back as a learner`,
      guard: (s) => addRefusal(s, peerUrls),
      already: (s) => learnerWith(s, peerUrls),
      retryable: ID_OF_THIS_SECOND_REMOVED,
    },
    (client, opts) =>
      client.cluster
        .memberAdd({ peerURLs: peerUrls, isLearner: true }, opts)
        .then((res) => ({ id: res.member.ID, members: res.members })),
  );
  if (!added.ok)
    return failed(`removed ${name}, but adding it back as a learner failed: ${added.why}`, [
      ...lines,
      `add it by hand once the cluster is healthy: etcdctl member add ${name} --learner --peer-urls=${peerUrls.join(',')}`,
      ...(await endLines(etcd, [])),
    ]);
  const id = BigInt(added.value.id).toString(16);
  step(`added ${name} back as a learner (id ${id}) with peer URLs ${peerUrls.join(', ')}`);
  const initialCluster = initialClusterOf(added.value.members, { id: added.value.id, name });
  await ctx.post(joinInstructions({ name, id, peerUrls, initialCluster, ...plan }));
  step(
    `waiting up to ${formatDuration(ctx.settings.learnerStartWaitMs)} for ${name} to be started as posted…`,
  );
  return afterAdd(etcd, { name, id }, plan, lines, ctx);
}

/**
 * The learner may be added while the voters have quorum (a membership change commits through raft),
 * the cluster has no learner, and its peer URLs are free (etcd: `Peer URLs already exists`).
 */
function addRefusal(state: ClusterState, peerUrls: string[]): string | undefined {
  if (state.healthyVoting < state.quorum)
    return `refusing to add a learner: ${state.healthyVoting} healthy voting member(s), below quorum ${state.quorum}`;
  const learners = state.members.filter((m) => m.isLearner);
  if (learners.length)
    return `refusing to add a learner: the cluster has one already (${learners.map((m) => m.name).join(', ')})`;
  const taken = state.members.find((m) => (m.peerUrls ?? []).some((u) => peerUrls.includes(u)));
  if (taken) return `refusing to add a learner: ${taken.name} already has peer URL ${peerUrls.join(', ')}`;
  return undefined;
}

/**
 * MemberAdd derives the new ID from the peer URLs and the time in whole seconds (ETCD34/35
 * membership/member.go computeMemberId), and a removed ID is never reused (`membership: ID removed`,
 * sent as `member not found`). Adding back the peer URLs of a member that was itself added less than
 * a second before its removal draws that removed ID again; a second later the ID differs.
 */
const ID_OF_THIS_SECOND_REMOVED = /member not found|ID removed/i;

/** The member list already holds the learner (an add whose answer was lost): its id and the members, as MemberAdd answers. */
function learnerWith(state: ClusterState, peerUrls: string[]): AddedLearner | undefined {
  const learner = state.members.find(
    (m) => m.isLearner && (m.peerUrls ?? []).some((u) => peerUrls.includes(u)),
  );
  if (!learner) return undefined;
  const members = state.members.map((m) => ({
    ID: decimalId(m.id),
    name: m.name,
    peerURLs: m.peerUrls ?? [],
  }));
  return { id: decimalId(learner.id), members };
}

interface AddedLearner {
  /** Decimal, as MemberAdd answers. */
  id: string;
  members: Array<{ ID: string; name: string; peerURLs: string[] }>;
}

async function afterAdd(
  etcd: EtcdClients,
  target: { name: string; id: string },
  plan: ReplacePlan,
  lines: string[],
  ctx: ActionContext,
): Promise<ActionOutcome> {
  const watched = await watchLearner(etcd, target, ctx, (line) => void ctx.progress(line));
  lines.push(...watched.lines);
  if (!watched.ok)
    return failed(watched.lines.at(-1) ?? 'the learner was not ready', await endLines(etcd, lines));
  if (watched.promotedElsewhere)
    return done(`replaced ${target.name}: it is a voting member again`, await endLines(etcd, lines));
  // The name it was started with (by the ID MemberAdd gave it): a Promote finds it by that name.
  const name = watched.state.members.find((m) => m.id === target.id)?.name ?? target.name;
  if (name !== target.name) lines.push(`note: ${target.name} was started with --name ${name}`);
  if (plan.promote === 'button') {
    const button = await ctx.followUp('promote-learner', { member: name }, `Promote ${name}`);
    return done(
      `replaced ${target.name}: it has caught up as a learner; a responder may press Promote ${name} now`,
      await endLines(etcd, lines),
      { buttons: [button] },
    );
  }
  const promoted = await promoteInPlace(etcd, name, ctx);
  lines.push(promoted.line);
  if (!promoted.ok) return failed(promoted.line, await endLines(etcd, lines));
  return done(`replaced ${target.name}: it is a voting member again`, await endLines(etcd, lines));
}

/** The steps so far and, last, the member list as it is now. */
async function endLines(etcd: EtcdClients, lines: string[]): Promise<string[]> {
  return [...lines, memberListLine(await readClusterState(etcd))];
}
