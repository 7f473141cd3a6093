import type { MessageRef } from '../chat/adapter.js';
import type { ActionId } from '../diagnosis/finding.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { renderText } from '../report/render-text.js';
import type { PlanSnapshot } from './action.js';

/**
 * What a button's plan keeps from its diagnosis: the root cause, the leader and the members (for
 * the confirmation text, computed on the chat side without touching the cluster), the thread (for
 * the audit messages), and for tickets the report itself.
 */
export function planContext(
  action: ActionId,
  report: DiagnosisReport,
  thread: MessageRef | undefined,
): Record<string, string> {
  const context: Record<string, string> = {
    members: JSON.stringify(
      report.members.map((m) => ({
        name: m.name,
        reachable: m.reachable,
        dbSizeBytes: m.dbSizeBytes ?? undefined,
        dbSizeInUseBytes: m.dbSizeInUseBytes ?? undefined,
      })),
    ),
  };
  const root = report.findings.find((f) => f.cause !== 'known-bug');
  if (root) context.rootCause = root.cause;
  const leader = report.members.find((m) => m.isLeader)?.name;
  if (leader) context.leader = leader;
  if (thread) {
    context.threadChannel = thread.channel;
    context.threadTs = thread.ts;
    if (thread.link) context.threadLink = thread.link;
  }
  if (action === 'open-ticket') context.reportText = renderText(report).slice(0, 30_000);
  return context;
}

export function snapshotOf(cluster: string, context: Record<string, string> | undefined): PlanSnapshot {
  const c = context ?? {};
  let members: PlanSnapshot['members'] = [];
  try {
    const raw: unknown = JSON.parse(c.members ?? '[]');
    if (Array.isArray(raw))
      members = raw.flatMap((m: unknown) => {
        if (typeof m !== 'object' || m === null || !('name' in m) || typeof m.name !== 'string') return [];
        const size = 'dbSizeBytes' in m && typeof m.dbSizeBytes === 'number' ? m.dbSizeBytes : undefined;
        const inUse =
          'dbSizeInUseBytes' in m && typeof m.dbSizeInUseBytes === 'number' ? m.dbSizeInUseBytes : undefined;
        return [
          {
            name: m.name,
            reachable: 'reachable' in m && m.reachable === true,
            dbSizeBytes: size,
            dbSizeInUseBytes: inUse,
          },
        ];
      });
  } catch {
    members = [];
  }
  return {
    cluster,
    rootCause: c.rootCause,
    leader: c.leader,
    members,
    reportText: c.reportText,
    threadLink: c.threadLink,
  };
}

/** The thread a plan's messages go to, when the report's root message is known. */
export function threadOf(context: Record<string, string> | undefined): MessageRef | undefined {
  if (!context?.threadChannel || !context.threadTs) return undefined;
  return {
    channel: context.threadChannel,
    ts: context.threadTs,
    ...(context.threadLink ? { link: context.threadLink } : {}),
  };
}
