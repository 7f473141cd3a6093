import { randomUUID } from 'node:crypto';
import type { AuditEvent } from '../state/audit-log.js';
import type { Destination } from '../chat/adapter.js';
import type { ClusterConfig } from '../config/schema.js';
import type { ActionId } from '../diagnosis/finding.js';
import { describeError } from '../errors.js';
import { withFields } from '../logger.js';
import type { RemediateJob } from '../queue/job-schemas.js';
import { type ChatView, textView, type ViewButton } from '../report/chat-view.js';
import type { HeldLock } from '../state/owned-lock.js';
import {
  buttonValue,
  isRemediationPlan,
  type Plan,
  type PlanStore,
  type RemediationPlan,
} from '../state/plan-store.js';
import {
  type ActionClients,
  type ActionContext,
  type ActionOutcome,
  RemediationAborted,
  type RegisteredAction,
  type ClusterRunDeps,
} from './action.js';
import { actions } from './actions/index.js';
import { withDeadline } from '../timing.js';
import { createProgressNotes, PROGRESS_EDIT_DEADLINE_MS, type ProgressNotes } from './progress-notes.js';
import { snapshotOf, threadOf } from './plan-context.js';
import { type GroupMembers, isResponder } from './authorise.js';
import { planExpiryMs, type RemediationSettings, settingsFor } from './settings.js';
import type { RecordSigner } from '../state/record-signer.js';
import { verifyJob } from './job-signature.js';

export interface RemediationRunnerDeps extends ClusterRunDeps {
  plans: Pick<PlanStore, 'load' | 'save'>;
  /** REMEDIATION_SIGNING_KEY's signer: a job or plan it cannot verify is refused and audited. */
  signer: RecordSigner;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export interface RemediationResult {
  status: ActionOutcome['status'] | 'skipped';
  summary: string;
}

/** Everything one run needs, resolved once from its job and plan. */
interface Run {
  job: RemediateJob;
  plan: RemediationPlan;
  action: RegisteredAction;
  cluster: ClusterConfig;
  settings: RemediationSettings;
  dryRun: boolean;
  mutating: boolean;
  /** The original button's plan: a plan runs once, whichever confirmation led to it. */
  origin: string;
  to: Destination;
  audit(event: AuditEvent, detail: string, durationMs?: number): Promise<string>;
}

/**
 * The worker side of a press: load the plan, make sure it runs once (a recovered or re-added job
 * finds the marker), check again that the press still holds (plan unexpired, presser still a
 * responder, confirmation recent, job not stale), take the cluster's remediation lock, post
 * "started", the steps as they happen, and the outcome with its time in the thread, and write each
 * to the audit stream.
 */
export function createRemediationRunner(deps: RemediationRunnerDeps) {
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));

  return async function runRemediation(job: RemediateJob): Promise<RemediationResult> {
    const plan = await signedPlan(job, deps);
    if (!('action' in plan)) return plan;
    if (!isRemediationPlan(plan)) return chatButtonJob(job, plan, deps);
    const run = runOf(job, plan, deps);
    // The marker names this job: a job that finds its own marker and no end ran before, here or
    // on a worker that died mid-run (BullMQ hands a stalled job over), and is not run again.
    const owner = `${job.user} ${job.plan}`;
    if (!(await deps.state.markRunning(run.origin, owner))) return alreadyRan(run, owner, deps);
    // Every way out below ends the run; only a process that dies mid-run leaves it unended.
    try {
      const parsed = run.action.parse(plan.args);
      if (!parsed.ok) {
        await run.audit('refused', `invalid plan: ${parsed.error}`);
        return { status: 'refused', summary: parsed.error };
      }
      const stale = await runTimeRefusal(run, now(), deps.chat.groupMembers?.bind(deps.chat));
      if (stale) return await refuseRun(run, stale, deps);
      const lock = run.mutating ? await holdLock(run, deps) : undefined;
      if (run.mutating && !lock) {
        const holder = (await deps.state.lockHolder(plan.cluster)) ?? 'another action';
        // Refused before anything was touched: the same button may be pressed again later.
        await deps.state.releaseRun(run.origin, job.user, owner);
        return await refuseRun(
          run,
          `another remediation is running on ${plan.cluster} (plan ${holder.split(':')[0]}); one at a time, so nothing was done. Press again when it has finished.`,
          deps,
        );
      }
      try {
        return await execute(run, parsed.run, lock, { ...deps, now, sleep });
      } finally {
        await lock?.release();
      }
    } finally {
      await deps.state.markEnded(run.origin).catch(() => undefined);
    }
  };
}

