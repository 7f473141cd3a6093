import type { DiagnosisReport, MemberRow } from '../contracts/report-json.js';
import { LATENT_CAUSES, type RemediationStep, VIEW_CAUSES } from '../diagnosis/finding.js';
import { formatBytes, formatList, formatMs, terminalSafe } from '../format.js';
import { timelineLines } from './timeline.js';

const TITLE: Record<DiagnosisReport['kind'], string> = {
  health: 'Health',
  diagnose: 'Diagnosis',
  analyze: 'Analysis',
};

const STATUS_WORD: Record<DiagnosisReport['status'], string> = {
  healthy: 'HEALTHY',
  degraded: 'DEGRADED',
  critical: 'CRITICAL',
  unknown: 'UNKNOWN',
};

export interface ReportTextOptions {
  /**
   * The button that performs a step, as the reader presses it (`[2] Recover from NOSPACE` in the
   * shell). Without it (the CLI, files, tickets) a step is its words: there is nothing to press.
   */
  stepButton?: (step: RemediationStep) => string | undefined;
}

/** Plain-text report for the CLI and the shell adapter: member table, then findings, root cause first. */
export function renderText(report: DiagnosisReport, opts: ReportTextOptions = {}): string {
  const lines = [
    `${TITLE[report.kind]} of ${report.cluster}: ${STATUS_WORD[report.status]} (${formatMs(report.durationMs)})`,
    '',
    ...(report.kind === 'analyze' && report.members.length === 0
      ? ['Members: no etcd_info in the collection (member status unknown, never read as down)']
      : memberTable(report.members)),
  ];
  if (report.verdict) lines.push('', report.verdict);
  // A known bug of the release (LATENT_CAUSES) is a risk, not a problem found: it follows the line.
  else if (report.findings.every((f) => LATENT_CAUSES.has(f.cause)))
    lines.push(
      '',
      report.kind === 'analyze' ? 'Nothing in the collection points at a problem.' : 'No problems found.',
    );
  report.findings.forEach((f, i) => {
    const label = VIEW_CAUSES.has(f.cause)
      ? "etcd-doctor's view"
      : LATENT_CAUSES.has(f.cause)
        ? 'Known bug'
        : f.cause === 'unexplained-errors'
          ? 'Not explained'
          : f.uncheckedCauses?.length && !f.causedBy
            ? 'Symptom'
            : i === 0 && !f.causedBy
              ? 'Root cause'
              : f.causedBy
                ? `Symptom (caused by ${f.causedBy})`
                : 'Also';
    lines.push(
      '',
      `${label}: ${f.cause} [${f.severity}]${f.members.length ? ` on ${f.members.join(', ')}` : ''}`,
    );
    lines.push(`  ${f.summary}`);
    if (f.uncheckedCauses?.length && !f.causedBy)
      lines.push(
        `  What could cause it was not checked: ${formatList(f.uncheckedCauses)} (their evidence was not read)`,
      );
    // Since when, from the watch's minute history (src/history/since-when.ts).
    for (const since of f.since ?? []) lines.push(`  History: ${since.text}`);
    for (const e of f.evidence) lines.push(`  - ${e}`);
    for (const u of f.unknowns) lines.push(`  ? ${u}`);
    f.steps.forEach((s, n) => {
      const button = s.action ? opts.stepButton?.(s) : undefined;
      lines.push(`  ${n + 1}. ${s.text}${button ? ` -> ${button}` : ''}`);
    });
  });
  lines.push(...offlineLines(report));
  if (report.explain) {
    lines.push('', 'Rules:');
    for (const t of report.explain) {
      lines.push(`  ${t.fired ? 'FIRED  ' : t.skipped ? 'SKIPPED' : 'quiet  '} ${t.rule}`);
      for (const e of t.explain) lines.push(`           ${e}`);
    }
  }
  return terminalSafe(lines.join('\n'));
}

