import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Redis } from 'ioredis';
import { createChartRenderer } from '../../../src/charts/chart-renderer.js';
import { memberChart } from '../../../src/charts/diagnosis-chart.js';
import { memberColors } from '../../../src/charts/member-colors.js';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { type ConfigFile, configFileSchema } from '../../../src/config/schema.js';
import type { DiagnosisReport } from '../../../src/contracts/report-json.js';
import { createDoctor } from '../../../src/doctor.js';
import { summarizeCheck } from '../../../src/state/minute-sample.js';
import { silentLogger } from '../../../src/logger.js';
import type { Evidence } from '../../../src/probes/evidence.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { createMinuteHistory, type MinuteHistory } from '../../../src/state/minute-history.js';
import { cliInProcess } from '../../support/process/cli-in-process.js';
import { baseEnv, connectStdio, reportOf, texts } from '../../support/chat/mcp-client.js';
import { type FakeMessage, type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { decodePng, pixelsOf, topOf } from '../../support/chat/png-pixels.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText, sendSlashCommand } from '../../support/slack/slack-driver.js';
import { channelThreads, eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/**
 * Since when, from a real fault that starts mid-history. The hour before is real readings of the
 * healthy lab (real diagnoses under write load), written through the real minute-history store at
 * injected times, 5 min apart. Then the real worker's watch checks the lab every 5 s, strace slows
 * one follower's fdatasync by 100 ms, and once the watch's own checks have seen it, a user asks
 * (/etcd diagnose through Bolt and BullMQ on real Redis; then the CLI, text and --json). Every
 * answer names the member, the start of the slow run and what fsync read in the hour before, and
 * the chart spans that hour with the slow member's line on top.
 */

jest.setTimeout(120_000);

const CHANNEL = 'C0SINCE';
const INTERVAL_S = 5;
const DELAY_MS = 100;
const HOUR = 3600_000;
const EARLIER = 12;
const prefix = testPrefix('since');
let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles | undefined;
let redis: Redis;
let history: MinuteHistory;
let dir: string;
let configPath: string;
let victim: string;
let slow: { stop(): Promise<void> } | undefined;
let load: Promise<unknown> | undefined;
/** The first injected sample's time: where "it was" must begin. */
let historyStart: number;
let faultAt: number;
const { roots, replies } = channelThreads(() => fake, CHANNEL);

function config(): ConfigFile {
  return configFileSchema.parse({
    // No slack.channel: the watch writes the history and opens no incident thread here.
    clusters: [
      {
        name: 'local',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        watch: { intervalSeconds: INTERVAL_S },
      },
    ],
    probes: { timeoutMs: 3000, metricsWindowMs: 2000 },
  });
}

const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/** The hour before: real readings of the healthy lab, recorded 5 min apart ending 5 min ago. */
async function writeEarlierHistory(clusters: ConfigFile): Promise<void> {
  const doctor = createDoctor({ config: clusters, readFileBuffer: (p) => readFile(p) });
  historyStart = Date.now() - HOUR;
  try {
    for (let i = 0; i < EARLIER; i += 1) {
      let evidence: Evidence | undefined;
      const report = await doctor.run('local', 'diagnose', { onEvidence: (e) => (evidence = e) });
      expect(report.findings.map((f) => f.cause)).not.toContain('slow-disk');
      const t = historyStart + i * 5 * 60_000;
      const at = createMinuteHistory(redis, prefix, () => t);
      await at.record('local', { ...summarizeCheck(report, evidence), t });
    }
  } finally {
    await doctor.close();
  }
}

/** Until `n` watch checks after the fault have named the victim's slow disk (the worker's own checks). */
async function slowChecks(n: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (let tries = 0; Date.now() < deadline && tries < 1000; tries += 1) {
    const seen = (await history.samples('local', faultAt)).filter((s) =>
      s.f.some(([cause, , members]) => cause === 'slow-disk' && members.includes(victim)),
    );
    if (seen.length >= n) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  const last = (await history.samples('local', faultAt)).map((s) => JSON.stringify(s.f));
  throw new Error(`not within ${timeoutMs} ms: ${n} watch checks naming ${victim}; saw ${last.join(' ')}`);
}

/** `etcd-2 wal fsync p99 above 10 ms since 04:51 (0 min; 03:52-04:51 it was 1.2-8 ms)`, with its parts. */
function sinceLine(member: string): RegExp {
  return new RegExp(
    `${member} wal fsync p99 above 10 ms since (\\d\\d:\\d\\d) \\((\\d+) min; (\\d\\d:\\d\\d)-(\\d\\d:\\d\\d) it was ([\\d.]+)(?:-([\\d.]+))? ms\\)`,
  );
}

/** What every view must say: the victim, a start at or after the fault, the hour before, healthy values. */
function expectSince(text: string): void {
  const m = sinceLine(victim).exec(text);
  if (!m) throw new Error(`no since-when line for ${victim} in:\n${text}`);
  const [, start, , from, to, min, max] = m;
  // The run began with a watch check after the fault (minutes are UTC clock times; the test runs within an hour).
  expect([hhmm(faultAt), hhmm(faultAt + 60_000), hhmm(faultAt + 120_000)]).toContain(start);
  expect(from).toBe(hhmm(historyStart));
  expect((to ?? '') <= (start ?? '') || (start ?? '') < (from ?? '')).toBe(true);
  // Before the fault fsync was far below what strace makes it.
  expect(Number(max ?? min)).toBeLessThan(DELAY_MS);
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  redis = new Redis(REDIS_URL);
  history = createMinuteHistory(redis, prefix, Date.now);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-since-'));
  configPath = join(dir, 'clusters.yaml');
  const clusters = config();
  await writeFile(configPath, JSON.stringify(clusters, null, 2));
  // Writes for fsyncs to measure, through the whole test; bounded, awaited in afterAll.
  load = lab.writeLoad({ ratePerSecond: 40, durationMs: 150_000, valueBytes: 256 });
  await writeEarlierHistory(clusters);
  chat = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'serve',
    chat,
    config: clusters,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    tuning: { progressIntervalMs: 200, jobTimeoutMs: 60_000 },
  });
  const leader = await lab.leaderName();
  victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
  // Healthy watch checks first, then the fault: it starts mid-history.
  const firstWatch = Date.now();
  for (let i = 0; i < 200 && (await history.samples('local', firstWatch)).length < 2; i += 1)
    await new Promise((r) => setTimeout(r, 250));
  faultAt = Date.now();
  slow = await lab.slowDisk(victim, DELAY_MS * 1000);
  await slowChecks(2, 6 * INTERVAL_S * 1000 + 20_000);
}, 240_000);

