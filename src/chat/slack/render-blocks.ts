import { LATENT_CAUSES, VIEW_CAUSES } from '../../diagnosis/finding.js';
import type { Status } from '../../diagnosis/diagnose.js';
import type {
  ChatView,
  ProgressView,
  ReportView,
  TextView,
  VerdictView,
  ViewButton,
} from '../../report/chat-view.js';
import { progressText, STATUS_WORD } from '../../report/chat-view.js';
import type { DiagnosisReport, FindingJson, MemberRow } from '../../contracts/report-json.js';
import { formatBytes, formatList, formatMs } from '../../format.js';
import { renderText } from '../../report/render-text.js';
import { notOfferedLine } from '../../report/render-view-text.js';
import { timelineLines } from '../../report/timeline.js';
import type { ChatFile } from '../adapter.js';
import { type Block, type ButtonElement, chunkLines, clip, fitBlocks, LIMITS } from './blocks.js';
import { escapeMrkdwn, ownMrkdwn, slackLink } from './mrkdwn.js';

/** A message ready for chat.postMessage / chat.update: fallback text, blocks, and what did not fit. */
export interface SlackMessage {
  /** Notification and screen-reader text (Slack wants it beside blocks). */
  text: string;
  blocks: Block[];
  /** The full report, when the blocks had to be cut: upload it in the thread. */
  attachment?: ChatFile;
}

/** Prefix of every button's action_id; the adapter routes these to onAction. */
export const ACTION_ID_PREFIX = 'etcd_doctor.';

const STATUS_EMOJI: Record<Status | 'failed', string> = {
  healthy: ':large_green_circle:',
  degraded: ':large_yellow_circle:',
  critical: ':red_circle:',
  unknown: ':white_circle:',
  failed: ':warning:',
};

const section = (text: string): Block => ({ type: 'section', text: { type: 'mrkdwn', text } });
const context = (text: string): Block => ({ type: 'context', elements: [{ type: 'mrkdwn', text }] });

export function renderSlackMessage(view: ChatView): SlackMessage {
  switch (view.kind) {
    case 'text':
      return renderTextView(view);
    case 'progress':
      return renderProgress(view);
    case 'verdict':
      return renderVerdict(view);
    case 'report':
      return renderReport(view);
  }
}

function renderTextView(view: TextView): SlackMessage {
  // Mentions are live only in lines etcd-doctor wrote itself (mrkdwn.ts); everything else is text.
  const lines = view.lines.map((l) => (view.liveMentions ? ownMrkdwn(l) : escapeMrkdwn(l)));
  if (view.title) lines.unshift(`*${escapeMrkdwn(view.title)}*`);
  if (view.tone === 'error' && lines[0] !== undefined) lines[0] = `:warning: ${lines[0]}`;
  // A mention is Slack markup, so it is added after escaping (user ids are [A-Z0-9]).
  if (view.actor !== undefined && lines[0] !== undefined && /^[A-Z0-9]+$/.test(view.actor))
    lines[0] = `<@${view.actor}> ${lines[0]}`;
  if (view.link) lines.push(slackLink(view.link.url, view.link.label));
  const tail: Block[] = view.buttons?.length
    ? [{ type: 'actions', elements: view.buttons.map((b, i) => buttonElement(b, i)) }]
    : [];
  const { blocks } = fitBlocks(chunkLines(lines).map(section), tail);
  return { text: clip(lines.join('\n'), LIMITS.sectionText), blocks };
}

function renderProgress(view: ProgressView): SlackMessage {
  // The note names a member as the member list does: untrusted text, escaped as the cluster is.
  const text = progressText({
    ...view,
    cluster: escapeMrkdwn(view.cluster),
    ...(view.note ? { note: escapeMrkdwn(view.note) } : {}),
  });
  return { text, blocks: [section(`:hourglass_flowing_sand: ${text}`)] };
}

function renderVerdict(view: VerdictView): SlackMessage {
  const what = view.depth === 'diagnose' ? 'Diagnosis' : 'Health';
  const line = `${STATUS_EMOJI[view.status]} ${what} of *${escapeMrkdwn(view.cluster)}*: *${STATUS_WORD[view.status]}*. ${escapeMrkdwn(view.headline)}`;
  const { blocks } = fitBlocks([section(line), context('Details in the thread.')]);
  return {
    text: clip(escapeMrkdwn(`${what} of ${view.cluster}: ${STATUS_WORD[view.status]}`), LIMITS.sectionText),
    blocks,
  };
}

