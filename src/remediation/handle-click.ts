import type { IncomingAction } from '../chat/adapter.js';
import type { ClusterAccess } from '../config/cluster-access.js';
import type { AuditEvent, AuditLog } from '../state/audit-log.js';
import type { RemediateJob } from '../queue/job-schemas.js';
import { type ChatView, textView, type ViewButton } from '../report/chat-view.js';
import { buttonValue, type PlanStore, type RemediationPlan } from '../state/plan-store.js';
import type { ConfirmChoice, RegisteredAction } from './action.js';
import { actions } from './actions/index.js';
import { snapshotOf } from './plan-context.js';
import { authorise, type GroupMembers } from './authorise.js';
import type { RemediationState } from '../state/remediation-state.js';
import { planExpiryMs, type RemediationSettings, settingsFor } from './settings.js';
import type { RecordSigner } from '../state/record-signer.js';
import { signedJob } from './job-signature.js';

export interface ClickDeps {
  clusters: ClusterAccess;
  plans: Pick<PlanStore, 'save' | 'load'>;
  state: Pick<RemediationState, 'claimPress' | 'pressedBy' | 'openConfirmation'>;
  audit: Pick<AuditLog, 'append'>;
  /** Queues the remediation job (its id derives from the plan). */
  enqueue(job: RemediateJob): Promise<void>;
  /** Signs the job with REMEDIATION_SIGNING_KEY: a worker runs no job it cannot verify. */
  signer: RecordSigner;
  /** The user ids of a Slack user group; absent on chats without groups. */
  groupMembers?: GroupMembers;
  settings: RemediationSettings;
  now: () => number;
}

interface Click {
  click: IncomingAction;
  planId: string;
  plan: RemediationPlan;
  action: RegisteredAction;
  settings: RemediationSettings;
  dryRun: boolean;
  deps: ClickDeps;
  audit(event: AuditEvent, detail: string): Promise<string>;
  /** A refusal, audited; its text is etcd-doctor's own, so mentions in it are live. */
  refuse(reason: string): Promise<ChatView>;
}

/**
 * The single path of every remediation click: the value was already parsed into a plan id and its
 * plan loaded (src/bot/handle-action.ts). Here: expiry → authorisation → confirmation (one open per
 * plan) → run once (queue) → audit. Expected refusals are replies, never exceptions. The worker
 * checks expiry, authorisation and the confirmation's age again when it takes the job (remediation-job.ts).
 */
export async function runRemediationClick(
  click: IncomingAction,
  planId: string,
  plan: RemediationPlan,
  deps: ClickDeps,
): Promise<ChatView> {
  const action = actions[plan.action];
  const cluster = deps.clusters.get(plan.cluster, { channel: click.channel, channelName: click.channelName });
  const audit = (event: AuditEvent, detail: string) =>
    deps.audit.append({
      event,
      cluster: plan.cluster,
      user: click.user,
      action: plan.action,
      plan: planId,
      detail,
    });
  const c: Click = {
    click,
    planId,
    plan,
    action,
    settings: settingsFor(cluster, deps.settings),
    dryRun: cluster.remediation?.dryRun ?? false,
    deps,
    audit,
    async refuse(reason) {
      await audit('refused', reason);
      return textView(reason, 'warning', { liveMentions: true });
    },
  };
  const mutating = action.access === 'responders';
  const origin = Number(plan.context?.originCreatedAt ?? plan.createdAt);
  const limitMs = planExpiryMs(c.settings, mutating);
  if (deps.now() - origin > limitMs)
    return c.refuse(
      `This button expired (buttons ${mutating ? 'that change something ' : ''}work for ${Math.round(limitMs / 60_000)} min after the diagnosis); nothing was done. Run \`/etcd diagnose ${plan.cluster}\` again.`,
    );
  const parsed = action.parse(plan.args);
  if (!parsed.ok) return c.refuse(`This button's plan is not valid (${parsed.error}); nothing was done.`);
  const denied = await authorise(
    action,
    click.user,
    { name: cluster.name, responders: cluster.remediation?.responders ?? [] },
    deps.groupMembers,
  );
  if (denied) return c.refuse(denied);
  const confirmationOf = plan.context?.confirmationOf;
  if (confirmationOf) {
    // A "Run it": the plan it confirms starts.
    const stale = confirmationRefusal(c);
    return stale ? c.refuse(stale) : start(c, confirmationOf);
  }
  if (!action.needsConfirmation) return start(c, planId);
  const lines = parsed.describe(snapshotOf(plan.cluster, plan.context), c.settings);
  return confirm(c, lines);
}

