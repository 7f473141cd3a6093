import type { UpgradeCheckJson } from './upgrade-check.js';

/**
 * The verdict as lines (CLI and chat): READY or NOT READY, each blocker with its members and its
 * fix, then what was not checked, then what passed.
 */
export function upgradeLines(r: UpgradeCheckJson): string[] {
  const lines = [
    `Upgrade check of ${r.cluster} to etcd ${r.target}: ${r.ready ? 'READY' : 'NOT READY'}${r.ready ? '' : ` (${r.blockers.length} blocker${r.blockers.length === 1 ? '' : 's'})`}`,
  ];
  for (const b of r.blockers) {
    lines.push('', `Blocker: ${b.check}${b.members.length ? ` on ${b.members.join(', ')}` : ''}`);
    lines.push(`  ${b.summary}`, `  Fix: ${b.fix}`);
  }
  if (r.unchecked.length) {
    lines.push('', 'Not checked:');
    for (const u of r.unchecked) lines.push(`  - ${u.check}: ${u.summary}`);
  }
  if (r.passed.length) {
    lines.push('', 'Passed:');
    for (const p of r.passed) lines.push(`  - ${p.check}: ${p.summary}`);
  }
  return lines;
}
