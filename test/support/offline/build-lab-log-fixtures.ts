// Builds test/fixtures/offline/lab/<fault>/etcd-N.log from real lab runs under each injected fault:
//   npx tsx test/support/build-lab-log-fixtures.ts [out-dir] [fault...]
// ETCD_LAB_LOGGER=capnslog writes etcd 3.4's capnslog lines instead of zap.
import { join } from 'node:path';
import { LAB_FAULTS, runLabFault } from './offline-faults.js';

const out = process.argv[2] ?? join(import.meta.dirname, '../../fixtures/offline/lab');
const only = process.argv.slice(3);
for (const fault of LAB_FAULTS.filter((f) => only.length === 0 || only.includes(f.name))) {
  const logger = process.env.ETCD_LAB_LOGGER === 'capnslog' ? 'capnslog' : 'zap';
  const run = await runLabFault(fault, join(out, fault.name), logger);
  if ('skip' in run) console.log(`${fault.name}: skipped (${run.skip})`);
  else
    console.log(
      `${fault.name}: live ${run.live.findings[0]?.cause ?? 'none'} on ${run.live.findings[0]?.members.join(', ') || '-'}; wrote ${run.logFiles.join(', ')}`,
    );
}
