import { type ActionId, LATENT_CAUSES, VIEW_CAUSES } from '../diagnosis/finding.js';
import { isChatButtonKind } from '../contracts/action-id.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { actionLabel, type NotOffered, type ViewButton } from '../report/chat-view.js';
import type { MessageRef } from '../chat/adapter.js';
import type { ClusterConfig } from '../config/schema.js';
import { actions } from '../remediation/actions/index.js';
import { planContext } from '../remediation/plan-context.js';
import { DEFAULT_REMEDIATION_SETTINGS, settingsFor } from '../remediation/settings.js';
import { buttonValue, type PlanStore } from '../state/plan-store.js';

interface ButtonSpec {
  action: ActionId;
  args: Record<string, string>;
  finding: number | null;
}

export interface ReportButtons {
  buttons: ViewButton[];
  /** What a step names but cannot work on this cluster, and why (ReportView.notOffered). */
  notOffered: NotOffered[];
}

/**
 * One button per distinct remediation action in the report (an action on another member is
 * another button), plus one re-run; each backed by a stored plan. An action that cannot work on the
 * cluster as configured (a restart without a kubernetes: section) gets no button, only its reason.
 */
export async function reportButtons(
  report: DiagnosisReport,
  channel: string,
  plans: Pick<PlanStore, 'save'>,
  now: () => number,
  /**
   * The report's root message (for remediation's thread messages), whether tickets are configured, and
   * the cluster's config, which says what can run there.
   */
  opts: { root?: MessageRef; tickets?: boolean; cluster?: ClusterConfig | undefined } = {},
): Promise<ReportButtons> {
  const specs: ButtonSpec[] = [];
  const notOffered: NotOffered[] = [];
  const seen = new Set<string>();
  report.findings.forEach((finding, index) => {
    for (const step of finding.steps) {
      // The report's own re-run (below) serves every step that says to run it again; a step that
      // asks for the other depth (a health check's "run a diagnosis") is a button of its own.
      if (!step.action || (step.action === 'rerun' && (step.args?.depth ?? report.kind) === report.kind))
        continue;
      const args = step.args ?? {};
      const key = `${step.action}:${JSON.stringify(args)}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const why = opts.cluster && unavailable(step.action, opts.cluster);
      if (why) notOffered.push({ label: actionLabel(step.action, args), why });
      else specs.push({ action: step.action, args, finding: index });
    }
  });
  // A diagnosis that found something can become a ticket, or be snoozed (src/remediation/actions/).
  // Snoozing silences the cluster's alerting: offered only for a finding about a fault of the
  // cluster, never for one about etcd-doctor's own view alone (its access, its network path, its own
  // load), nor for a known bug of the release alone (LATENT_CAUSES: it never alerts).
  if (report.findings.length > 0) {
    if (opts.tickets && !seen.has('open-ticket:{}'))
      specs.push({ action: 'open-ticket', args: {}, finding: null });
    if (report.findings.some((f) => !VIEW_CAUSES.has(f.cause) && !LATENT_CAUSES.has(f.cause)))
      specs.push({ action: 'snooze', args: { hours: '4' }, finding: null });
  }
  specs.push({ action: 'rerun', args: { depth: report.kind }, finding: null });
  const buttons = await Promise.all(
    specs.map(async (spec) => {
      const label =
        spec.action === 'rerun' && spec.finding === null && report.kind === 'health'
          ? 'Check again'
          : spec.action === 'rerun' && spec.args.depth === 'diagnose' && report.kind === 'health'
            ? 'Diagnose'
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
  return { buttons, notOffered };
}

/** The action's own word on whether it can run on this cluster (settings as the cluster's config sets them). */
function unavailable(action: ActionId, cluster: ClusterConfig): string | undefined {
  if (isChatButtonKind(action)) return undefined;
  return actions[action].unavailable(cluster, settingsFor(cluster, DEFAULT_REMEDIATION_SETTINGS));
}