/**
 * The job's plan, once both the job and the plan verify with the deployment's key. A job that does
 * not was not queued by a bot (someone wrote it into Redis, or changed it there): it is refused and
 * audited, and nothing is posted (its channel is the writer's choice). A signed job whose plan does
 * not verify is told so in its channel, which the bot signed.
 */
async function signedPlan(job: RemediateJob, deps: RemediationRunnerDeps): Promise<Plan | RemediationResult> {
  const forged = (why: string, claimed: { cluster: string; action: string }) =>
    deps.audit.append({
      event: 'refused',
      cluster: claimed.cluster,
      user: job.user,
      action: claimed.action,
      plan: job.plan,
      detail: why,
    });
  const verdict = verifyJob(deps.signer, job);
  if (verdict !== 'ok') {
    const why = `forged job: ${verdict === 'unsigned' ? 'it carries no signature' : 'its signature does not match its content'}; it was not queued by etcd-doctor's bot as it stands (written or changed in Redis), so nothing was done`;
    deps.logger.error({ plan: job.plan, cluster: job.cluster, user: job.user, verdict }, why);
    await forged(why, { cluster: job.cluster, action: 'unknown' });
    return { status: 'refused', summary: why };
  }
  const found = await deps.plans.load(job.plan);
  if (found.status === 'found') return found.plan;
  if (found.status === 'forged') {
    const why = `forged plan: ${found.why}; nothing was done`;
    deps.logger.error({ plan: job.plan, cluster: job.cluster, user: job.user }, why);
    await forged(why, found.claimed);
    await deps.chat.post(
      { channel: job.channel },
      textView(
        `This remediation's plan fails its signature check (${found.why}); nothing was done. The refusal is in the audit trail.`,
        'warning',
      ),
    );
    return { status: 'refused', summary: why };
  }
  await deps.chat.post(
    { channel: job.channel },
    textView('This remediation plan is gone (expired); nothing was done.', 'warning'),
  );
  return { status: 'skipped', summary: 'plan gone' };
}

/**
 * The plan's run marker is set. Another job of the same origin (a second confirmation), or this
 * job after its run ended: skipped quietly, the first run answers. This very job with no end: its
 * worker died mid-run (killed, out of memory, its node lost) and BullMQ handed the job over. A
 * half-done change is never run again blindly: the thread is told what to check, once.
 */
async function alreadyRan(run: Run, owner: string, deps: RemediationRunnerDeps): Promise<RemediationResult> {
  const skipped: RemediationResult = { status: 'skipped', summary: 'already ran' };
  if ((await deps.state.runOwner(run.origin)) !== owner || (await deps.state.runEnded(run.origin)))
    return skipped;
  await deps.state.markEnded(run.origin);
  const { plan } = run;
  const parsed = run.action.parse(plan.args);
  const hint = parsed.ok ? parsed.interrupted() : undefined;
  const summary = `${plan.label} on ${plan.cluster} was interrupted: the worker running it stopped before it finished (restarted, killed, its node lost, or stalled: one that wakes up stops at its next step). It is not run again by itself, as a half-done change must be looked at first; the steps above are what it did. Run \`/etcd diagnose ${plan.cluster}\` to see the cluster as it is now.${hint ? ` ${hint}` : ''}`;
  await run.audit('failed', `interrupted: ${summary}`);
  await deps.chat.post(run.to, textView(summary, 'error', { actor: run.job.user }));
  return { status: 'failed', summary };
}

/**
 * A re-run or "What fills it?" is queued by the bot when its button is pressed (bot/handle-action.ts);
 * a remediation job for one was not made by the bot's click path and is refused, never queued a
 * second way.
 */
async function chatButtonJob(
  job: RemediateJob,
  plan: Plan,
  deps: RemediationRunnerDeps,
): Promise<RemediationResult> {
  const summary = `${plan.label} is answered by the bot when its button is pressed, never by a remediation job; nothing was done`;
  await deps.audit.append({
    event: 'refused',
    cluster: plan.cluster,
    user: job.user,
    action: plan.action,
    plan: job.plan,
    detail: summary,
  });
  return { status: 'refused', summary };
}

function runOf(job: RemediateJob, plan: RemediationPlan, deps: RemediationRunnerDeps): Run {
  const cluster = deps.cluster(plan.cluster);
  const action = actions[plan.action];
  const thread = threadOf(plan.context);
  return {
    job,
    plan,
    action,
    cluster,
    settings: settingsFor(cluster, deps.settings),
    dryRun: cluster.remediation?.dryRun ?? false,
    mutating: action.access === 'responders',
    origin: plan.context?.confirmationOf ?? job.plan,
    to: { channel: job.channel, ...(thread ? { thread } : {}) },
    audit: (event, detail, durationMs) =>
      deps.audit.append({
        event,
        cluster: plan.cluster,
        user: job.user,
        action: plan.action,
        plan: job.plan,
        detail,
        ...(durationMs === undefined ? {} : { durationMs: Math.round(durationMs) }),
      }),
  };
}

