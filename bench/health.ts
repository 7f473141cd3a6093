import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { loadavg } from 'node:os';
import { Etcd3 } from 'etcd3';
import { createDoctor } from '../src/doctor.js';
import { findEtcdctlBinary, startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { DIAGNOSIS_PROBES, labConfig } from '../test/support/lab/lab-config.js';
import { median, ms, percentile, row, sample, timeIt } from './stats.js';

/**
 * Health latency on one local 3-member cluster, side by side in the same run:
 *  - our warm in-process health of all members (a linearizable read and Status per member, all
 *    concurrent; the member list is reused for 10 s, and alarms come from Status);
 *  - a raw etcd3 linearizable get on each member (concurrently), the floor we build on;
 *  - a raw etcd3 get + Status on each member, the two RPCs health asks each member;
 *  - `etcdctl endpoint health --cluster` as a whole process.
 * The three in-process ones run interleaved: ROUNDS rounds of BLOCK runs each, the order rotating
 * every round, so a change in the shared host's load hits all three alike.
 */
const ROUNDS = 100;
const BLOCK = 10;

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

/** Each function's wall times and process CPU per run, `rounds` rounds of `block` runs, in an order rotated every round. */
export async function interleaved(
  fns: Array<() => Promise<unknown>>,
  rounds: number,
  block: number,
): Promise<Array<{ times: number[]; cpuMs: number }>> {
  const out = fns.map(() => ({ times: [] as number[], cpuMs: 0 }));
  for (const fn of fns) for (let i = 0; i < 10; i++) await fn();
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < fns.length; k++) {
      const at = (r + k) % fns.length;
      const fn = fns[at] as () => Promise<unknown>;
      const slot = out[at] as { times: number[]; cpuMs: number };
      const cpu = process.cpuUsage();
      for (let i = 0; i < block; i++) slot.times.push(await timeIt(fn));
      const used = process.cpuUsage(cpu);
      slot.cpuMs += (used.user + used.system) / 1000;
    }
  }
  return out.map((o) => ({ times: o.times, cpuMs: o.cpuMs / o.times.length }));
}

export async function benchHealth(): Promise<string> {
  const lab = await startEtcdLab();
  const doctor = createDoctor({
    config: labConfig(lab, { name: 'lab', probes: DIAGNOSIS_PROBES }),
    readFileBuffer: (p) => readFile(p),
  });
  const raw = lab.endpoints.map((endpoint) => new Etcd3({ hosts: [endpoint] }));
  try {
    const etcdctlBin = (await findEtcdctlBinary()) ?? 'etcdctl';
    const loadBefore = loadavg()[0] ?? 0;
    const [oursRun, rawGetRun, rawGetStatusRun] = await interleaved(
      [
        () => doctor.run('lab', 'health'),
        () => Promise.all(raw.map((c) => c.get('health').string())),
        // What health asks each member: the linearizable read and Status (leader, DB size, alarms).
        () => Promise.all(raw.flatMap((c) => [c.get('health').string(), c.maintenance.status()])),
      ],
      ROUNDS,
      BLOCK,
    );
    const ours = oursRun?.times ?? [];
    const rawGet = rawGetRun?.times ?? [];
    const rawGetStatus = rawGetStatusRun?.times ?? [];
    const cpu = (r: { cpuMs: number } | undefined) => ms(r?.cpuMs ?? Number.NaN);
    const cli = await sample(20, 2, () => etcdctl(etcdctlBin, lab.endpoints));
    const members = lab.endpoints.length;
    const overGet = (median(ours) - median(rawGet)) / members;
    const overGetStatus = (median(ours) - median(rawGetStatus)) / members;
    const statusCost = (median(rawGetStatus) - median(rawGet)) / members;
    const line = (what: string, t: number[], cpuPerRun = 'n/a') =>
      row([what, ms(median(t)), ms(percentile(t, 90)), cpuPerRun, t.length]);
    return [
      '## Health latency (3 local members)',
      '',
      row(['what', 'median', 'p90', 'CPU per run', 'runs']),
      row(['---', '---', '---', '---', '---']),
      line('etcd-doctor warm health, all 3 members (in-process)', ours, cpu(oursRun)),
      line('raw etcd3 linearizable get, 3 members concurrently', rawGet, cpu(rawGetRun)),
      line('raw etcd3 get + Status, 3 members concurrently', rawGetStatus, cpu(rawGetStatusRun)),
      line('`etcdctl endpoint health --cluster` (whole process)', cli),
      '',
      `- The three in-process rows ran interleaved (${ROUNDS} rounds of ${BLOCK} runs each, the order rotating); CPU per run is this process's (user + system, all threads, GC included), steadier than wall time on a loaded host.`,
      `- Our overhead per member: ${ms(overGet)} over the raw get (issue 18's goal: 0.3 ms: ${overGet <= 0.3 ? 'met' : 'NOT met'}), ${ms(overGetStatus)} over the raw get + Status. Status itself costs ${ms(statusCost)} per member over the raw get.`,
      `- Load average (1 min): ${loadBefore.toFixed(1)} at the start, ${loadavg()[0]?.toFixed(1)} at the end (2 shared cores).`,
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
