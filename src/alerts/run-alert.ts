import type { DiagnosisReport } from '../contracts/report-json.js';
import type { ChartPoster } from '../charts/post-chart.js';
import type { ChatAdapter, MessageRef } from '../chat/adapter.js';
import type { Doctor } from '../doctor.js';
import type { Logger } from '../logger.js';
import type { Evidence } from '../probes/evidence.js';
import type { AlertJob } from '../queue/job-schemas.js';
import { textView } from '../report/chat-view.js';
import type { PlanStore } from '../state/plan-store.js';
import { reportButtons } from '../answer/report-buttons.js';
import type { AlertThread, AlertThreads } from '../state/alert-threads.js';
import { firingView, resolvedView } from './alert-view.js';

export interface AlertRunnerDeps {
  doctor: Pick<Doctor, 'run' | 'cluster'>;
  chat: Pick<ChatAdapter, 'post' | 'update'>;
  threads: AlertThreads;
  plans: Pick<PlanStore, 'save'>;
  /** Snoozed clusters get no triage (src/remediation: createIsSnoozed). */
  isSnoozed: (cluster: string) => Promise<boolean>;
  /**
   * One diagnosis per cluster per coalescing window, whatever the alert groups: the first
   * notification claims it (`first`); the others learn where that diagnosis went (`holder`).
   */
  claimDiagnosis: (
    cluster: string,
    where: string,
  ) => Promise<{ first: true; release: () => Promise<void> } | { first: false; holder: string }>;
  /** The coalescing window, for the words of the note. */
  coalesceMs: number;
  logger: Logger;
  now: () => number;
  /** The diagnosis's chart, after it, in the alert's thread (src/charts). None without it. */
  postChart?: ChartPoster;
  /**
   * One problem, one thread: the open watch incident's root (src/watch/), which a new alert group
   * posts in instead of starting a thread; and where a new alert root is noted for the watch.
   */
  incidentRoot?: (cluster: string) => Promise<MessageRef | undefined>;
  noteRoot?: (cluster: string, root: MessageRef) => Promise<void>;
}

export type AlertResult =
  | { outcome: 'triaged'; firings: number; status: string }
  | { outcome: 'coalesced'; firings: number }
  | { outcome: 'resolved' }
  | { outcome: 'skipped'; reason: 'snoozed' | 'no-thread' };

/**
 * One Alertmanager notification for one cluster. Firing: the alert is the root message (a group
 * that fired within the window reuses its root), a fresh diagnosis goes in the thread. Resolved: the
 * root says so. The worker holds the cluster's lock meanwhile, so a group's notifications run in turn.
 */
export function createAlertRunner(deps: AlertRunnerDeps) {
  const resolve = async (job: AlertJob): Promise<AlertResult> => {
    const thread = await deps.threads.get(job.cluster, job.groupKey);
    if (!thread) {
      deps.logger.info(
        { cluster: job.cluster, groupKey: job.groupKey },
        'alert resolved without a thread; nothing to mark',
      );
      return { outcome: 'skipped', reason: 'no-thread' };
    }
    const now = deps.now();
    // A shared root is the incident's: the watch resolves it, the alert only says so in the thread.
    if (!thread.shared) await deps.chat.update(thread.root, resolvedView(job, thread.firstAt, now));
    await deps.chat.post(
      { channel: thread.root.channel, thread: thread.root },
      textView('Alertmanager says this alert group resolved.', 'success'),
    );
    await deps.threads.save(job.cluster, job.groupKey, { ...thread, status: 'resolved', lastAt: now });
    return { outcome: 'resolved' };
  };

  const fire = async (job: AlertJob): Promise<AlertResult> => {
    if (await deps.isSnoozed(job.cluster)) {
      deps.logger.info(
        { cluster: job.cluster, groupKey: job.groupKey },
        'alert on a snoozed cluster; no triage',
      );
      return { outcome: 'skipped', reason: 'snoozed' };
    }
    const now = deps.now();
    const known = await deps.threads.get(job.cluster, job.groupKey);
    const firings = (known?.firings ?? 0) + 1;
    const { root, shared } = await rootFor(deps, job, known, firings);
    // Saved before diagnosing: a retry, or the next notification, finds this root.
    const thread = {
      root,
      status: 'firing' as const,
      firings,
      firstAt: known?.firstAt ?? now,
      lastAt: now,
      shared,
    };
    await deps.threads.save(job.cluster, job.groupKey, thread);
    // N alert groups × their repeat interval must not diagnose a struggling cluster N times.
    const claim = await deps.claimDiagnosis(job.cluster, root.link ?? `${root.channel}/${root.ts}`);
    if (!claim.first) {
      await deps.chat.post(
        { channel: root.channel, thread: root },
        textView(
          `Not diagnosing ${job.cluster} again: an alert diagnosed it less than ${Math.round(deps.coalesceMs / 60_000)} min ago (one diagnosis per cluster per ${Math.round(deps.coalesceMs / 60_000)} min). It is in ${claim.holder}`,
          'info',
        ),
      );
      return { outcome: 'coalesced', firings };
    }
    const { report, evidence } = await diagnoseInThread(deps, job, root, claim.release);
    // The group may have resolved while we diagnosed: never turn a resolved root back to firing.
    const latest = await deps.threads.get(job.cluster, job.groupKey);
    if (latest?.status !== 'resolved' && !shared)
      await deps.chat.update(root, firingView(job, firings, report));
    await deps.postChart?.({ channel: root.channel, thread: root }, report, evidence, deps.logger);
    return { outcome: 'triaged', firings, status: report.status };
  };

  return (job: AlertJob): Promise<AlertResult> => (job.status === 'resolved' ? resolve(job) : fire(job));
}

/** The group's root: its own, else an open incident's (posted in, not edited), else a new one. */
async function rootFor(
  deps: AlertRunnerDeps,
  job: AlertJob,
  known: AlertThread | undefined,
  firings: number,
): Promise<{ root: MessageRef; shared: boolean }> {
  const view = firingView(job, firings);
  if (known?.shared) {
    await deps.chat.post({ channel: known.root.channel, thread: known.root }, view);
    return { root: known.root, shared: true };
  }
  if (known) {
    await deps.chat.update(known.root, view);
    return { root: known.root, shared: false };
  }
  const incident = await deps.incidentRoot?.(job.cluster);
  if (incident) {
    await deps.chat.post({ channel: incident.channel, thread: incident }, view);
    return { root: incident, shared: true };
  }
  const root = await deps.chat.post({ channel: job.channel }, view);
  await deps.noteRoot?.(job.cluster, root);
  return { root, shared: false };
}

/**
 * The diagnosis, posted in the alert's thread. When either fails, the coalescing claim is given back:
 * no diagnosis reached the thread, so the retry (or the next group) must diagnose, not coalesce into it.
 */
async function diagnoseInThread(
  deps: AlertRunnerDeps,
  job: AlertJob,
  root: MessageRef,
  release: () => Promise<void>,
): Promise<{ report: DiagnosisReport; evidence: Evidence | undefined }> {
  let evidence: Evidence | undefined;
  try {
    const report = await deps.doctor.run(job.cluster, 'diagnose', {
      onEvidence: (e) => {
        evidence = e;
      },
    });
    const offered = await reportButtons(report, root.channel, deps.plans, deps.now, {
      cluster: deps.doctor.cluster(job.cluster),
    });
    await deps.chat.post({ channel: root.channel, thread: root }, { kind: 'report', report, ...offered });
    return { report, evidence };
  } catch (err) {
    await release();
    throw err;
  }
}