/**
 * What the click path checked, checked again when a worker takes the job: a job can wait in the
 * queue (workers down, a backlog) while its plan expires, its presser leaves the responders, or
 * its confirmation grows old. Undefined when the press still holds.
 */
export async function runTimeRefusal(
  run: Pick<Run, 'job' | 'plan' | 'action' | 'cluster' | 'settings' | 'mutating'>,
  nowMs: number,
  groupMembers: GroupMembers | undefined,
): Promise<string | undefined> {
  const { job, plan, settings } = run;
  const again = `nothing was done; run \`/etcd diagnose ${plan.cluster}\` and press again`;
  if (job.requestedAt < plan.createdAt)
    return `this job is older than its plan (forged or replayed); ${again}`;
  const waitedMs = nowMs - job.requestedAt;
  if (run.mutating && waitedMs > settings.maxQueueWaitMs)
    return `this press waited ${minutes(waitedMs)} in the queue (at most ${minutes(settings.maxQueueWaitMs)}); the cluster may have changed since, so ${again}`;
  const origin = Number(plan.context?.originCreatedAt ?? plan.createdAt);
  const limitMs = planExpiryMs(settings, run.mutating);
  if (nowMs - origin > limitMs)
    return `the button expired (${minutes(limitMs)} after its diagnosis) while the job waited; ${again}`;
  if (!run.mutating) return undefined;
  if (!(await isResponder(job.user, run.cluster.remediation?.responders ?? [], groupMembers)))
    return `${job.user} is no longer one of the responders of ${plan.cluster}; nothing was done`;
  if (!run.action.needsConfirmation) return undefined;
  if (!plan.context?.confirmationOf || plan.context.boundUser !== job.user)
    return `this action needs a confirmation by the presser, and the job has none; ${again}`;
  const ageMs = nowMs - plan.createdAt;
  if (ageMs > settings.confirmWindowMs + settings.maxQueueWaitMs)
    return `the confirmation is ${minutes(ageMs)} old (a confirmation holds ${minutes(settings.confirmWindowMs)}); ${again}`;
  return undefined;
}

const minutes = (ms: number) =>
  ms < 60_000 ? `${Math.round(ms / 1000)} s` : `${Math.round(ms / 60_000)} min`;

/** Audited before the reply: the record exists when the presser reads it, and a failed post loses no record. */
async function refuseRun(run: Run, summary: string, deps: RemediationRunnerDeps): Promise<RemediationResult> {
  await run.audit('refused', summary);
  await deps.chat.post(run.to, textView(summary, 'warning', { actor: run.job.user }));
  return { status: 'refused', summary };
}

/** The cluster's remediation lock, renewed while the action runs; a lapse is logged at once. */
function holdLock(run: Run, deps: RemediationRunnerDeps): Promise<HeldLock | undefined> {
  const owner = `${run.job.plan}:${randomUUID().slice(0, 8)}`;
  return deps.state.holdLock(run.plan.cluster, owner, {
    ttlMs: run.settings.lockTtlMs,
    onLost: (reason) =>
      deps.logger.error(
        { cluster: run.plan.cluster, plan: run.job.plan, action: run.plan.action, reason },
        'remediation lock lapsed; the action stops at its next safe point',
      ),
  });
}

type ExecDeps = RemediationRunnerDeps & { now: () => number; sleep: (ms: number) => Promise<void> };

async function execute(
  run: Run,
  act: (ctx: ActionContext) => Promise<ActionOutcome>,
  lock: HeldLock | undefined,
  deps: ExecDeps,
): Promise<RemediationResult> {
  const { job, plan } = run;
  const title = `${run.dryRun ? '(dry run) ' : ''}*${plan.label}* on *${plan.cluster}*`;
  const started = performance.now();
  const clients = deps.clientsFor(run.cluster);
  try {
    const ref = await deps.chat.post(run.to, textView([`started ${title}`], 'info', { actor: job.user }));
    await run.audit('started', `${plan.label}${run.dryRun ? ' (dry run)' : ''}`);
    const notes = createProgressNotes({
      chat: deps.chat,
      ref,
      header: `started ${title}`,
      actor: job.user,
      logger: deps.logger,
    });
    const outcome = await runAction(run, act, actionContext(run, clients, notes, lock, deps), deps);
    const tookMs = performance.now() - started;
    // The outcome goes last: a progress edit still in flight must not land over it.
    await notes.close();
    // Audited before the outcome is shown: the record exists when the presser reads the thread. A
    // failed audit write still shows the outcome, and then fails the job.
    const auditLines = [outcome.summary, ...outcome.lines, ...(outcome.link ? [outcome.link.url] : [])];
    try {
      await run.audit(auditEvent(outcome, run.dryRun), auditLines.join(' | '), tookMs);
    } finally {
      await deps.chat.update(ref, outcomeView(outcome, title, job.user, tookMs));
    }
    return { status: outcome.status, summary: outcome.summary };
  } finally {
    await clients.close().catch(() => undefined);
  }
}

