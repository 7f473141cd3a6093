import type { IncomingAction } from '../chat/adapter.js';
import type { ClusterAccess } from '../commands/cluster-access.js';
import type { AuditEvent, AuditLog } from '../audit/audit-log.js';
import type { RemediateJob } from '../queue/job-schemas.js';
import { type ChatView, textView, type ViewButton } from '../report/chat-view.js';
import { buttonValue, type Plan, type PlanStore } from '../state/plan-store.js';
import type { RegisteredAction } from './action.js';
import { actions } from './actions/index.js';
import { snapshotOf } from './plan-context.js';
import type { RemediationState } from './remediation-state.js';
import { planExpiryMs, type RemediationSettings, settingsFor } from './settings.js';

export interface ClickDeps {
  clusters: ClusterAccess;
  plans: Pick<PlanStore, 'save' | 'load'>;
  state: Pick<RemediationState, 'claimPress'>;
  audit: Pick<AuditLog, 'append'>;
  /** Queues the remediation job (its id derives from the plan). */
  enqueue(job: RemediateJob): Promise<void>;
  /** The user ids of a Slack user group; absent on chats without groups. */
  groupMembers?: (groupId: string) => Promise<string[]>;
  settings: RemediationSettings;
  now: () => number;
}

/**
 * The single path of every remediation click: the value was already parsed into a plan id and its
 * plan loaded (src/bot/handle-action.ts). Here: expiry → authorisation → confirmation → run once
 * (queue) → audit. Expected refusals are replies, never exceptions.
 */
export async function runRemediationClick(
  click: IncomingAction,
  planId: string,
  plan: Plan,
  deps: ClickDeps,
): Promise<ChatView> {
  const action = actions[plan.action];
  const cluster = deps.clusters.get(plan.cluster, { channel: click.channel, channelName: click.channelName });
  const settings = settingsFor(cluster, deps.settings);
  const audit = (event: AuditEvent, detail: string) =>
    deps.audit.append({
      event,
      cluster: plan.cluster,
      user: click.user,
      action: plan.action,
      plan: planId,
      detail,
    });
  const refuse = async (reason: string): Promise<ChatView> => {
    await audit('refused', reason);
    return textView(reason, 'warning');
  };

  const mutating = action.access === 'responders';
  const origin = Number(plan.context?.originCreatedAt ?? plan.createdAt);
  const limitMs = planExpiryMs(settings, mutating);
  if (deps.now() - origin > limitMs)
    return refuse(
      `This button expired (buttons ${mutating ? 'that change something ' : ''}work for ${Math.round(limitMs / 60_000)} min after the diagnosis); nothing was done. Run \`/etcd diagnose ${plan.cluster}\` again.`,
    );
  const parsed = action.parse(plan.args);
  if (!parsed.ok) return refuse(`This button's plan is not valid (${parsed.error}); nothing was done.`);

  const responders: string[] = cluster.remediation?.responders ?? [];
  const denied = await authorise(action, click.user, responders, deps);
  if (denied) return refuse(denied);

  const confirmationOf = plan.context?.confirmationOf;
  if (action.needsConfirmation && !confirmationOf) {
    const lines = parsed.describe(snapshotOf(plan.cluster, plan.context));
    const runIt = await confirmationButton(planId, plan, action, click.user, lines, deps);
    await audit('confirm-shown', lines.join(' '));
    const dry = cluster.remediation?.dryRun ? ' (dry run: it plans and reports, nothing changes)' : '';
    return textView(
      [`*${plan.label}* on *${plan.cluster}*${dry}:`, ...lines, 'Press *Run it* to start.'],
      'info',
      {
        buttons: [runIt],
      },
    );
  }
  if (confirmationOf) {
    if (plan.context?.boundUser !== click.user)
      return refuse(
        `This confirmation belongs to <@${plan.context?.boundUser ?? 'someone'}>; press *${plan.label}* on the diagnosis yourself.`,
      );
    if (deps.now() - plan.createdAt > settings.confirmWindowMs)
      return refuse(
        `This confirmation expired after ${Math.round(settings.confirmWindowMs / 60_000)} min; nothing was done. Press *${plan.label}* again.`,
      );
  }
  const press = await deps.state.claimPress(planId, click.user);
  if (!press.first)
    return textView(`*${plan.label}* was already started by <@${press.by}>; it runs once.`, 'info');
  await deps.enqueue({
    v: 1,
    kind: 'remediate',
    plan: planId,
    cluster: plan.cluster,
    channel: plan.channel,
    user: click.user,
    requestedAt: deps.now(),
  });
  await audit(confirmationOf ? 'confirmed' : 'queued', `${plan.label} queued`);
  return textView(`Starting *${plan.label}* on *${plan.cluster}*; progress follows in the thread.`, 'info');
}

/**
 * Read-only actions are open to everyone in the channel; the others only to the cluster's
 * responders, listed as user ids (U…) or user-group ids (S…, resolved at click time).
 */
async function authorise(
  action: RegisteredAction,
  user: string,
  responders: string[],
  deps: Pick<ClickDeps, 'groupMembers'>,
): Promise<string | undefined> {
  if (action.access === 'anyone') return undefined;
  if (responders.includes(user)) return undefined;
  for (const group of responders.filter((r) => r.startsWith('S'))) {
    const members: string[] = (await deps.groupMembers?.(group).catch((): string[] => [])) ?? [];
    if (members.includes(user)) return undefined;
  }
  const who = responders.length
    ? responders.map((r) => (r.startsWith('S') ? `<!subteam^${r}>` : `<@${r}>`)).join(', ')
    : 'nobody yet (the cluster lists no remediation.responders)';
  return `Only responders may press *${action.label}*: ${who}. Nothing was done; ask one of them.`;
}

/** A plan of its own for the "Run it" button: bound to the clicker, pointing back at the original. */
async function confirmationButton(
  planId: string,
  plan: Plan,
  action: RegisteredAction,
  user: string,
  lines: string[],
  deps: Pick<ClickDeps, 'plans' | 'now'>,
): Promise<ViewButton> {
  const id = await deps.plans.save({
    action: plan.action,
    cluster: plan.cluster,
    args: plan.args,
    label: plan.label,
    channel: plan.channel,
    createdAt: deps.now(),
    context: {
      ...(plan.context ?? {}),
      confirmationOf: planId,
      boundUser: user,
      originCreatedAt: String(plan.context?.originCreatedAt ?? plan.createdAt),
    },
  });
  return {
    action: plan.action,
    label: 'Run it',
    value: buttonValue(id),
    finding: null,
    style: 'danger',
    confirm: {
      title: `${action.label} ${plan.cluster}?`,
      text: lines.join(' '),
      confirm: 'Run it',
      deny: 'Cancel',
    },
  };
}