function memberLine(m: MemberRow): string {
  const name = `\`${escapeMrkdwn(m.name)}\``;
  if (m.reachable === null)
    return `:grey_question: ${name} *not checked*${m.access ? `: ${escapeMrkdwn(m.access.reason)}` : ''}`;
  const role = m.isLearner ? 'learner' : '';
  if (!m.reachable)
    return `:x: ${name}${role ? ` (${role})` : ''} *down*${m.error ? `: ${escapeMrkdwn(m.error)}` : ''}`;
  const parts = [m.isLeader ? '*leader*' : role || 'follower'];
  if (m.tookMs !== null) parts.push(`took ${formatMs(m.tookMs)}`);
  if (m.walFsyncP99Ms !== null) parts.push(`fsync p99 ${formatMs(m.walFsyncP99Ms)}`);
  if (m.dbSizeBytes !== null) parts.push(`DB ${formatBytes(m.dbSizeBytes)}`);
  return `${m.isLeader ? ':crown:' : ':white_small_square:'} ${name} ${parts.join(' · ')}`;
}

function findingBlocks(f: FindingJson, label: string, buttons: ButtonElement[]): Block[] {
  const where = f.members.length ? ` on ${escapeMrkdwn(formatList(f.members))}` : '';
  const lines = [
    `*${label}: \`${f.cause}\`* (${f.severity})${where}`,
    escapeMrkdwn(f.summary),
    ...(f.since ?? []).map((s) => `:hourglass_flowing_sand: *History:* ${escapeMrkdwn(s.text)}`),
    ...f.evidence.map((e) => `• ${escapeMrkdwn(e)}`),
    ...f.unknowns.map((u) => `• _not known:_ ${escapeMrkdwn(u)}`),
  ];
  const steps = f.steps.map((s, n) => `${n + 1}. ${escapeMrkdwn(s.text)}`);
  const blocks = chunkLines(lines).map(section);
  if (steps.length) blocks.push(...chunkLines(['*Remediation*', ...steps]).map(section));
  if (buttons.length) blocks.push({ type: 'actions', elements: buttons });
  return blocks;
}

function buttonElement(button: ViewButton, index: number): ButtonElement {
  return {
    type: 'button',
    // action_ids must be unique within a message; the value carries the meaning.
    action_id: `${ACTION_ID_PREFIX}${button.action}.${index}`,
    text: { type: 'plain_text', text: button.label },
    value: button.value,
    ...(button.style ? { style: button.style } : {}),
    ...(button.confirm
      ? {
          confirm: {
            title: { type: 'plain_text' as const, text: clip(button.confirm.title, 100) },
            text: { type: 'mrkdwn' as const, text: clip(escapeMrkdwn(button.confirm.text), 300) },
            confirm: { type: 'plain_text' as const, text: clip(button.confirm.confirm, 30) },
            deny: { type: 'plain_text' as const, text: clip(button.confirm.deny, 30) },
            style: 'danger' as const,
          },
        }
      : {}),
  };
}

function noProblemsBlock(report: DiagnosisReport): Block {
  return section(
    report.verdict
      ? `${report.status === 'healthy' ? ':white_check_mark:' : ':grey_question:'} ${escapeMrkdwn(report.verdict)}`
      : ':white_check_mark: No problems found.',
  );
}