async function runAction(
  run: Run,
  act: (ctx: ActionContext) => Promise<ActionOutcome>,
  ctx: ActionContext,
  deps: ExecDeps,
): Promise<ActionOutcome> {
  try {
    return await act(ctx);
  } catch (err) {
    if (!(err instanceof RemediationAborted))
      return { status: 'failed', summary: describeError(err), lines: [] };
    deps.logger.error(
      { cluster: run.plan.cluster, plan: run.job.plan, before: err.before, reason: err.why },
      err.reason === 'handed-over'
        ? 'remediation stopped: handed to another worker'
        : 'remediation stopped: its lock lapsed',
    );
    const why =
      err.reason === 'handed-over'
        ? `this worker stalled long enough that the queue handed the job to another worker, which told this thread the run was interrupted (${err.why})`
        : `the remediation lock of ${run.plan.cluster} lapsed (${err.why}), so another action could start`;
    return {
      status: 'failed',
      summary: `stopped before ${err.before}: ${why}; nothing after that was done`,
      lines: [],
    };
  }
}

function actionContext(
  run: Run,
  clients: ActionClients,
  notes: ProgressNotes,
  lock: HeldLock | undefined,
  deps: ExecDeps,
): ActionContext {
  return {
    cluster: run.cluster,
    clients,
    state: deps.state,
    settings: run.settings,
    dryRun: run.dryRun,
    snapshot: snapshotOf(run.plan.cluster, run.plan.context),
    planId: run.job.plan,
    user: run.job.user,
    now: deps.now,
    sleep: deps.sleep,
    logger: withFields(deps.logger, {
      cluster: run.plan.cluster,
      plan: run.job.plan,
      action: run.plan.action,
    }),
    async progress(line) {
      notes.add(line);
    },
    async post(lines) {
      // A hung chat must not hold the action (and its lock): the message is then only missed.
      const posted = deps.chat.post(run.to, textView(lines, 'info', { actor: run.job.user }));
      await withDeadline(posted, PROGRESS_EDIT_DEADLINE_MS, () => undefined).catch((err: unknown) =>
        deps.logger.warn({ err: describeError(err) }, 'remediation post failed'),
      );
    },
    followUp: (id, args, label) =>
      followUp(deps, run.plan.cluster, run.plan.channel, run.plan.context, id, args, label, deps.now),
    // Before each step the run asks whether it is still its own: another worker that took the job
    // over (this one stalled past the queue's lock) marked it ended and told the thread; and the
    // cluster's lock must still be held (renewed now). A stalled worker that wakes up stops here.
    async safePoint(next) {
      if (await deps.state.runEnded(run.origin))
        throw new RemediationAborted(
          next,
          `its run of plan ${run.origin} was marked ended elsewhere`,
          'handed-over',
        );
      const why = await lock?.check();
      if (why) throw new RemediationAborted(next, why);
    },
  };
}

function outcomeView(outcome: ActionOutcome, title: string, actor: string, tookMs: number): ChatView {
  const took = `${(tookMs / 1000).toFixed(tookMs < 10_000 ? 1 : 0)} s`;
  const verb = { done: 'finished', refused: 'refused', failed: 'failed' }[outcome.status];
  const lines = [
    `ran ${title}: ${verb} in ${took}: ${outcome.summary}`,
    ...outcome.lines.map((l) => `• ${l}`),
  ];
  const tone = outcome.status === 'done' ? 'success' : outcome.status === 'refused' ? 'warning' : 'error';
  return textView(lines, tone, {
    actor,
    ...(outcome.link ? { link: outcome.link } : {}),
    ...(outcome.buttons ? { buttons: outcome.buttons } : {}),
  });
}

function auditEvent(outcome: ActionOutcome, dryRun: boolean): AuditEvent {
  if (outcome.status === 'done') return dryRun ? 'dry-run' : 'finished';
  return outcome.status === 'refused' ? 'refused' : 'failed';
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