function memberTable(members: MemberRow[]): string[] {
  const header = ['MEMBER', 'ENDPOINT', 'ROLE', 'TOOK', 'DB SIZE', 'FSYNC P99'];
  const rows = members.map((m) => [
    m.name,
    m.endpoint,
    roleCell(m),
    m.tookMs === null ? '-' : formatMs(m.tookMs),
    m.dbSizeBytes === null ? '-' : formatBytes(m.dbSizeBytes),
    fsyncCell(m),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join('  ')
      .trimEnd();
  const out = [line(header), ...rows.map(line)];
  for (const m of members) {
    if (m.access)
      out.push(`  ? ${m.name}: not checked: ${m.access.reason}${m.access.fix ? `: ${m.access.fix}` : ''}`);
    else if (m.error) out.push(`  ! ${m.error}`);
    if (m.httpHealth) out.push(`  i ${m.name}: ${describeHttpHealth(m.httpHealth)}`);
    const v36 = etcd36Line(m);
    if (v36) out.push(`  i ${m.name}: ${v36}`);
  }
  return out;
}

/** What only etcd 3.6+ reports: the db file's version, a downgrade, the feature gates turned on. */
function etcd36Line(m: MemberRow): string | undefined {
  const parts: string[] = [];
  if (m.version && m.storageVersion) parts.push(`etcd ${m.version}, storage version ${m.storageVersion}`);
  if (m.downgrade?.enabled) parts.push(`downgrade to ${m.downgrade.targetVersion} enabled`);
  const on = (m.featureGates ?? []).filter((g) => g.enabled);
  if (m.featureGates)
    parts.push(
      on.length
        ? `feature gates on: ${on.map((g) => `${g.name}${g.stage ? ` (${g.stage})` : ''}`).join(', ')}`
        : 'no feature gate on',
    );
  return parts.length ? parts.join('; ') : undefined;
}

/** `leader`, `learner`, `DOWN`, or `NOT CHECKED` when etcd-doctor could not look (never read as down). */
function roleCell(m: MemberRow): string {
  if (m.reachable === null) return 'NOT CHECKED';
  const role = m.isLeader ? 'leader' : m.isLearner ? 'learner' : '';
  if (!m.reachable) return role ? `${role} DOWN` : 'DOWN';
  return role;
}

function fsyncCell(m: MemberRow): string {
  if (m.walFsyncP99Ms !== null) return formatMs(m.walFsyncP99Ms);
  if (m.walFsyncSamples !== null) return `idle (${m.walFsyncSamples} fsyncs)`;
  return '-';
}

/** The timeline and the rules not evaluated offline, compactly. */
function offlineLines(report: DiagnosisReport): string[] {
  const lines: string[] = [];
  if (report.timeline?.length)
    lines.push('', 'Timeline (UTC):', ...timelineLines(report.timeline).map((l) => `  ${l}`));
  if (report.notEvaluated?.length)
    lines.push(
      '',
      `Not evaluated offline (they need live readings): ${report.notEvaluated.map((n) => n.rule).join(', ')}`,
    );
  return lines;
}

/** One line for the evidence: `GET /readyz: [-]linearizable_read failed: …; /livez ok`. */
export function describeHttpHealth(h: NonNullable<MemberRow['httpHealth']>): string {
  const failed = h.checks.filter((c) => !c.ok);
  const head =
    h.path === '/health'
      ? `GET /health (no /readyz before etcd 3.4.29 and 3.5.11): ${h.ok ? 'true' : `false${failed[0]?.reason ? ` (${failed[0].reason})` : ''}`}`
      : `GET /readyz (linearizable_read left out: the read already failed): ${h.ok ? 'ok' : failed.map((c) => `[-]${c.name} failed: ${c.reason}`).join(', ') || `not ready`}`;
  if (!h.live) return head;
  return `${head}; /livez ${
    h.live.ok
      ? 'ok'
      : `failed (${h.live.checks
          .filter((c) => !c.ok)
          .map((c) => `${c.name}: ${c.reason}`)
          .join(', ')})`
  }`;
}