function findingsBlocks(
  report: DiagnosisReport,
  elements: Array<{ button: ViewButton; element: ButtonElement }>,
): Block[] {
  const forFinding = (i: number) => elements.filter((e) => e.button.finding === i).map((e) => e.element);
  const root = report.findings[0];
  if (!root) return [noProblemsBlock(report)];
  // Only a known bug of the release: no problem found now, and the known bug below it.
  const blocks: Block[] = LATENT_CAUSES.has(root.cause) ? [noProblemsBlock(report)] : [];
  report.findings.forEach((f, i) => {
    // What limits our own view is never a root cause of the cluster's state.
    if (VIEW_CAUSES.has(f.cause)) {
      blocks.push(...findingBlocks(f, "etcd-doctor's view", forFinding(i)));
      return;
    }
    // A known bug of the release is a risk of the software, never the cause of what happens now.
    if (LATENT_CAUSES.has(f.cause)) {
      blocks.push(...findingBlocks(f, 'Known bug', forFinding(i)));
      return;
    }
    if (i === 0)
      blocks.push(
        ...findingBlocks(
          f,
          f.cause === 'unexplained-errors'
            ? 'Not explained'
            : root.causedBy
              ? 'Most likely'
              : f.uncheckedCauses?.length
                ? `Symptom (not checked: ${f.uncheckedCauses.join(', ')})`
                : 'Root cause',
          forFinding(0),
        ),
      );
    else if (i === 1 && f.causedBy) blocks.push({ type: 'divider' }, section('*Symptoms it explains*'));
    if (i === 0) return;
    const label = f.causedBy ? `Symptom of \`${f.causedBy}\`` : 'Also found';
    blocks.push(...findingBlocks(f, label, forFinding(i)));
  });
  return blocks;
}

function membersOf(report: DiagnosisReport): string[] {
  if (report.kind === 'analyze' && report.members.length === 0)
    return ['_none in the collection (no etcd_info)_'];
  return report.members.map(memberLine);
}

/** An offline analysis's timeline, compactly; its lines come from logs, so they are escaped. */
function timelineBlocks(report: DiagnosisReport): Block[] {
  const blocks: Block[] = [];
  if (report.timeline?.length) {
    const lines = timelineLines(report.timeline, 8).map((l) => escapeMrkdwn(l));
    blocks.push({ type: 'divider' }, ...chunkLines(['*Timeline* (UTC)', ...lines]).map(section));
  }
  if (report.notEvaluated?.length)
    blocks.push(
      context(
        `Not evaluated offline (they need live readings): ${escapeMrkdwn(report.notEvaluated.map((n) => n.rule).join(', '))}`,
      ),
    );
  return blocks;
}

function renderReport(view: ReportView): SlackMessage {
  const { report } = view;
  const elements = view.buttons.map((button, i) => ({ button, element: buttonElement(button, i) }));
  const what = report.kind === 'analyze' ? 'Analysis' : report.kind === 'diagnose' ? 'Diagnosis' : 'Health';
  const answered = report.probes.filter((p) => p.ok).length;
  const body: Block[] = [
    {
      type: 'header',
      text: {
        type: 'plain_text',
        text: `${what} of ${report.cluster}: ${STATUS_WORD[report.status]}`,
        emoji: true,
      },
    },
    context(
      `${answered} of ${report.probes.length} probes answered in ${formatMs(report.durationMs)} · ${report.collectedAt}`,
    ),
    ...chunkLines(['*Members*', ...membersOf(report)]).map(section),
    { type: 'divider' },
    ...findingsBlocks(report, elements),
    ...timelineBlocks(report),
  ];
  const global = elements.filter((e) => e.button.finding === null).map((e) => e.element);
  const tail: Block[] = global.length ? [{ type: 'actions', elements: global }] : [];
  if (view.notOffered?.length) tail.push(context(escapeMrkdwn(notOfferedLine(view.notOffered))));
  const note = context(
    ':page_facing_up: This report was too long for one message; the full text is attached in this thread.',
  );
  const fitted = fitBlocks(body, tail, note);
  // A known bug of the release is never the root cause the notification names.
  const root = report.findings.find((f) => !LATENT_CAUSES.has(f.cause));
  const text = `${what} of ${report.cluster}: ${STATUS_WORD[report.status]}${root ? `, ${root.cause}${root.members.length ? ` on ${formatList(root.members)}` : ''}` : ''}`;
  const message: SlackMessage = { text: escapeMrkdwn(text), blocks: fitted.blocks };
  if (fitted.truncated) {
    const stamp = report.collectedAt.replace(/[:.]/g, '-');
    message.attachment = {
      filename: `etcd-doctor-${report.cluster}-${report.kind}-${stamp}.txt`,
      title: `Full ${what.toLowerCase()} report of ${report.cluster}`,
      content: renderText(report),
    };
  }
  return message;
}
