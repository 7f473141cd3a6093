import { formatDuration } from '../../format.js';
import type { EtcdClients } from '../../clients/etcd-clients.js';
import { LEARNER_CAUGHT_UP_ENTRIES } from '../../diagnosis/support/learners.js';
import type { ActionContext } from '../action.js';
import { type ClusterState, type MemberState, readClusterState } from './cluster-state.js';
import { progressOf } from './member-change.js';

/** `lines`: what the thread keeps once the run ends (started, caught up, or why not). */
export type WatchResult =
  | { ok: true; lines: string[]; state: ClusterState; promotedElsewhere: boolean }
  | { ok: false; lines: string[]; state: ClusterState | undefined };

/** A catching-up line at most this often: the thread shows movement, not a line per poll. */
const CATCH_UP_NOTE_MS = 5000;

/**
 * Watches the learner added back under `id` (hex), bounded: until it starts (it answers Status on
 * the client URL it registers when it starts) within learnerStartWaitMs, then until its applied
 * index is within LEARNER_CAUGHT_UP_ENTRIES of the leader's within learnerCatchUpWaitMs. Each phase
 * is said in the thread as it happens (`note` never blocks). A learner someone else promoted
 * (kubeadm's join promotes its own learner) ends the watch as caught up.
 */
export async function watchLearner(
  etcd: EtcdClients,
  target: { name: string; id: string },
  ctx: ActionContext,
  note: (line: string) => void,
): Promise<WatchResult> {
  const started = await waitFor(etcd, target, ctx, ctx.settings.learnerStartWaitMs, (m) =>
    m.reachable && !m.problem ? 'started' : undefined,
  );
  if (started.kind !== 'reached') return endOf(started, target, 'start', ctx.settings.learnerStartWaitMs, []);
  const startedLine = `${target.name} started${started.member ? indexText(started.state, started.member) : ''}`;
  note(`${startedLine}; catching up…`);
  let lastNote = ctx.now();
  const caught = await waitFor(etcd, target, ctx, ctx.settings.learnerCatchUpWaitMs, (m, state) => {
    const progress = progressOf(state, m);
    if (progress?.caughtUp && !m.problem) return 'caught up';
    if (progress && ctx.now() - lastNote >= CATCH_UP_NOTE_MS) {
      lastNote = ctx.now();
      note(`${target.name} catching up: ${progress.behind} entries behind the leader`);
    }
    return undefined;
  });
  if (caught.kind !== 'reached')
    return endOf(caught, target, 'catch up', ctx.settings.learnerCatchUpWaitMs, [startedLine]);
  const line = caught.promoted
    ? `${target.name} was promoted to a voting member by someone else (kubeadm's join promotes its own learner)`
    : `${target.name} caught up${caught.member ? indexText(caught.state, caught.member) : ''} (within ${LEARNER_CAUGHT_UP_ENTRIES} entries)`;
  note(line);
  return { ok: true, lines: [startedLine, line], state: caught.state, promotedElsewhere: caught.promoted };
}

/** `: applied index 120 of the leader's 130`, or nothing when either index is unknown. */
function indexText(state: ClusterState, member: MemberState): string {
  const progress = progressOf(state, member);
  if (!progress || member.appliedIndex === undefined) return '';
  return `: applied index ${member.appliedIndex} of the leader's ${member.appliedIndex + progress.behind}`;
}

type Waited =
  | { kind: 'reached'; state: ClusterState; member: MemberState | undefined; promoted: boolean }
  | { kind: 'gone'; state: ClusterState }
  | { kind: 'timeout'; state: ClusterState | undefined; last: string };

/** Polls every learnerPollMs until `reached` names a state, the member leaves the list, or `limitMs` ends. */
async function waitFor(
  etcd: EtcdClients,
  target: { id: string },
  ctx: ActionContext,
  limitMs: number,
  reached: (m: MemberState, state: ClusterState) => string | undefined,
): Promise<Waited> {
  const since = ctx.now();
  const pollMs = Math.max(100, ctx.settings.learnerPollMs);
  let state: ClusterState | undefined;
  let last = 'not read yet';
  for (let round = 0; round <= Math.ceil(limitMs / pollMs) + 1; round += 1) {
    state = await readClusterState(etcd);
    // A member list nobody answered says nothing about the learner: wait for the next read.
    const member = state.listed === false ? undefined : state.members.find((m) => m.id === target.id);
    if (state.listed !== false && !member) return { kind: 'gone', state };
    if (member && !member.isLearner) return { kind: 'reached', state, member, promoted: true };
    if (member && reached(member, state)) return { kind: 'reached', state, member, promoted: false };
    last = member?.problem ?? (member ? 'behind' : 'no member answered the member list');
    if (ctx.now() - since >= limitMs) break;
    await ctx.sleep(pollMs);
  }
  return { kind: 'timeout', state, last };
}

function endOf(
  waited: Exclude<Waited, { kind: 'reached' }>,
  target: { name: string; id: string },
  what: 'start' | 'catch up',
  limitMs: number,
  before: string[],
): WatchResult {
  if (waited.kind === 'gone')
    return {
      ok: false,
      state: waited.state,
      lines: [
        ...before,
        `${target.name} (id ${target.id}) left the member list while etcd-doctor watched it: someone removed it`,
      ],
    };
  return {
    ok: false,
    state: waited.state,
    lines: [
      ...before,
      `${target.name} did not ${what} within ${formatDuration(limitMs)} (last: ${waited.last}); it stays in the member list as a learner: start it as posted above and press Promote on a new diagnosis once it has caught up, or remove it (etcdctl member remove ${target.id})`,
    ],
  };
}
