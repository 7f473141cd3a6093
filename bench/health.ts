import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Etcd3 } from 'etcd3';
import { createDoctor } from '../src/doctor.js';
import { findEtcdctlBinary, startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { labConfig } from '../test/support/lab-doctor.js';
import { median, ms, percentile, row, sample } from './stats.js';

/**
 * Health latency on one local 3-member cluster, side by side in the same run:
 *  - our warm in-process health of all members (member list, alarms, Status and a linearizable
 *    read per member, all concurrent);
 *  - `etcdctl endpoint health --cluster` as a whole process;
 *  - a raw etcd3 linearizable get on each member (concurrently), the floor we build on.
 */
const RUNS = 40;

function etcdctl(bin: string, endpoints: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      bin,
      ['endpoint', 'health', '--cluster', `--endpoints=${endpoints[0]}`],
      { env: { ETCDCTL_API: '3' } },
      (err) => (err ? reject(err) : resolve()),
    );
  });
}

export async function benchHealth(): Promise<string> {
  const lab = await startEtcdLab();
  const doctor = createDoctor({ config: labConfig(lab), readFileBuffer: (p) => readFile(p) });
  const raw = lab.endpoints.map((endpoint) => new Etcd3({ hosts: [endpoint] }));
  try {
    const etcdctlBin = (await findEtcdctlBinary()) ?? 'etcdctl';
    const ours = await sample(RUNS, 5, () => doctor.run('lab', 'health'));
    const rawGet = await sample(RUNS, 5, () => Promise.all(raw.map((c) => c.get('health').string())));
    // What health asks each member: the linearizable read and Status (leader, DB size, alarms).
    const rawGetStatus = await sample(RUNS, 5, () =>
      Promise.all(raw.flatMap((c) => [c.get('health').string(), c.maintenance.status()])),
    );
    const cli = await sample(Math.min(RUNS, 20), 2, () => etcdctl(etcdctlBin, lab.endpoints));
    const overheadPerMember = (median(ours) - median(rawGet)) / lab.endpoints.length;
    const overStatus = (median(ours) - median(rawGetStatus)) / lab.endpoints.length;
    return [
      '## Health latency (3 local members)',
      '',
      row(['what', 'median', 'p90', 'runs']),
      row(['---', '---', '---', '---']),
      row([
        'etcd-doctor warm health, all 3 members (in-process)',
        ms(median(ours)),
        ms(percentile(ours, 90)),
        ours.length,
      ]),
      row([
        'raw etcd3 linearizable get, 3 members concurrently',
        ms(median(rawGet)),
        ms(percentile(rawGet, 90)),
        rawGet.length,
      ]),
      row([
        'raw etcd3 get + Status, 3 members concurrently',
        ms(median(rawGetStatus)),
        ms(percentile(rawGetStatus, 90)),
        rawGetStatus.length,
      ]),
      row([
        '`etcdctl endpoint health --cluster` (whole process)',
        ms(median(cli)),
        ms(percentile(cli, 90)),
        cli.length,
      ]),
      '',
      `- Our overhead over the raw get: ${ms(overheadPerMember)} per member (issue 18's goal: 0.3 ms); over the raw get + Status: ${ms(overStatus)}.`,
      `- Load average (1 min) at the end: ${loadavg()[0]?.toFixed(1)} (2 shared cores).`,
      `- etcdctl / etcd-doctor warm health: ${(median(cli) / median(ours)).toFixed(1)}× (goal: above 1×).`,
      '',
    ].join('\n');
  } finally {
    for (const c of raw) c.close();
    await doctor.close();
    await lab.destroy();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchHealth());
