import type { IncomingAction } from '../chat/adapter.js';
import type { ClusterAccess } from '../config/cluster-access.js';
import { checkQueuedReply, recoveryQueuedReply, spaceQueuedReply } from '../commands/check-replies.js';
import { type ChatView, textView } from '../report/chat-view.js';
import { type ClickDeps, runRemediationClick } from '../remediation/handle-click.js';
import { z } from 'zod';
import { isRemediationPlan, PLAN_ID, type PlanLookup, type PlanStore } from '../state/plan-store.js';
import type { JobRequests } from '../queue/job-requests.js';

/** What the remediation click path needs beyond the bot's own clusters. */
export type RemediationClickDeps = Omit<ClickDeps, 'clusters'>;

interface ActionDeps {
  clusters: ClusterAccess;
  jobs: JobRequests;
  /** Bounded by the chat's Redis deadline (bot/deadline.ts chatPlans): a silent Redis is queue_unavailable. */
  plans: Pick<PlanStore, 'load'>;
  remediation?: RemediationClickDeps;
}

/**
 * A button press. The value is only a plan id; the plan (written by the worker that rendered the
 * button) says what to do. `rerun` queues the check again and `space` a scan of what fills etcd,
 * both here, with the presser's channel and the bot's rate limits (the only path of a rerun click).
 * Every other action goes to the remediation click path (remediation/handle-click.ts:
 * authorisation, confirmation, the lock and the audit trail); a bot built without it (no
 * `remediation` deps) answers that the action is not enabled and does nothing.
 */
export async function handleAction(action: IncomingAction, deps: ActionDeps): Promise<ChatView> {
  const planId = parseButtonValue(action.value);
  if (!planId)
    return textView('This button was not made by this version of etcd-doctor; nothing was done.', 'warning');
  const found = await deps.plans.load(planId);
  if (found.status === 'forged') return refuseForged(action, planId, found, deps);
  if (found.status === 'gone') {
    return textView(
      'This button has expired (buttons last 7 days); nothing was done. Run `/etcd diagnose <cluster>` again.',
      'warning',
    );
  }
  const { plan } = found;
  if (plan.action === 'rerun') {
    deps.clusters.get(plan.cluster, { channel: action.channel, channelName: action.channelName });
    const depth = plan.args.depth === 'health' ? 'health' : 'diagnose';
    const reply = await deps.jobs.check({
      depth,
      cluster: plan.cluster,
      channel: action.channel,
      user: action.user,
    });
    return checkQueuedReply(depth, plan.cluster, reply);
  }
  if (plan.action === 'space') {
    deps.clusters.get(plan.cluster, { channel: action.channel, channelName: action.channelName });
    // The answer goes into the diagnosis's thread (its root, kept with the plan), where the button is.
    const thread = plan.context?.threadChannel === action.channel ? plan.context.threadTs : undefined;
    const reply = await deps.jobs.space({
      cluster: plan.cluster,
      channel: action.channel,
      user: action.user,
      ...(thread ? { thread } : {}),
    });
    return spaceQueuedReply(plan.cluster, reply);
  }
  if (plan.action === 'recovery-plan') {
    deps.clusters.get(plan.cluster, { channel: action.channel, channelName: action.channelName });
    // Read-only: the plan is posted in the diagnosis's thread; a person runs its steps.
    const thread = plan.context?.threadChannel === action.channel ? plan.context.threadTs : undefined;
    const reply = await deps.jobs.lifecycle({
      task: 'recover',
      cluster: plan.cluster,
      channel: action.channel,
      user: action.user,
      ...(thread ? { thread } : {}),
    });
    return recoveryQueuedReply(plan.cluster, reply);
  }
  if (deps.remediation && isRemediationPlan(plan))
    return runRemediationClick(action, planId, plan, { ...deps.remediation, clusters: deps.clusters });
  return textView(
    `*${plan.label}* (\`${plan.action}\`) is not enabled in this version of etcd-doctor: actions that change a cluster come in a later release. Nothing was done; the remediation step says how to do it by hand.`,
    'warning',
  );
}

/** A press's value, as plan-store.ts buttonValue writes it. */
const buttonValueSchema = z.strictObject({ v: z.literal(1), plan: z.string().regex(PLAN_ID) });

/** The plan id in a button value, or undefined when the value is not one of ours. */
export function parseButtonValue(value: string): string | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(value);
  } catch {
    return undefined;
  }
  const parsed = buttonValueSchema.safeParse(raw);
  return parsed.success ? parsed.data.plan : undefined;
}

/**
 * A button whose plan etcd-doctor did not sign as it stands: someone wrote or changed it in Redis.
 * Nothing runs, whatever it says; the press is audited (the presser is real: Slack signed the click).
 */
async function refuseForged(
  action: IncomingAction,
  planId: string,
  found: Extract<PlanLookup, { status: 'forged' }>,
  deps: ActionDeps,
): Promise<ChatView> {
  await deps.remediation?.audit.append({
    event: 'refused',
    cluster: found.claimed.cluster,
    user: action.user,
    action: found.claimed.action,
    plan: planId,
    detail: `forged plan: ${found.why}`,
  });
  return textView(
    `This button's plan fails its signature check: ${found.why}. Nothing was done; the refusal is in the audit trail. Run \`/etcd diagnose <cluster>\` again, and tell whoever runs etcd-doctor's Redis.`,
    'warning',
  );
}
