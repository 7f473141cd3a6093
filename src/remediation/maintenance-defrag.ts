import type { ClusterConfig } from '../config/schema.js';
import {
  type MaintenanceWindow,
  openWindowAt,
  parseMaintenanceWindow,
} from '../config/maintenance-window.js';
import { describeError } from '../errors.js';
import { withFields } from '../logger.js';
import type { MaintenanceJob } from '../queue/job-schemas.js';
import { textView } from '../report/chat-view.js';
import { type AuditEvent, MAINTENANCE_ACTOR } from '../state/audit-log.js';
import type { HeldLock } from '../state/owned-lock.js';
import {
  type ActionClients,
  type ActionContext,
  type ClusterRunDeps,
  type ActionOutcome,
  RemediationAborted,
} from './action.js';
import { runDefragment } from './actions/defragment.js';
import { withDeadline } from '../timing.js';
import { createProgressNotes, PROGRESS_EDIT_DEADLINE_MS, type ProgressNotes } from './progress-notes.js';
import { type RemediationSettings, settingsFor } from './settings.js';

export interface MaintenanceDeps extends ClusterRunDeps {
  now: () => number;
  sleep: (ms: number) => Promise<void>;
}

export interface MaintenanceResult {
  status: ActionOutcome['status'] | 'skipped';
  summary: string;
}

/** The window's occurrence being served: its run id (`maintenance-defrag-<cluster>-<open ms>`) and close. */
interface Occurrence {
  cluster: ClusterConfig;
  window: MaintenanceWindow;
  runId: string;
  endMs: number;
  channel: string;
}

/**
 * A cluster's defragmentation window (`maintenance.defrag.window`): when the worker's clock is inside
 * an occurrence of it, the occurrence runs once (a run marker per occurrence, so every scheduler
 * slot and every worker after the first finds it done), under the cluster's remediation lock (never
 * beside a button's action), with the button's guards and order (runDefragment); no member starts
 * past the window's close. It posts what it did in the cluster's slack.channel and audits it as
 * `maintenance-window`.
 */
export function createMaintenanceDefrag(deps: MaintenanceDeps) {
  return async function runMaintenance(job: MaintenanceJob): Promise<MaintenanceResult> {
    const occurrence = occurrenceOf(job, deps);
    if (!occurrence) return { status: 'skipped', summary: 'outside the window' };
    if (!(await deps.state.markRunning(occurrence.runId, MAINTENANCE_ACTOR)))
      return { status: 'skipped', summary: 'this window already ran' };
    const audit = auditFor(occurrence, deps);
    const owner = `${occurrence.runId}:${deps.now()}`;
    const lock = await deps.state.holdLock(job.cluster, owner, {
      ttlMs: deps.settings.lockTtlMs,
      onLost: (reason) => deps.logger.error({ cluster: job.cluster, reason }, 'maintenance lock lapsed'),
    });
    if (!lock) {
      const holder = (await deps.state.lockHolder(job.cluster)) ?? 'another action';
      const summary = `skipped the defragmentation window of ${job.cluster} (${occurrence.window.text} UTC): another remediation is running (plan ${holder.split(':')[0]})`;
      await deps.chat.post(
        { channel: occurrence.channel },
        textView(summary, 'warning', { actor: MAINTENANCE_ACTOR }),
      );
      await audit('refused', summary);
      return { status: 'refused', summary };
    }
    try {
      return await execute(occurrence, lock, audit, deps);
    } finally {
      await lock.release();
    }
  };
}

function occurrenceOf(job: MaintenanceJob, deps: MaintenanceDeps): Occurrence | undefined {
  const cluster = deps.cluster(job.cluster);
  const text = cluster.maintenance?.defrag?.window;
  const channel = cluster.slack?.channel;
  const parsed = text ? parseMaintenanceWindow(text) : undefined;
  // The config schema refuses a window without a channel or that does not parse; a config edited
  // since the scheduler was set may still have dropped it.
  if (!parsed?.ok || !channel) return undefined;
  const open = openWindowAt(deps.now(), parsed.window);
  if (!open) {
    deps.logger.debug({ cluster: job.cluster, window: text }, 'maintenance job outside its window');
    return undefined;
  }
  return {
    cluster,
    window: parsed.window,
    runId: `maintenance-defrag-${job.cluster}-${open.startMs}`,
    endMs: open.endMs,
    channel,
  };
}

function auditFor(o: Occurrence, deps: MaintenanceDeps) {
  return (event: AuditEvent, detail: string, durationMs?: number) =>
    deps.audit.append({
      event,
      cluster: o.cluster.name,
      user: MAINTENANCE_ACTOR,
      action: 'defragment',
      plan: o.runId,
      detail,
      ...(durationMs === undefined ? {} : { durationMs: Math.round(durationMs) }),
    });
}

