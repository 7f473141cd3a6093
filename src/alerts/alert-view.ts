import type { AlertJob } from '../queue/job-schemas.js';
import { headline, type TextView, textView } from '../report/chat-view.js';
import type { DiagnosisReport } from '../contracts/report-json.js';

const SHOWN_ALERTS = 5;
/** Labels every alert of a group shares or that say nothing to a reader. */
const QUIET_LABELS = new Set(['alertname', 'cluster', 'job', 'prometheus', 'severity']);

function alertName(job: AlertJob): string {
  return job.commonLabels.alertname ?? job.alerts[0]?.labels.alertname ?? 'alert';
}

function linkOf(job: AlertJob): TextView['link'] | undefined {
  const url = job.externalURL || job.alerts[0]?.generatorURL;
  if (!url || !/^https?:\/\//.test(url)) return undefined;
  return { label: job.externalURL ? 'Open in Alertmanager' : 'Open the alert source', url };
}

/** One line per alert: its distinguishing labels (instance, pod, ...) and since when. */
function alertLines(job: AlertJob): string[] {
  const lines = job.alerts.slice(0, SHOWN_ALERTS).map((a) => {
    const labels = Object.entries(a.labels)
      .filter(([k]) => !QUIET_LABELS.has(k))
      .map(([k, v]) => `${k}=${v}`)
      .join(' ');
    return `• ${a.status === 'firing' ? 'firing' : 'resolved'}${labels ? ` \`${labels}\`` : ''} since ${a.startsAt}`;
  });
  if (job.alerts.length > SHOWN_ALERTS) lines.push(`…and ${job.alerts.length - SHOWN_ALERTS} more alerts`);
  return lines;
}

/** The root message while the group fires; `firings` > 1 says it fired again. */
export function firingView(job: AlertJob, firings: number, report?: DiagnosisReport): TextView {
  const summary =
    job.commonAnnotations.summary ?? job.alerts[0]?.annotations.summary ?? job.commonAnnotations.description;
  const lines = [
    ...(summary ? [summary] : []),
    ...alertLines(job),
    firings > 1
      ? `Fired again (${firings} notifications); the latest diagnosis is at the bottom of the thread.`
      : 'Diagnosis in the thread.',
    ...(report ? [`Diagnosis: ${headline(report)}`] : []),
  ];
  const link = linkOf(job);
  return textView(lines, 'error', {
    title: `🔥 FIRING: ${alertName(job)} on ${job.cluster}`,
    ...(link ? { link } : {}),
  });
}

/** The root message once Alertmanager says the group resolved. */
export function resolvedView(job: AlertJob, firedAt: number, now: number): TextView {
  const link = linkOf(job);
  return textView(
    [
      `Resolved at ${new Date(now).toISOString()}, after firing since ${new Date(firedAt).toISOString()}.`,
      ...alertLines(job),
    ],
    'success',
    { title: `✅ RESOLVED: ${alertName(job)} on ${job.cluster}`, ...(link ? { link } : {}) },
  );
}
