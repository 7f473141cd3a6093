// Builds test/fixtures/offline/lab/<fault>/etcd-N.log from real lab runs under each injected fault:
//   npx tsx test/support/build-lab-log-fixtures.ts [out-dir] [fault...]
import { join } from 'node:path';
import { LAB_FAULTS, runLabFault } from './offline-faults.js';

const out = process.argv[2] ?? join(import.meta.dirname, '../fixtures/offline/lab');
const only = process.argv.slice(3);
for (const fault of LAB_FAULTS.filter((f) => only.length === 0 || only.includes(f.name))) {
  const run = await runLabFault(fault, join(out, fault.name));
  if ('skip' in run) console.log(`${fault.name}: skipped (${run.skip})`);
  else
    console.log(
      `${fault.name}: live ${run.live.findings[0]?.cause ?? 'none'} on ${run.live.findings[0]?.members.join(', ') || '-'}; wrote ${run.logFiles.join(', ')}`,
    );
}
