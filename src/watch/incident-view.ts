import type { DiagnosisReport } from '../contracts/report-json.js';
import { formatDuration } from '../format.js';
import { headline, type TextView, textView } from '../report/chat-view.js';
import type { Incident } from '../state/incidents.js';

function clock(ms: number): string {
  return new Date(ms).toISOString().slice(11, 16);
}

function who(incident: Pick<Incident, 'members'>): string {
  return incident.members.length ? ` on ${incident.members.join(', ')}` : '';
}

/** The root message while the incident lasts; `sinceWhen` is the history's "since when" line, if known. */
export function incidentOpenView(
  cluster: string,
  incident: Incident,
  report: DiagnosisReport,
  sinceWhen: string | undefined,
): TextView {
  const icon = incident.severity === 'critical' ? '🔴' : '🟠';
  return textView(
    [
      `Opened at ${clock(incident.openedAt)} UTC by the watch. ${headline(report)}`,
      ...(sinceWhen ? [sinceWhen] : []),
      'The diagnosis is in the thread; it is updated when the root cause or its severity changes.',
    ],
    incident.severity === 'critical' ? 'error' : 'warning',
    { title: `${icon} INCIDENT: ${incident.cause}${who(incident)} (${cluster})` },
  );
}

export function incidentResolvedView(cluster: string, incident: Incident, now: number): TextView {
  return textView(
    [
      `Resolved at ${clock(now)} UTC after ${formatDuration(now - incident.openedAt)} (opened ${clock(incident.openedAt)} UTC): healthy for 3 checks in a row.`,
    ],
    'success',
    { title: `✅ RESOLVED: ${incident.cause}${who(incident)} (${cluster})` },
  );
}
