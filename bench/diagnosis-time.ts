import { readFile } from 'node:fs/promises';
import { createDoctor, type Doctor } from '../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { DIAGNOSIS_PROBES, labConfig } from '../test/support/lab/lab-config.js';
import { median, ms, row, timeIt } from './stats.js';

/**
 * Time to a diagnosis on a real local cluster, healthy and with each fault injected for real.
 * The default probe window is 3 s (two /metrics scrapes), so ~3 s is the floor by design.
 */
const RUNS = 3;

interface Scenario {
  name: string;
  quotaBackendBytes?: number;
  inject(lab: EtcdLab): Promise<() => Promise<void>>;
}

const nothing = async () => async () => {};

const scenarios: Scenario[] = [
  { name: 'healthy, idle', inject: nothing },
  {
    name: 'one member killed',
    inject: async (lab) => {
      await lab.kill('etcd-2');
      return async () => {};
    },
  },
  {
    name: 'one member hung (SIGSTOP)',
    inject: async (lab) => {
      lab.stop('etcd-2');
      return async () => lab.cont('etcd-2');
    },
  },
  {
    name: 'one slow disk (+200 ms fdatasync), with writes',
    inject: async (lab) => {
      const slow = await lab.slowDisk('etcd-2', 200_000);
      let running = true;
      const load = (async () => {
        for (let i = 0; running && i < 120; i++)
          await lab.writeLoad({ ratePerSecond: 40, durationMs: 500, valueBytes: 256 });
      })();
      return async () => {
        running = false;
        await load;
        await slow.stop();
      };
    },
  },
  {
    name: 'NOSPACE (16 MiB quota filled)',
    quotaBackendBytes: 16 * 1024 * 1024,
    inject: async (lab) => {
      await lab.fill({ valueBytes: 100 * 1024, maxPuts: 400 });
      return async () => {};
    },
  },
];

async function timeScenario(s: Scenario): Promise<string> {
  const lab = await startEtcdLab(s.quotaBackendBytes ? { quotaBackendBytes: s.quotaBackendBytes } : {});
  let doctor: Doctor | undefined;
  let undo: () => Promise<void> = async () => {};
  try {
    doctor = createDoctor({
      config: labConfig(lab, { name: 'lab', probes: DIAGNOSIS_PROBES }),
      readFileBuffer: (p) => readFile(p),
    });
    undo = await s.inject(lab);
    const times: number[] = [];
    let verdict = '';
    for (let i = 0; i < RUNS; i++) {
      const d = doctor;
      times.push(
        await timeIt(async () => {
          const report = await d.run('lab', 'diagnose');
          verdict = `${report.status}: ${report.findings[0] ? `${report.findings[0].cause} on ${report.findings[0].members.join(', ')}` : 'no findings'}`;
        }),
      );
    }
    return row([s.name, ms(median(times)), ms(Math.max(...times)), verdict]);
  } finally {
    await undo();
    await doctor?.close();
    await lab.destroy();
  }
}

export async function benchDiagnosisTime(): Promise<string> {
  const rows: string[] = [];
  for (const s of scenarios) rows.push(await timeScenario(s));
  return [
    '## Time to a diagnosis (3 local members, 3 s metrics window, 3 s probe timeout)',
    '',
    row(['scenario', 'median', 'max', 'verdict']),
    row(['---', '---', '---', '---']),
    ...rows,
    '',
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(await benchDiagnosisTime());
