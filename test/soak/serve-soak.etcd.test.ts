import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { allocateFreePorts } from '../support/lab/free-ports.js';
import { type FakeSlack, startFakeSlack } from '../support/slack/fake-slack.js';
import { inspectQueue, waitForQueueSettled } from '../support/redis/job-states.js';
import { labConfigYaml } from '../support/lab/lab-config.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';
import { SIGNING_SECRET, sendSlashCommand } from '../support/slack/slack-driver.js';

/**
 * Soak (`npm run test:soak`, not part of `npm test`): `etcd-doctor serve` in Slack HTTP mode takes
 * a steady stream of mixed commands for SOAK_MINUTES (default 10) against a real 3-member cluster.
 * RSS and open file descriptors (/proc/<pid>/fd) are sampled every 10 s.
 *
 * Bounds, measured from the first sample after warm-up (the first fifth of the run, when every code
 * path has been loaded and the heap has settled) to the last sample:
 *  - RSS grows by at most 40 MiB (a leak of one report per command would be far more over 1200);
 *  - open fds grow by at most 8 (sockets come and go; a leak of one per command would be hundreds).
 *
 * A full-length run writes its record to docs/SOAK.md (a shortened one to .etcd-doctor/SOAK.md).
 */
const MINUTES = Number(process.env.SOAK_MINUTES ?? '10');
const COMMANDS_PER_SECOND = 2;
const SAMPLE_MS = 10_000;
const RSS_GROWTH_LIMIT_BYTES = 40 * 1024 * 1024;
const FD_GROWTH_LIMIT = 8;
const MIX = ['health local', 'diagnose local', 'status', 'clusters', 'help', 'health nowhere', 'bogus'];

let lab: EtcdLab;
let fake: FakeSlack;
let dir: string;
let child: ChildProcess;
const stderr: string[] = [];
const prefix = testPrefix('soak');

interface Sample {
  atMs: number;
  rssBytes: number;
  fds: number;
}

async function sample(pid: number, startedMs: number): Promise<Sample> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const rssKb = Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? Number.NaN);
  const fds = (await readdir(`/proc/${pid}/fd`)).length;
  return { atMs: Date.now() - startedMs, rssBytes: rssKb * 1024, fds };
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-soak-'));
  const configPath = join(dir, 'clusters.yaml');
  await writeFile(configPath, labConfigYaml(lab));
  const [port] = await allocateFreePorts(1, '127.0.0.1');
  child = spawn(process.execPath, ['bin/etcd-doctor.js', 'serve', '--queue-prefix', prefix], {
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL,
      ETCD_DOCTOR_CONFIG: configPath,
      SLACK_BOT_TOKEN: 'xoxb-1-soak',
      SLACK_SIGNING_SECRET: SIGNING_SECRET,
      SLACK_API_URL: fake.url,
      PORT: String(port),
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    if (stderr.length < 200) stderr.push(chunk.toString('utf8'));
  });
  const url = `http://127.0.0.1:${port}/slack/events`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    const up = await sendSlashCommand(url, { text: 'help' }).then(
      (r) => r.status === 200,
      () => false,
    );
    if (up) break;
    if (Date.now() > deadline) throw new Error(`serve did not start: ${stderr.join('')}`);
    await new Promise((r) => setTimeout(r, 250));
  }
  process.env.SOAK_URL = url;
}, 60_000);

