// Plain helpers, usable outside Jest too: test/support/build-lab-log-fixtures.ts runs them as a script.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Doctor } from '../../../src/doctor.js';
import { type EtcdLab, type EtcdLabOptions, findEtcdBinary, startEtcdLab } from '../lab/etcd-lab.js';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { buildClockshift } from '../clock/clockshift.js';
import { labDoctor } from '../lab/lab-doctor.js';

/**
 * The faults the suite injects into the lab (test/integration/faults), each run for real: the live
 * `diagnose` while the fault holds, then the members' own logs (the lab keeps every member's
 * stderr). The offline parity test analyses those logs; build-lab-log-fixtures.ts writes them out.
 */
export interface LabFault {
  name: string;
  /** Lab options this fault needs (a tiny quota, a member under clockshift). */
  lab(): Promise<{ options: EtcdLabOptions; dispose(): Promise<void> } | { skip: string }>;
  /** Injects the fault, runs the live diagnose while it holds, and returns it. */
  run(lab: EtcdLab, doctor: Doctor): Promise<DiagnosisReport>;
}

/** Every wait on a log line is bounded. */
const LOG_WAIT_MS = 45_000;
const POLL_MS = 200;

/**
 * Resolves when `member`'s log has one of `texts` (zap and capnslog word it differently; polled:
 * the lab's log is a ring buffer, not an event source).
 */
export async function waitForLog(
  lab: EtcdLab,
  member: string,
  texts: readonly string[],
  timeoutMs = LOG_WAIT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < deadline && i < timeoutMs / POLL_MS; i++) {
    const log = lab.logs(member);
    if (texts.some((t) => log.includes(t))) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`${member} did not log "${texts.join('" or "')}" within ${timeoutMs} ms`);
}

/** The line a member logs when it raises or meets the NOSPACE alarm (as the log rules read it). */
const NOSPACE_LINE =
  /database space exceeded|exceeded backend quota|etcdserver: no space|alarm raised\W{1,20}(?:alarm\W{1,4})?NOSPACE/;

/** Waits until some member's log matches `line` (bounded like waitForLog). */
async function waitForAnyLog(lab: EtcdLab, line: RegExp, timeoutMs = LOG_WAIT_MS): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let i = 0; Date.now() < deadline && i < timeoutMs / POLL_MS; i++) {
    if (lab.members.some((m) => line.test(lab.logs(m.name)))) return;
    await new Promise((r) => setTimeout(r, POLL_MS));
  }
  throw new Error(`no member logged ${line} within ${timeoutMs} ms`);
}

const plain = async () => ({ options: {}, dispose: async () => undefined });

/**
 * etcd logs `slow fdatasync` only above 1 s (wal.go warnSyncDuration), so the delay is 1.2 s,
 * stronger than the live suite's 20-300 ms: the same fault, strong enough to reach the logs.
 */
export const SLOW_DISK_DELAY_MS = 1200;

export const LAB_FAULTS: LabFault[] = [
  {
    name: 'slow-disk',
    lab: plain,
    async run(lab, doctor) {
      const leader = await lab.leaderName();
      const victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
      const slow = await lab.slowDisk(victim, SLOW_DISK_DELAY_MS * 1000);
      try {
        const load = lab.writeLoad({ ratePerSecond: 20, durationMs: 6000, valueBytes: 256 });
        await waitForLog(lab, victim, ['slow fdatasync', 'sync duration of'], 20_000);
        const report = await doctor.run('lab', 'diagnose');
        await load;
        return report;
      } finally {
        await slow.stop();
      }
    },
  },
  {
    name: 'member-down',
    lab: plain,
    async run(lab, doctor) {
      await lab.kill('etcd-2');
      await waitForLog(lab, 'etcd-1', ['became inactive']);
      await waitForLog(lab, 'etcd-3', ['became inactive']);
      return doctor.run('lab', 'diagnose');
    },
  },
  {
    name: 'clock-skew',
    async lab() {
      const etcd = await findEtcdBinary();
      const shift = etcd ? await buildClockshift(etcd) : { ok: false as const, reason: 'no etcd binary' };
      if (!shift.ok) return { skip: `no clockshift here: ${shift.reason}` };
      return {
        options: { wrap: (m) => (m === 'etcd-2' ? [shift.path, '8', '--'] : undefined) },
        dispose: shift.dispose,
      };
    },
    async run(lab, doctor) {
      await waitForLog(lab, 'etcd-2', ['prober found high clock drift', 'clock difference against peer']);
      return doctor.run('lab', 'diagnose');
    },
  },
  {
    name: 'nospace',
    lab: async () => ({ options: { quotaBackendBytes: 16 * 1024 * 1024 }, dispose: async () => undefined }),
    async run(lab, doctor) {
      const filled = await lab.fill({ valueBytes: 100 * 1024, maxPuts: 400 });
      if (!filled.nospace) throw new Error('the lab did not reach NOSPACE');
      const live = await doctor.run('lab', 'diagnose');
      // The lab reads the members' stderr as it comes: under load the alarm's line can still be on
      // its way when the put is refused (CI once wrote the logs without it).
      await waitForAnyLog(lab, NOSPACE_LINE);
      return live;
    },
  },
  {
    name: 'leader-churn',
    lab: plain,
    async run(lab, doctor) {
      const names = lab.members.map((m) => m.name);
      for (let i = 0; i < 6; i++) {
        const leader = await lab.leaderName();
        await lab.moveLeader(names[(names.indexOf(leader ?? 'etcd-1') + 1) % names.length] ?? 'etcd-1');
      }
      return doctor.run('lab', 'diagnose');
    },
  },
];

export interface FaultRun {
  live: DiagnosisReport;
  /** One file per member, `<dir>/etcd-N.log`: the member's whole stderr. */
  logFiles: string[];
}

/** Starts a lab for the fault, runs it, writes the members' logs into `dir`, destroys the lab. */
export async function runLabFault(
  fault: LabFault,
  dir: string,
  logger: 'zap' | 'capnslog' = 'zap',
): Promise<FaultRun | { skip: string }> {
  const setup = await fault.lab();
  if ('skip' in setup) return setup;
  const lab = await startEtcdLab({ ...setup.options, logger });
  const doctor = labDoctor(lab);
  try {
    const live = await fault.run(lab, doctor);
    return { live, logFiles: await writeLabLogs(lab, dir) };
  } finally {
    await doctor.close();
    await lab.destroy();
    await setup.dispose();
  }
}

/** The lab listens on 127.0.0.1 only, so its logs name loopback addresses alone. */
export async function writeLabLogs(lab: EtcdLab, dir: string): Promise<string[]> {
  await mkdir(dir, { recursive: true });
  return Promise.all(
    lab.members.map(async (m) => {
      const path = join(dir, `${m.name}.log`);
      const text = lab.logs(m.name);
      const foreign = /\b(?!127\.)\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}:\d+/.exec(text);
      if (foreign) throw new Error(`${m.name}'s log names ${foreign[0]}, outside 127.0.0.0/8`);
      await writeFile(path, text);
      return path;
    }),
  );
}