/** A "Run it" belongs to whoever opened it, for the confirmation window. */
function confirmationRefusal(c: Click): string | undefined {
  const bound = c.plan.context?.boundUser;
  if (bound !== c.click.user)
    return `This confirmation belongs to <@${bound ?? 'someone'}>; press *${c.plan.label}* on the diagnosis yourself.`;
  if (c.deps.now() - c.plan.createdAt > c.settings.confirmWindowMs)
    return `This confirmation expired after ${Math.round(c.settings.confirmWindowMs / 60_000)} min; nothing was done. Press *${c.plan.label}* again.`;
  return undefined;
}

/** Runs the plan once: the press is claimed on the original button, whichever confirmation led here. */
async function start(c: Click, origin: string): Promise<ChatView> {
  const { plan, click, deps } = c;
  const press = await deps.state.claimPress(origin, click.user);
  if (!press.first)
    return textView(`*${plan.label}* was already started by <@${press.by}>; it runs once.`, 'info', {
      liveMentions: true,
    });
  await deps.enqueue(
    signedJob(deps.signer, {
      v: 1,
      kind: 'remediate',
      plan: c.planId,
      cluster: plan.cluster,
      channel: plan.channel,
      user: click.user,
      requestedAt: deps.now(),
    }),
  );
  await c.audit(origin === c.planId ? 'queued' : 'confirmed', `${plan.label} queued`);
  return textView(`Starting *${plan.label}* on *${plan.cluster}*; progress follows in the thread.`, 'info');
}

/**
 * The exact plan and a "Run it" bound to the presser (one per choice, when the action offers a
 * choice). One confirmation is open per plan at a time: a second responder pressing the same button
 * is told who holds it; the holder gets theirs again.
 */
async function confirm(c: Click, lines: string[]): Promise<ChatView> {
  const { plan, click, deps } = c;
  const ran = await deps.state.pressedBy(c.planId);
  if (ran)
    return textView(`*${plan.label}* was already started by <@${ran}>; it runs once.`, 'info', {
      liveMentions: true,
    });
  const choices = c.action.choices ?? [{ label: 'Run it', args: {} }];
  const runIts = await Promise.all(choices.map((choice) => runItButton(c, choice, lines)));
  const opened = await deps.state.openConfirmation(
    c.planId,
    `${click.user}:${runIts.map((r) => r.planId).join(',')}`,
    c.settings.confirmWindowMs,
  );
  let buttons = runIts.map((r) => r.button);
  if (!opened.opened) {
    const [holder, openIds] = opened.holder.split(':');
    const held = openIds?.split(',') ?? [];
    if (holder !== click.user || held.length !== choices.length)
      return c.refuse(
        `<@${holder ?? 'someone'}> already has the confirmation of *${plan.label}* open; it runs once. Nothing was done; ask them, or press again in ${Math.round(c.settings.confirmWindowMs / 60_000)} min if they do not run it.`,
      );
    // Its holder gets the buttons they were shown first, on the plans they point at.
    buttons = buttons.map((button, i) => ({ ...button, value: buttonValue(held[i] ?? '') }));
  }
  await c.audit('confirm-shown', lines.join(' '));
  const dry = c.dryRun ? ' (dry run: it plans and reports, nothing changes)' : '';
  const press = choices.length > 1 ? choices.map((ch) => `*${ch.label}*`).join(' or ') : '*Run it*';
  return textView(
    [`*${plan.label}* on *${plan.cluster}*${dry}:`, ...lines, `Press ${press} to start.`],
    'info',
    {
      buttons,
    },
  );
}

/**
 * A "Run it" button (one per choice) on a plan of its own: the original plan with the choice's
 * arguments, bound to the clicker and pointing back at the original.
 */
async function runItButton(
  c: Click,
  choice: ConfirmChoice,
  lines: string[],
): Promise<{ planId: string; button: ViewButton }> {
  const { plan, click, deps } = c;
  const planId = await deps.plans.save({
    action: plan.action,
    cluster: plan.cluster,
    args: { ...plan.args, ...choice.args },
    label: plan.label,
    channel: plan.channel,
    createdAt: deps.now(),
    context: {
      ...(plan.context ?? {}),
      confirmationOf: c.planId,
      boundUser: click.user,
      originCreatedAt: String(plan.context?.originCreatedAt ?? plan.createdAt),
    },
  });
  const button: ViewButton = {
    action: plan.action,
    label: choice.label,
    value: buttonValue(planId),
    finding: null,
    style: 'danger',
    confirm: {
      title: `${c.action.label} ${plan.cluster}?`,
      text: lines.join(' '),
      confirm: choice.label,
      deny: 'Cancel',
    },
  };
  return { planId, button };
}