afterAll(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('soak: etcd-doctor serve under a steady stream of mixed commands', () => {
  it(`${MINUTES} min at ${COMMANDS_PER_SECOND}/s: memory within bound, fds flat, every command acked`, async () => {
    const url = process.env.SOAK_URL ?? '';
    const pid = child.pid ?? 0;
    const startedMs = Date.now();
    const endMs = startedMs + MINUTES * 60_000;
    const samples: Sample[] = [await sample(pid, startedMs)];
    const statuses = new Map<number, number>();
    const ackMs: number[] = [];
    let answers = 0;
    const countAnswers = () =>
      fake.calls('chat.postMessage').filter((c) => c.status === 200 && c.error === undefined).length +
      fake.responses().length;
    const inFlight = new Set<Promise<void>>();
    let sent = 0;
    let nextSampleMs = startedMs + SAMPLE_MS;
    while (Date.now() < endMs) {
      const text = MIX[sent % MIX.length] ?? 'help';
      const channel = `C${100 + (sent % 5)}`;
      const sentAt = performance.now();
      // Many on-call users, as in an incident channel: one user alone would hit the diagnose rate limit.
      const p = sendSlashCommand(url, { text, channel_id: channel, user_id: `U${100 + (sent % 97)}` })
        .then(
          (r) => {
            ackMs.push(performance.now() - sentAt);
            return r.status;
          },
          () => 0,
        )
        .then((status) => {
          statuses.set(status, (statuses.get(status) ?? 0) + 1);
        })
        .finally(() => inFlight.delete(p));
      inFlight.add(p);
      sent += 1;
      // Keep the post log of the fake bounded; it is not what is measured.
      if (sent % 500 === 0) {
        answers += countAnswers();
        fake.reset();
      }
      if (Date.now() >= nextSampleMs) {
        samples.push(await sample(pid, startedMs));
        nextSampleMs += SAMPLE_MS;
      }
      await new Promise((r) => setTimeout(r, 1000 / COMMANDS_PER_SECOND));
    }
    await Promise.all([...inFlight]);
    // The last jobs finish (a diagnosis takes ~3 s) before the final sample and the count.
    const inspect = inspectQueue(prefix);
    try {
      await waitForQueueSettled(inspect, 0, 60_000);
    } finally {
      await inspect.close();
    }
    samples.push(await sample(pid, startedMs));
    answers += countAnswers();

    const warm = samples.find((s) => s.atMs >= (MINUTES * 60_000) / 5) ?? samples[0];
    const last = samples[samples.length - 1];
    if (!warm || !last) throw new Error('no samples');
    const table = samples.map(
      (s) => `${Math.round(s.atMs / 1000)}s rss=${(s.rssBytes / 2 ** 20).toFixed(1)}MiB fds=${s.fds}`,
    );
    const sorted = [...ackMs].sort((a, b) => a - b);
    const pct = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
    const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
    const record = [
      '# Soak',
      '',
      'Reproduce with `npm run test:soak` (test/soak/serve-soak.etcd.test.ts).',
      '',
      `- Date: ${new Date().toISOString()}; Node ${process.version}; ${cpus().length} × ${cpus()[0]?.model ?? 'CPU'}`,
      `- \`etcd-doctor serve\` (Slack HTTP mode, fake Slack API) against a real 3-member etcd, ${MINUTES} min at ${COMMANDS_PER_SECOND} commands/s`,
      `- Mix, in turn: ${MIX.map((m) => `\`${m}\``).join(', ')}`,
      `- Commands sent: ${sent}; HTTP statuses: ${JSON.stringify(Object.fromEntries(statuses))}; Slack messages posted (roots, answers, status lists; the other commands are answered in the ack): ${answers}`,
      `- Ack latency: p50 ${pct(0.5).toFixed(0)} ms, p99 ${pct(0.99).toFixed(0)} ms, max ${pct(1).toFixed(0)} ms`,
      `- RSS: ${mib(samples[0]?.rssBytes ?? 0)} MiB at start, ${mib(warm.rssBytes)} MiB after warm-up (${Math.round(warm.atMs / 1000)} s), ${mib(last.rssBytes)} MiB at the end: growth ${mib(last.rssBytes - warm.rssBytes)} MiB (bound ${mib(RSS_GROWTH_LIMIT_BYTES)} MiB)`,
      `- Open file descriptors: ${samples[0]?.fds} at start, ${warm.fds} after warm-up, ${last.fds} at the end (bound: +${FD_GROWTH_LIMIT}); min ${Math.min(...samples.map((s) => s.fds))}, max ${Math.max(...samples.map((s) => s.fds))}`,
      '',
      'Samples (every 10 s):',
      '',
      '```',
      ...table,
      '```',
      '',
    ].join('\n');
    const out = MINUTES >= 10 ? 'docs/SOAK.md' : '.etcd-doctor/SOAK.md';
    await mkdir(out.replace(/\/[^/]+$/, ''), { recursive: true });
    await writeFile(out, record);
    console.log(record);
    expect(child.exitCode).toBeNull();
    expect(statuses.get(200)).toBe(sent);
    expect(answers).toBeGreaterThan(sent / 2);
    expect(last.rssBytes - warm.rssBytes).toBeLessThan(RSS_GROWTH_LIMIT_BYTES);
    expect(last.fds - warm.fds).toBeLessThanOrEqual(FD_GROWTH_LIMIT);
  });
});
