import { type Tone, STATUS_WORD, type TextView, textView } from '../report/chat-view.js';
import type { FindingJson } from '../report/diagnosis-report.js';
import { formatList } from '../report/format.js';
import type { OfflineReport, TimelineEntry } from './analyze.js';

/**
 * The chat answer to an offline analysis (Slack thread, shell): the root cause with its evidence
 * and first steps, the other findings by name, a compact timeline, and what was read. A TextView,
 * so every line (file names and log text included) is escaped by the adapter (mrkdwn.ts in Slack).
 */

const MAX_EVIDENCE = 6;
const MAX_STEPS = 3;
const MAX_TIMELINE = 8;

const TONE: Record<OfflineReport['status'], Tone> = {
  healthy: 'success',
  degraded: 'warning',
  critical: 'error',
  unknown: 'info',
};

function rootLines(root: FindingJson): string[] {
  const where = root.members.length ? ` on ${formatList(root.members)}` : '';
  const more = root.evidence.length > MAX_EVIDENCE ? [`• … ${root.evidence.length - MAX_EVIDENCE} more`] : [];
  const steps = root.steps.slice(0, MAX_STEPS).map((s, i) => `${i + 1}. ${s.text}`);
  return [
    `*Root cause: \`${root.cause}\`* (${root.severity})${where}`,
    root.summary,
    ...root.evidence.slice(0, MAX_EVIDENCE).map((e) => `• ${e}`),
    ...more,
    ...(steps.length ? ['*What to do*', ...steps] : []),
  ];
}

/** `12:26:12` from an ISO time, the date too when the entry spans days. */
function clock(iso: string, withDate: boolean): string {
  const match = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2}:\d{2})/.exec(iso);
  if (!match) return iso;
  return withDate ? `${match[1]} ${match[2]}` : (match[2] ?? iso);
}

export function timelineLine(entry: TimelineEntry): string {
  const days = entry.firstSeenAt.slice(0, 10) !== entry.lastSeenAt.slice(0, 10);
  const from = clock(entry.firstSeenAt, days);
  const to = clock(entry.lastSeenAt, days);
  const span = from === to ? from : `${from}–${to}`;
  const who = entry.member ? ` on ${entry.member}` : '';
  const worst = entry.maxSeconds === undefined ? '' : `, up to ${entry.maxSeconds.toFixed(1)} s`;
  return `• ${span} \`${entry.signal}\`${who} ×${entry.count}${worst}`;
}

function timelineLines(timeline: readonly TimelineEntry[]): string[] {
  if (!timeline.length) return [];
  const shown = timeline.slice(0, MAX_TIMELINE).map(timelineLine);
  const more =
    timeline.length > MAX_TIMELINE ? [`• … ${timeline.length - MAX_TIMELINE} more in \`--json\``] : [];
  return ['*Timeline*', ...shown, ...more];
}

function sourceLine(report: OfflineReport): string {
  const read = report.source.map(
    (s) => `${s.kind} ${s.path} (${s.entries} entr${s.entries === 1 ? 'y' : 'ies'})`,
  );
  const skipped = report.source.reduce((n, s) => n + s.skipped, 0);
  return `_Read ${read.join(', ') || 'nothing'}${skipped ? `; ${skipped} entries skipped` : ''}. Live-only rules were not evaluated._`;
}

/** `label` names what was analysed (the file names as shared). */
export function offlineView(report: OfflineReport, label: string): TextView {
  const [root, ...others] = report.findings;
  const lines = [`*${STATUS_WORD[report.status]}*${root ? '' : ': no finding in the collected evidence'}`];
  if (root) lines.push(...rootLines(root));
  if (others.length) lines.push(`*Also found:* ${others.map((f) => `\`${f.cause}\``).join(', ')}`);
  lines.push(...timelineLines(report.timeline), sourceLine(report));
  return textView(lines, TONE[report.status], { title: `Offline analysis of ${label}` });
}
