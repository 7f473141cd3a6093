import { randomUUID } from 'node:crypto';
import type { AuditLog } from '../audit/audit-log.js';
import type { ChatAdapter, Destination, MessageRef } from '../chat/adapter.js';
import type { ClusterConfig } from '../config/schema.js';
import type { ActionId } from '../diagnosis/finding.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { RemediateJob } from '../queue/job-schemas.js';
import { type ChatView, textView, type ViewButton } from '../report/chat-view.js';
import { buttonValue, type PlanStore } from '../state/plan-store.js';
import type { ActionClients, ActionContext, ActionOutcome } from './action.js';
import { actions } from './actions/index.js';
import { snapshotOf, threadOf } from './plan-context.js';
import type { RemediationState } from './remediation-state.js';
import { type RemediationSettings, settingsFor } from './settings.js';

export interface RemediationRunnerDeps {
  chat: ChatAdapter;
  plans: Pick<PlanStore, 'load' | 'save'>;
  state: RemediationState;
  audit: Pick<AuditLog, 'append'>;
  cluster(name: string): ClusterConfig;
  /** Clients for one run; closed when it ends. */
  clientsFor(cluster: ClusterConfig): ActionClients & { close(): Promise<void> };
  settings: RemediationSettings;
  logger: Logger;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RemediationResult {
  status: ActionOutcome['status'] | 'skipped';
  summary: string;
}

/** The one mutating action per cluster holds this lock, renewed while it runs. */
const LOCK_TTL_MS = 60_000;

/**
 * The worker side of a press: load the plan, make sure it runs once (a recovered or re-added job
 * finds the marker), one mutating action per cluster, post "started", the steps as they happen, and
 * the outcome with its time in the thread, and write each to the audit stream.
 */
export function createRemediationRunner(deps: RemediationRunnerDeps) {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  return async function runRemediation(job: RemediateJob): Promise<RemediationResult> {
    const plan = await deps.plans.load(job.plan);
    const to: Destination = { channel: job.channel };
    if (!plan) {
      await deps.chat.post(
        to,
        textView('This remediation plan is gone (expired); nothing was done.', 'warning'),
      );
      return { status: 'skipped', summary: 'plan gone' };
    }
    const thread = threadOf(plan.context);
    if (thread) to.thread = thread;
    const action = actions[plan.action];
    const audit = (event: Parameters<AuditLog['append']>[0]['event'], detail: string, durationMs?: number) =>
      deps.audit.append({
        event,
        cluster: plan.cluster,
        user: job.user,
        action: plan.action,
        plan: job.plan,
        detail,
        ...(durationMs === undefined ? {} : { durationMs: Math.round(durationMs) }),
      });
    if (!(await deps.state.markRunning(job.plan))) return { status: 'skipped', summary: 'already ran' };

    const cluster = deps.cluster(plan.cluster);
    const settings = settingsFor(cluster, deps.settings);
    const dryRun = cluster.remediation?.dryRun ?? false;
    const parsed = action.parse(plan.args);
    if (!parsed.ok) {
      await audit('refused', `invalid plan: ${parsed.error}`);
      return { status: 'refused', summary: parsed.error };
    }
    const owner = `${job.plan}:${randomUUID().slice(0, 8)}`;
    const mutating = action.access === 'responders';
    if (mutating && !(await deps.state.acquireLock(plan.cluster, owner, LOCK_TTL_MS))) {
      const holder = (await deps.state.lockHolder(plan.cluster)) ?? 'another action';
      const summary = `another remediation is running on ${plan.cluster} (plan ${holder.split(':')[0]}); one at a time, so nothing was done. Press again when it has finished.`;
      await deps.chat.post(to, textView(summary, 'warning', { actor: job.user }));
      await audit('refused', summary);
      return { status: 'refused', summary };
    }
    const renew = mutating
      ? setInterval(
          () => void deps.state.renewLock(plan.cluster, owner, LOCK_TTL_MS).catch(() => undefined),
          LOCK_TTL_MS / 3,
        )
      : undefined;

    const title = `${dryRun ? '(dry run) ' : ''}*${plan.label}* on *${plan.cluster}*`;
    const steps: string[] = [];
    const started = performance.now();
    let ref: MessageRef | undefined;
    const show = (view: ChatView) => (ref ? deps.chat.update(ref, view) : Promise.resolve());
    const clients = deps.clientsFor(cluster);
    try {
      ref = await deps.chat.post(to, textView([`started ${title}`], 'info', { actor: job.user }));
      await audit('started', `${plan.label}${dryRun ? ' (dry run)' : ''}`);
      const ctx: ActionContext = {
        cluster,
        clients,
        state: deps.state,
        settings,
        dryRun,
        snapshot: snapshotOf(plan.cluster, plan.context),
        planId: job.plan,
        user: job.user,
        now,
        sleep,
        async progress(line) {
          steps.push(line);
          await show(
            textView([`started ${title}`, ...steps.map((s) => `• ${s}`)], 'info', { actor: job.user }),
          ).catch((err: unknown) =>
            deps.logger.warn({ err: describeError(err) }, 'remediation progress update failed'),
          );
        },
        followUp: (id, args, label) =>
          followUp(deps, plan.cluster, plan.channel, plan.context, id, args, label, now),
      };
      let outcome: ActionOutcome;
      try {
        outcome = await parsed.run(ctx);
      } catch (err) {
        outcome = { status: 'failed', summary: describeError(err), lines: [] };
      }
      const tookMs = performance.now() - started;
      const took = `${(tookMs / 1000).toFixed(tookMs < 10_000 ? 1 : 0)} s`;
      const verb = { done: 'finished', refused: 'refused', failed: 'failed' }[outcome.status];
      const lines = [
        `ran ${title}: ${verb} in ${took}: ${outcome.summary}`,
        ...outcome.lines.map((l) => `• ${l}`),
      ];
      const tone = outcome.status === 'done' ? 'success' : outcome.status === 'refused' ? 'warning' : 'error';
      const view = textView(lines, tone, {
        actor: job.user,
        ...(outcome.link ? { link: outcome.link } : {}),
        ...(outcome.buttons ? { buttons: outcome.buttons } : {}),
      });
      await show(view);
      const event =
        outcome.status === 'done'
          ? dryRun
            ? 'dry-run'
            : 'finished'
          : outcome.status === 'refused'
            ? 'refused'
            : 'failed';
      const auditLines = [outcome.summary, ...outcome.lines, ...(outcome.link ? [outcome.link.url] : [])];
      await audit(event, auditLines.join(' | '), tookMs);
      return { status: outcome.status, summary: outcome.summary };
    } finally {
      clearInterval(renew);
      if (mutating) await deps.state.releaseLock(plan.cluster, owner).catch(() => undefined);
      await clients.close().catch(() => undefined);
    }
  };
}

async function followUp(
  deps: Pick<RemediationRunnerDeps, 'plans'>,
  cluster: string,
  channel: string,
  context: Record<string, string> | undefined,
  action: ActionId,
  args: Record<string, string>,
  label: string,
  now: () => number,
): Promise<ViewButton> {
  const { confirmationOf: _c, boundUser: _b, originCreatedAt: _o, ...rest } = context ?? {};
  const id = await deps.plans.save({
    action,
    cluster,
    args,
    label,
    channel,
    createdAt: now(),
    context: rest,
  });
  return { action, label, value: buttonValue(id), finding: null };
}
