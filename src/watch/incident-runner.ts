import type { ClusterConfig } from '../config/schema.js';
import type { ChatAdapter, MessageRef } from '../chat/adapter.js';
import type { CauseChartPoster } from '../charts/post-chart.js';
import { CAUSES, type Cause } from '../diagnosis/finding.js';
import type { Evidence } from '../probes/evidence.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import type { Logger } from '../logger.js';
import { textView } from '../report/chat-view.js';
import type { Incident, Incidents } from '../state/incidents.js';
import type { PlanStore } from '../state/plan-store.js';
import { reportButtons } from '../answer/report-buttons.js';
import { decideIncident, type IncidentSubject, type Streak } from './incident-decision.js';
import { incidentOpenView, incidentResolvedView } from './incident-view.js';
import type { CheckContext } from './run-watch-check.js';

export interface IncidentRunnerDeps {
  chat: Pick<ChatAdapter, 'post' | 'update'>;
  incidents: Incidents;
  plans: Pick<PlanStore, 'save'>;
  /** Snoozed clusters open, update and resolve nothing (src/state/remediation-state.ts). */
  isSnoozed: (cluster: string) => Promise<boolean>;
  /** The cluster's `slack.channel`; none: no incidents. */
  channelOf: (cluster: string) => string | undefined;
  /** The cluster's config: which remediation buttons can work there. */
  clusterOf: (cluster: string) => ClusterConfig | undefined;
  /** The "since when" line of the root cause, from the minute history. */
  sinceWhen?: (cluster: string, subject: IncidentSubject) => Promise<string | undefined>;
  /** Uploads the chart of the incident's metric into its thread, on open and on resolve (src/charts). */
  postChart?: CauseChartPoster;
  logger: Logger;
  now: () => number;
}

export type IncidentOutcome = 'none' | 'opened' | 'updated' | 'resolved' | 'snoozed' | 'no-channel';

/**
 * After each watch check: opens, updates or resolves the cluster's one incident thread (see
 * incident-decision.ts). The worker holds the cluster's lock meanwhile, and the incident is claimed
 * with SET NX before its thread is posted, so a retried check or a second worker opens no second one.
 */
export function createIncidentRunner(deps: IncidentRunnerDeps) {
  const post = async (incident: Incident, report: DiagnosisReport, channel: string) => {
    if (!incident.root) return;
    const offered = await reportButtons(report, channel, deps.plans, deps.now, {
      cluster: deps.clusterOf(report.cluster),
    });
    await deps.chat.post({ channel, thread: incident.root }, { kind: 'report', report, ...offered });
  };

  const open = async (
    cluster: string,
    channel: string,
    subject: IncidentSubject,
    report: DiagnosisReport,
    evidence: Evidence | undefined,
  ) => {
    const at = deps.now();
    const incident: Incident = { id: `${cluster}-${at}`, ...subject, openedAt: at, updatedAt: at };
    if (!(await deps.incidents.open(cluster, incident))) return 'none' as const;
    const sinceWhen = await deps.sinceWhen?.(cluster, subject).catch(() => undefined);
    const view = incidentOpenView(cluster, incident, report, sinceWhen);
    // One problem, one thread: an Alertmanager triage thread of this cluster is posted in, not replaced.
    const alertRoot = await deps.incidents.alertRoot(cluster);
    if (alertRoot) await deps.chat.post({ channel: alertRoot.channel, thread: alertRoot }, view);
    incident.root = alertRoot ?? (await deps.chat.post({ channel }, view));
    incident.shared = alertRoot !== undefined;
    await deps.incidents.save(cluster, incident);
    await post(incident, report, channel);
    // Text first: the chart follows the diagnosis into the thread.
    await chartIn(deps, incident.root, incident, evidence);
    return 'opened' as const;
  };

  const update = async (
    incident: Incident,
    subject: IncidentSubject,
    cluster: string,
    report: DiagnosisReport,
  ) => {
    const next: Incident = { ...incident, ...subject, updatedAt: deps.now() };
    if (next.root) await postChange(deps, cluster, incident, next, next.root, report, post);
    await deps.incidents.save(cluster, next);
    return 'updated' as const;
  };

  return async (
    cluster: string,
    report: DiagnosisReport,
    streak: Streak,
    context: CheckContext = {},
  ): Promise<IncidentOutcome> => {
    const { evidence } = context;
    const channel = deps.channelOf(cluster);
    if (!channel) return 'no-channel';
    if (await deps.isSnoozed(cluster)) return 'snoozed';
    let current = await deps.incidents.get(cluster);
    // Claimed, but its root was never posted (the chat failed, or the worker died in between): start over.
    if (current && !current.root) {
      await deps.incidents.close(cluster, current.id);
      current = undefined;
    }
    const action = decideIncident(report, streak, current, context.previousRoot);
    if (action.kind === 'open') return open(cluster, channel, action.subject, report, evidence);
    if (!current) return 'none';
    if (action.kind === 'update') return update(current, action.subject, cluster, report);
    if (action.kind === 'resolve') return resolve(deps, current, cluster, evidence);
    return 'none';
  };
}

/** The root says resolved, with the duration (posted in a shared alert thread instead of editing its root). */
async function resolve(
  deps: IncidentRunnerDeps,
  incident: Incident,
  cluster: string,
  evidence: Evidence | undefined,
): Promise<'resolved'> {
  const now = deps.now();
  if (incident.root) {
    const view = incidentResolvedView(cluster, incident, now);
    if (incident.shared)
      await deps.chat.post({ channel: incident.root.channel, thread: incident.root }, view);
    else await deps.chat.update(incident.root, view);
    await deps.chat.post(
      { channel: incident.root.channel, thread: incident.root },
      textView(`${cluster} has been healthy for 3 checks in a row: resolved.`, 'success'),
    );
    // The same metric, now back under its line, for the members the incident was about.
    await chartIn(deps, incident.root, incident, evidence);
  }
  await deps.incidents.close(cluster, incident.id);
  return 'resolved';
}

/** The incident's chart in its thread; a chart that cannot be drawn or uploaded is logged, never thrown. */
async function chartIn(
  deps: IncidentRunnerDeps,
  root: MessageRef | undefined,
  subject: { cause: string; members: string[] },
  evidence: Evidence | undefined,
): Promise<void> {
  if (!root || !evidence || !deps.postChart) return;
  const cause = CAUSES.find((c): c is Cause => c === subject.cause);
  if (!cause) return;
  await deps.postChart(
    { channel: root.channel, thread: root },
    { cause, members: subject.members },
    evidence,
    deps.logger,
  );
}

/**
 * The change in the incident's thread. The caller saves the incident only after this: when Slack
 * fails here, the change is still news at the next check, so no change is lost to a Slack outage.
 */
async function postChange(
  deps: IncidentRunnerDeps,
  cluster: string,
  was: Incident,
  next: Incident,
  root: MessageRef,
  report: DiagnosisReport,
  post: (incident: Incident, report: DiagnosisReport, channel: string) => Promise<void>,
): Promise<void> {
  const sinceWhen = await deps.sinceWhen?.(cluster, next).catch(() => undefined);
  if (!next.shared) await deps.chat.update(root, incidentOpenView(cluster, next, report, sinceWhen));
  await deps.chat.post(
    { channel: root.channel, thread: root },
    textView(`Changed: now ${next.cause} (${next.severity}), was ${was.cause} (${was.severity}).`, 'warning'),
  );
  await post(next, report, root.channel);
}
