import type { RecoveryPlanJson } from './recovery-plan.js';

/** The plan as lines (CLI and chat): where to restore from and why, what is at risk, the steps. */
export function recoveryLines(p: RecoveryPlanJson): string[] {
  const from = p.restoreFrom;
  const lines = [
    from
      ? `Recovery plan for ${p.cluster}: restore from ${from.member ?? from.file ?? 'the backup'} (${from.source}, revision ${from.revision}${from.term !== null ? `, raft term ${from.term}, index ${from.raftIndex}` : ''})`
      : `Recovery plan for ${p.cluster}: nothing to restore from`,
    'etcd-doctor runs none of these steps: with no quorum nothing guards them. Run each yourself and check as it says before the next.',
    '',
    'Candidates:',
    ...p.candidates.map(
      (c) =>
        `  - ${c.member ?? 'backup'} (${c.source}): ${c.note}${c.behind ? `; ${c.behind} revisions behind` : ''}`,
    ),
    '',
    `At risk: ${p.dataAtRisk}`,
  ];
  if (p.steps.length) lines.push('', 'Steps:');
  p.steps.forEach((s, i) => {
    lines.push(`  ${i + 1}. on ${s.on}: ${s.action}`, `     ${s.command}`);
  });
  return lines;
}