async function execute(
  o: Occurrence,
  lock: HeldLock,
  audit: ReturnType<typeof auditFor>,
  deps: MaintenanceDeps,
): Promise<MaintenanceResult> {
  const settings = settingsFor(o.cluster, deps.settings);
  const dryRun = o.cluster.remediation?.dryRun ?? false;
  const title = `${dryRun ? '(dry run) ' : ''}*maintenance defragmentation* of *${o.cluster.name}* (window ${o.window.text} UTC, until ${new Date(o.endMs).toISOString().slice(11, 16)})`;
  const started = performance.now();
  const clients = deps.clientsFor(o.cluster);
  try {
    const ref = await deps.chat.post(
      { channel: o.channel },
      textView([`started ${title}`], 'info', { actor: MAINTENANCE_ACTOR }),
    );
    await audit('started', `maintenance window ${o.window.text}${dryRun ? ' (dry run)' : ''}`);
    const notes = createProgressNotes({
      chat: deps.chat,
      ref,
      header: `started ${title}`,
      actor: MAINTENANCE_ACTOR,
      logger: deps.logger,
    });
    const ctx = contextFor(o, { settings, dryRun, clients, lock, notes }, deps);
    const outcome = await runOutcome(() => runDefragment(ctx, { stopAtMs: o.endMs }), o);
    const tookMs = performance.now() - started;
    // The outcome goes last: a progress edit still in flight must not land over it.
    await notes.close();
    const verb = { done: 'finished', refused: 'refused', failed: 'failed' }[outcome.status];
    const tone = outcome.status === 'done' ? 'success' : outcome.status === 'refused' ? 'warning' : 'error';
    await deps.chat.update(
      ref,
      textView(
        [
          `ran ${title}: ${verb} in ${(tookMs / 1000).toFixed(1)} s: ${outcome.summary}`,
          ...outcome.lines.map((l) => `• ${l}`),
        ],
        tone,
        { actor: MAINTENANCE_ACTOR },
      ),
    );
    const event: AuditEvent =
      outcome.status === 'done'
        ? dryRun
          ? 'dry-run'
          : 'finished'
        : outcome.status === 'refused'
          ? 'refused'
          : 'failed';
    await audit(event, [outcome.summary, ...outcome.lines].join(' | '), tookMs);
    return { status: outcome.status, summary: outcome.summary };
  } finally {
    await clients.close().catch(() => undefined);
  }
}

async function runOutcome(run: () => Promise<ActionOutcome>, o: Occurrence): Promise<ActionOutcome> {
  try {
    return await run();
  } catch (err) {
    if (err instanceof RemediationAborted)
      return {
        status: 'failed',
        summary: `stopped before ${err.before}: the remediation lock of ${o.cluster.name} lapsed (${err.why}); nothing after that was done`,
        lines: [],
      };
    return { status: 'failed', summary: describeError(err), lines: [] };
  }
}

function contextFor(
  o: Occurrence,
  run: {
    settings: RemediationSettings;
    dryRun: boolean;
    clients: ActionClients;
    lock: HeldLock;
    notes: ProgressNotes;
  },
  deps: MaintenanceDeps,
): ActionContext {
  return {
    cluster: o.cluster,
    clients: run.clients,
    state: deps.state,
    settings: run.settings,
    dryRun: run.dryRun,
    logger: withFields(deps.logger, { cluster: o.cluster.name, maintenance: o.runId }),
    async progress(line) {
      run.notes.add(line);
    },
    async post(lines) {
      // A hung chat must not hold the window's run (and its lock): the message is then only missed.
      const posted = deps.chat.post(
        { channel: o.channel },
        textView(lines, 'info', { actor: MAINTENANCE_ACTOR }),
      );
      await withDeadline(posted, PROGRESS_EDIT_DEADLINE_MS, () => undefined).catch((err: unknown) =>
        deps.logger.warn({ err: describeError(err) }, 'maintenance post failed'),
      );
    },
    snapshot: {
      cluster: o.cluster.name,
      rootCause: undefined,
      leader: undefined,
      members: [],
      reportText: undefined,
      threadLink: undefined,
    },
    planId: o.runId,
    user: MAINTENANCE_ACTOR,
    now: deps.now,
    sleep: deps.sleep,
    followUp: () => Promise.reject(new Error('a maintenance window offers no follow-up buttons')),
    async safePoint(next) {
      const why = await run.lock.check();
      if (why) throw new RemediationAborted(next, why);
    },
  };
}
