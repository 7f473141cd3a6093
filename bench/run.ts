import { execFileSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { cpus, totalmem } from 'node:os';
import { benchCharts } from './charts.js';
import { benchDiagnosisTime } from './diagnosis-time.js';
import { benchFleet } from './fleet.js';
import { benchHealth } from './health.js';
import { benchNospaceRecovery } from './nospace-recovery.js';
import { benchOfflineRead } from './offline-read.js';
import { benchProbeCost } from './probe-cost.js';
import { benchSlackFlow } from './slack-flow.js';

/**
 * `npm run bench`: every benchmark, side by side in one run, written to docs/BENCHMARKS.md.
 * `npm run bench -- health` runs only the named sections.
 */
const SECTIONS: Record<string, () => Promise<string>> = {
  health: benchHealth,
  'diagnosis-time': benchDiagnosisTime,
  'probe-cost': benchProbeCost,
  'slack-flow': benchSlackFlow,
  fleet: benchFleet,
  'nospace-recovery': benchNospaceRecovery,
  charts: benchCharts,
  'offline-read': benchOfflineRead,
};

/** Goals from the issues that these numbers do not meet, and why (kept with the results). */
const SHORTFALLS = [
  '## Shortfalls against the goals, and their causes',
  '',
  '- Ack latency at 200 concurrent slash commands is a few hundred ms at the median (the goal of 200 ms was',
  '  set for 50): one Node process verifies 200 signatures and enqueues on one Redis connection on 2 cores.',
  "  It stays far inside Slack's 3 s.",
  '- Time to a diagnosis is ~3.1 s by design: two /metrics scrapes 3 s apart (`probes.metricsWindowMs`).',
  '- A worker killed between Slack storing its progress message and Redis recording it leaves that message at',
  '  "starting" and the recovered job posts another (no idempotency key on chat.postMessage; see README).',
  '- If Redis fails in the instant after Slack took the answer and before it is recorded, the answer stands but',
  '  the root message keeps its progress text: the retries find the claim still held (120 s lease) and give up.',
  '- A second worker spreads a large digest (CPU, memory) but barely shortens it here: the probe timeouts set',
  '  the floor, and the etcd labs share the same 2 cores.',
  '- Charts: ~50-60 ms wall on a quiet host; at load 4-6 a median of 110-140 ms and a p90 of 200-360 ms.',
  '  About half of resvg is text. A chart never delays the answer (drawn after the text is posted).',
  "- Absolute figures move with the host's load (shared 2-core VM); compare the ratios within one run.",
  '',
  'The 10-minute soak (`npm run test:soak`: memory and open file descriptors under steady mixed commands) is',
  'recorded separately in [SOAK.md](SOAK.md).',
  '',
].join('\n');

function version(cmd: string, args: string[]): string {
  try {
    return execFileSync(cmd, args, { encoding: 'utf8' }).split('\n')[0]?.trim() ?? 'unknown';
  } catch {
    return 'not found';
  }
}

function machine(): string {
  return [
    `- Machine: ${cpus().length} × ${cpus()[0]?.model ?? 'unknown CPU'}, ${Math.round(totalmem() / 1024 ** 3)} GiB`,
    `- Node ${process.version}; ${version('etcd', ['--version'])}; ${version('etcdctl', ['version'])}`,
    `- Date: ${new Date().toISOString()}`,
  ].join('\n');
}

const wanted = process.argv.slice(2).filter((a) => a in SECTIONS);
const names = wanted.length ? wanted : Object.keys(SECTIONS);
const parts = [
  '# Benchmarks',
  '',
  'Reproduce with `npm run bench`. Medians and ratios; every comparison ran side by side in the same run.',
  '',
  machine(),
  '',
];
for (const name of names) {
  console.error(`bench: ${name} ...`);
  const section = SECTIONS[name];
  if (section) parts.push(await section());
}
parts.push(SHORTFALLS);
const text = parts.join('\n');
console.log(text);
if (!wanted.length) await writeFile('docs/BENCHMARKS.md', `${text}\n`);
