import type { CheckDepth } from '../contracts/check-depth.js';
import type { Status } from '../diagnosis/diagnose.js';
import { type ActionId, LATENT_CAUSES } from '../diagnosis/finding.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { formatList, formatMs } from '../format.js';

/**
 * Chat-neutral views: what the core wants to show, not how. Each adapter renders them (Block Kit,
 * terminal text, or records them as they are for tests). Text lines may use `*bold*` and `` `code` ``,
 * which Slack's mrkdwn shows and the shell prints plainly.
 */
export type ChatView = TextView | ProgressView | ReportView | VerdictView;

export type Tone = 'info' | 'success' | 'warning' | 'error';

export interface TextView {
  kind: 'text';
  tone: Tone;
  lines: string[];
  title?: string;
  link?: { label: string; url: string };
  /** Buttons under the text (a remediation's "Run it", "Open another ticket"). */
  buttons?: ViewButton[];
  /** A user id the message is about ("<@U123> started Defragment"): adapters mention them. */
  actor?: string;
  /**
   * Every line is etcd-doctor's own words, so `<@U…>` and `<!subteam^S…>` in them are live mentions.
   * Never set on a view that carries outside text (alerts, logs, trackers): there, they stay text.
   */
  liveMentions?: boolean;
}

/** The root message while probes run: "Diagnosing *prod*: 2 of 6 probes done". */
export interface ProgressView {
  kind: 'progress';
  depth: CheckDepth;
  cluster: string;
  done: number;
  total: number;
  /** Why it takes longer than its window, when a probe said so (a thin /metrics window widened). */
  note?: string;
}

/** The full answer, posted in the thread, with one button per remediation step that has an action. */
export interface ReportView {
  kind: 'report';
  report: DiagnosisReport;
  buttons: ViewButton[];
  /** Actions the report's steps name that cannot work here, once each, with why. */
  notOffered?: NotOffered[];
}

/** A step's action that gets no button: its label (`Restart etcd-2`) and why it cannot work here. */
export interface NotOffered {
  label: string;
  why: string;
}

/** The root message once the answer is in: the verdict in one line. */
export interface VerdictView {
  kind: 'verdict';
  depth: CheckDepth;
  cluster: string;
  status: Status | 'failed';
  headline: string;
}

export interface ViewButton {
  action: ActionId;
  label: string;
  /** A short reference the button sends back (never a command): see src/state/plan-store.ts. */
  value: string;
  /** Index of the finding the button belongs to; null for buttons about the whole report (re-run). */
  finding: number | null;
  style?: 'primary' | 'danger';
  /** A dialog the platform shows before sending the press (Slack's confirmation object). */
  confirm?: { title: string; text: string; confirm: string; deny: string };
}

/** Button captions. A Record over ActionId, so a new action id without a caption does not compile. */
export const ACTION_LABELS: Record<ActionId, string> = {
  'open-ticket': 'Open a ticket',
  defragment: 'Defragment',
  'recover-nospace': 'Recover from NOSPACE',
  'restart-static-pod': 'Restart',
  'disk-benchmark': 'Benchmark the disk',
  'replace-member': 'Replace',
  'promote-learner': 'Promote',
  rerun: 'Re-run diagnosis',
  snooze: 'Snooze',
  space: 'What fills it?',
  'recovery-plan': 'Show the recovery plan',
};

/** `Restart etcd-2`, `Benchmark the disk of master-1`. */
export function actionLabel(action: ActionId, args: Record<string, string> = {}): string {
  const base = ACTION_LABELS[action];
  const target = args.member ?? args.node;
  if (!target) return base;
  return action === 'disk-benchmark' ? `${base} of ${target}` : `${base} ${target}`;
}

export function textView(
  lines: string | string[],
  tone: Tone = 'info',
  extra: Pick<TextView, 'title' | 'link' | 'buttons' | 'actor' | 'liveMentions'> = {},
): TextView {
  return { kind: 'text', tone, lines: typeof lines === 'string' ? [lines] : lines, ...extra };
}

export function progressView(
  depth: CheckDepth,
  cluster: string,
  done: number,
  total: number,
  note?: string,
): ProgressView {
  return { kind: 'progress', depth, cluster, done, total, ...(note ? { note } : {}) };
}

/** "Diagnosing *prod*: 2 of 6 probes done". */
export function progressText(view: ProgressView): string {
  const verb =
    view.depth === 'diagnose' ? `Diagnosing *${view.cluster}*` : `Checking the health of *${view.cluster}*`;
  if (view.total === 0) return `${verb}: starting`;
  return `${verb}: ${view.done} of ${view.total} probes done${view.note ? `; ${view.note}` : ''}`;
}

export function verdictView(report: DiagnosisReport): VerdictView {
  return {
    kind: 'verdict',
    depth: report.kind === 'health' ? 'health' : 'diagnose',
    cluster: report.cluster,
    status: report.status,
    headline: headline(report),
  };
}

export function failedVerdictView(depth: CheckDepth, cluster: string, reason: string): VerdictView {
  const what = depth === 'diagnose' ? 'diagnosis' : 'health check';
  return {
    kind: 'verdict',
    depth,
    cluster,
    status: 'failed',
    headline: `the ${what} did not finish: ${reason}`,
  };
}

/** One line: the root cause and its members, or the member count and leader when healthy. */
export function headline(report: DiagnosisReport): string {
  const up = report.members.filter((m) => m.reachable).length;
  const unchecked = report.members.filter((m) => m.reachable === null).length;
  const learners = report.members.filter((m) => m.isLearner).length;
  const leader = report.members.find((m) => m.isLeader)?.name;
  const membersLine = `${up} of ${report.members.length} members answer${learners ? ` (${learners} learner${learners > 1 ? 's' : ''})` : ''}${unchecked ? `, ${unchecked} not checked` : ''}${leader ? `, leader ${leader}` : ', no leader'}`;
  // A known bug of the release (diagnosis LATENT_CAUSES) never heads the verdict: it is no fault now.
  const root = report.findings.find((f) => f.cause !== 'known-bug');
  if (!root) return `${membersLine} (${formatMs(report.durationMs)})`;
  // A known bug of the release (LATENT_CAUSES, ranked last) is a risk, not the cluster's state now:
  // the line stays the members' and names it after them.
  if (LATENT_CAUSES.has(root.cause)) {
    const on = root.members.length ? ` on ${formatList(root.members)}` : '';
    return `${membersLine} (${formatMs(report.durationMs)}); \`${root.cause}\`${on}`;
  }
  const where = root.members.length ? ` on ${formatList(root.members)}` : '';
  const more = report.findings.length > 1 ? ` (+${report.findings.length - 1} more)` : '';
  return `\`${root.cause}\`${where}: ${root.summary}${more}`;
}

/** The word for a status, as the reports print it. */
export const STATUS_WORD: Record<Status | 'failed', string> = {
  healthy: 'HEALTHY',
  degraded: 'DEGRADED',
  critical: 'CRITICAL',
  unknown: 'UNKNOWN',
  failed: 'FAILED',
};