afterAll(async () => {
  await slow?.stop();
  await roles?.stop();
  await load;
  redis?.disconnect();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('since when, from a slow disk that starts mid-history', () => {
  it('the Slack answer says since when, and its chart spans the hour of history', async () => {
    const res = await sendSlashCommand(eventsUrl(chat), {
      text: 'diagnose local',
      channel_id: CHANNEL,
      user_id: 'U111',
    });
    expect(res.status).toBe(200);
    await fake.waitFor(() => roots().length === 1 && replies(roots()[0] as FakeMessage).length > 0, 60_000);
    const answer = messageText(replies(roots()[0] as FakeMessage)[0] as FakeMessage);
    expect(answer).toContain(`slow-disk`);
    expect(answer).toContain('History:');
    expectSince(answer);

    await fake.waitFor((f) => f.files().length === 1, 30_000);
    const [file] = fake.files();
    const alt = new RegExp(
      `^Line chart of wal fsync p99 per member of local over the last hour, (\\d\\d):(\\d\\d)-(\\d\\d):(\\d\\d) UTC: ${victim} peak \\d+ ms`,
    ).exec(file?.alt_txt ?? '');
    if (!alt) throw new Error(`alt text: ${file?.alt_txt}`);
    // An hour from end to end.
    const [h0, m0, h1, m1] = alt.slice(1).map(Number);
    expect(((h1 ?? 0) * 60 + (m1 ?? 0) - (h0 ?? 0) * 60 - (m0 ?? 0) + 1440) % 1440).toBe(60);
    const img = decodePng(file?.bytes ?? Buffer.alloc(0));
    const names = lab.members.map((m) => m.name);
    const colors = memberColors(names, [victim]);
    const top = (member: string) => topOf(img, colors[member] ?? '') ?? Number.POSITIVE_INFINITY;
    for (const other of names.filter((n) => n !== victim)) expect(top(victim)).toBeLessThan(top(other) - 50);
  });

  it('the CLI prints the same since-when, in text and in --json', async () => {
    const text = await cliInProcess(['diagnose', 'local', '--config', configPath, '--queue-prefix', prefix], {
      REDIS_URL,
    });
    expect(text.stderr).not.toMatch(/no watch history/);
    expect(text.stdout).toMatch(new RegExp(`Root cause: slow-disk \\[\\w+\\] on ${victim}`));
    expect(text.stdout).toMatch(new RegExp(`  History: ${sinceLine(victim).source}`));
    expectSince(text.stdout);

    const json = await cliInProcess(
      ['diagnose', 'local', '--config', configPath, '--queue-prefix', prefix, '--json'],
      { REDIS_URL },
    );
    const report = JSON.parse(json.stdout) as DiagnosisReport;
    const finding = report.findings.find((f) => f.cause === 'slow-disk');
    const since = finding?.since?.find((s) => s.member === victim);
    expect(since).toMatchObject({
      cause: 'slow-disk',
      metric: 'wal fsync p99',
      before: { from: new Date(historyStart).toISOString(), unit: 'ms' },
    });
    expect(Date.parse(since?.startedAt ?? '')).toBeGreaterThanOrEqual(faultAt);
    expect(since?.before?.max).toBeLessThan(DELAY_MS);
    expectSince(since?.text ?? '');
  });

  it('the MCP etcd_diagnose tool says the same since-when, in its summary and its structured content', async () => {
    const session = await connectStdio(['--config', configPath, '--queue-prefix', prefix], baseEnv());
    try {
      const result = (await session.client.callTool({
        name: 'etcd_diagnose',
        arguments: { cluster: 'local' },
      })) as CallToolResult;
      const [summary] = texts(result);
      expect(summary).toMatch(new RegExp(`^Root cause: slow-disk on ${victim}`));
      expect(summary).toMatch(new RegExp(`\n  History: ${sinceLine(victim).source}`));
      expectSince(summary ?? '');
      const report = reportOf(result) as unknown as DiagnosisReport;
      const since = report.findings
        .find((f) => f.cause === 'slow-disk')
        ?.since?.find((x) => x.member === victim);
      expect(since).toMatchObject({ cause: 'slow-disk', metric: 'wal fsync p99' });
      expect(Date.parse(since?.startedAt ?? '')).toBeGreaterThanOrEqual(faultAt);
    } finally {
      await session.close();
    }
  });

  it('says nothing of since when for a cluster with no history', async () => {
    const json = await cliInProcess(
      ['diagnose', 'local', '--config', configPath, '--queue-prefix', `${prefix}-empty`, '--json'],
      { REDIS_URL },
    );
    const report = JSON.parse(json.stdout) as DiagnosisReport;
    expect(report.findings.find((f) => f.cause === 'slow-disk')).toBeDefined();
    expect(report.findings.every((f) => f.since === undefined)).toBe(true);
  });

  it('draws the hour of history: lines from the left edge of the plot to the right, the slow member on top', async () => {
    const doctor = createDoctor({ config: config(), readFileBuffer: (p) => readFile(p) });
    let evidence: Evidence | undefined;
    try {
      const report = await doctor.run('local', 'diagnose', { onEvidence: (e) => (evidence = e) });
      const finding = report.findings.find((f) => f.cause === 'slow-disk');
      expect(finding?.members).toEqual([victim]);
      if (!evidence) throw new Error('no evidence');
      const now = Date.now();
      const samples = await history.series('local', now - HOUR);
      const chart = memberChart('slow-disk', [victim], evidence, samples, now);
      expect(chart.xDomain).toEqual([now - HOUR, now]);
      const image = await createChartRenderer().member(chart);
      // The README's picture comes from this run: README_CHART=docs/images/slow-disk-chart.png.
      await writeFile(process.env.README_CHART ?? join(dir, 'chart.png'), image.png);
      const img = decodePng(image.png);
      expect([img.width, img.height]).toEqual([image.widthPx, image.heightPx]);
      const { plot } = image;
      // The plot fills the picture: nothing (a long subtitle) widens it past the plot and its axis.
      expect(img.width).toBeLessThan(plot.x + plot.width + 80);
      const drawn = Object.values(image.colors).flatMap((c) => pixelsOf(img, c, plot));
      const xs = drawn.map(([x]) => x);
      // The axis is the hour: the first check in it is drawn where its time falls, the latest at the right.
      const firstX = plot.x + (plot.width * ((samples[0]?.t ?? now) - (now - HOUR))) / HOUR;
      expect(samples[0]?.t).toBeLessThan(historyStart + 10 * 60_000);
      expect(Math.abs(Math.min(...xs) - firstX)).toBeLessThan(plot.width * 0.03);
      expect(Math.max(...xs)).toBeGreaterThan(plot.x + plot.width * 0.97);
      const top = (m: string) => topOf(img, image.colors[m] ?? '', plot) ?? Number.POSITIVE_INFINITY;
      for (const other of lab.members.map((m) => m.name).filter((n) => n !== victim))
        expect(top(victim)).toBeLessThan(top(other) - 50);
      // The slow part is at the right: the victim's highest pixel is in the last fifth of the hour.
      const peak = pixelsOf(img, image.colors[victim] ?? '', plot).sort((a, b) => a[1] - b[1])[0];
      expect(peak?.[0]).toBeGreaterThan(plot.x + plot.width * 0.8);
    } finally {
      await doctor.close();
    }
  });
});
