import type { ActionId } from '../diagnosis/finding.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { actionLabel, type ViewButton } from '../report/chat-view.js';
import type { MessageRef } from '../chat/adapter.js';
import { planContext } from '../remediation/plan-context.js';
import { buttonValue, type PlanStore } from '../state/plan-store.js';

interface ButtonSpec {
  action: ActionId;
  args: Record<string, string>;
  finding: number | null;
}

/**
 * One button per distinct remediation action in the report (an action on another member is
 * another button), plus one re-run; each backed by a stored plan.
 */
export async function reportButtons(
  report: DiagnosisReport,
  channel: string,
  plans: Pick<PlanStore, 'save'>,
  now: () => number,
  /** The report's root message (for remediation's thread messages), and whether tickets are configured. */
  opts: { root?: MessageRef; tickets?: boolean } = {},
): Promise<ViewButton[]> {
  const specs: ButtonSpec[] = [];
  const seen = new Set<string>();
  report.findings.forEach((finding, index) => {
    for (const step of finding.steps) {
      // The report's own re-run (below) serves every step that says to run it again.
      if (!step.action || step.action === 'rerun') continue;
      const args = step.args ?? {};
      const key = `${step.action}:${JSON.stringify(args)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      specs.push({ action: step.action, args, finding: index });
    }
  });
  // A diagnosis that found something can become a ticket, or be snoozed (src/remediation/actions/).
  if (report.findings.length > 0) {
    if (opts.tickets && !seen.has('open-ticket:{}'))
      specs.push({ action: 'open-ticket', args: {}, finding: null });
    specs.push({ action: 'snooze', args: { hours: '4' }, finding: null });
  }
  specs.push({ action: 'rerun', args: { depth: report.kind }, finding: null });
  return Promise.all(
    specs.map(async (spec) => {
      const label =
        spec.action === 'rerun' && spec.finding === null && report.kind === 'health'
          ? 'Check again'
          : actionLabel(spec.action, spec.args);
      const id = await plans.save({
        action: spec.action,
        cluster: report.cluster,
        args: spec.args,
        label,
        channel,
        createdAt: now(),
        context: planContext(spec.action, report, opts.root),
      });
      const button: ViewButton = {
        action: spec.action,
        label,
        value: buttonValue(id),
        finding: spec.finding,
      };
      if (spec.action === 'rerun') button.style = 'primary';
      return button;
    }),
  );
}
