import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { memberColors } from '../../../src/charts/member-colors.js';
import { createWatchState } from '../../../src/state/watch-state.js';
import {
  type FakeFile,
  type FakeMessage,
  type FakeSlack,
  startFakeSlack,
} from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { decodePng, drawnTop } from '../../support/chat/png-pixels.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText } from '../../support/slack/slack-driver.js';
import { channelThreads } from '../../support/slack/slack-http.js';
import { startWorkerProcess, type WorkerProcess } from '../../support/process/worker-process.js';
import { channelDump, waitForSlack, watchChecks } from '../../support/chat/watch-waits.js';
import { within } from '../../support/process/within.js';

/**
 * Incidents from the watch, end to end: real `etcd-doctor worker` processes watching a real
 * 3-member etcd every 5 s, posting to the fake Slack. Healthy under write load stays silent; a
 * strace-slowed follower disk opens one thread naming it; removing the fault resolves that thread;
 * a killed member opens one at once; a worker SIGKILLed between checks does not open a second one.
 */

const CHANNEL = 'C0WATCH';
const INTERVAL_S = 5;
/**
 * etcd's own alert, etcdHighFsyncDurations, waits `for: 10m` with p99 over 0.5 s before it fires
 * (KB §1.1 F1 and the MIXIN rule table, /work/shared/reference/etcd-diagnosis-kb.md): the watch's
 * post must come before that could have happened.
 */
const ETCD_HIGH_FSYNC_FOR_MS = 10 * 60_000;
const prefix = testPrefix('incident');
let lab: EtcdLab;
let fake: FakeSlack;
let redis: Redis;
let dir: string;
let configPath: string;
const workers: WorkerProcess[] = [];
let load: Promise<unknown> | undefined;
const { roots, replies } = channelThreads(() => fake, CHANNEL);

function startWorker(): WorkerProcess {
  const worker = startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url });
  workers.push(worker);
  return worker;
}

/** On a timeout: the last check and every message in the channel. */
const context = async () =>
  `\nlast check: ${JSON.stringify(await createWatchState(redis, prefix).lastCheck('local'))}${channelDump(fake, CHANNEL, 400)}`;
const checks = (n: number, timeoutMs?: number) =>
  watchChecks(createWatchState(redis, prefix), 'local', n, { intervalS: INTERVAL_S, timeoutMs, context });
const waitFor = (pred: () => boolean, timeoutMs: number) =>
  waitForSlack(fake, pred, timeoutMs, 'the Slack messages awaited', context);

/** The PNG charts uploaded into `root`'s thread, oldest first. */
function chartsIn(root: FakeMessage | undefined): FakeFile[] {
  return fake.files().filter((f) => root && f.thread_ts === root.ts && f.filename.endsWith('.png'));
}

/**
 * A real PNG of the fsync p99 per member over the watch's minute history (the
 * watch has checked before the incident opens), with a title and alt text naming the slow one,
 * its line the highest.
 */
function expectSlowMemberStandsOut(chart: FakeFile | undefined, victim: string): void {
  if (!chart) throw new Error('no chart in the incident thread');
  expect(chart.title).toMatch(new RegExp(`wal fsync p99 per member \\(${victim} above 10 ms\\)`));
  expect(chart.alt_txt).toMatch(
    new RegExp(
      // Minutes of watch checks: the axis spans them (at least 10 min), not an empty hour.
      `^Line chart of wal fsync p99 per member of local over the last \\d+ min, \\d\\d:\\d\\d-\\d\\d:\\d\\d UTC: ${victim} peak [\\d.]+ ms`,
    ),
  );
  const img = decodePng(chart.bytes);
  expect(img.width).toBeGreaterThan(400);
  const names = lab.members.map((m) => m.name);
  const colors = memberColors(names, [victim]);
  const top = (member: string) => drawnTop(img, colors[member], undefined, `line of ${member}`);
  for (const other of names.filter((n) => n !== victim)) expect(top(victim)).toBeLessThan(top(other));
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  redis = new Redis(REDIS_URL);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-watch-'));
  configPath = join(dir, 'clusters.yaml');
  // JSON is YAML.
  const config = {
    clusters: [
      {
        name: 'local',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        slack: { channel: CHANNEL },
        watch: { intervalSeconds: INTERVAL_S },
      },
    ],
    probes: { timeoutMs: 1000, metricsWindowMs: 3000 },
  };
  await writeFile(configPath, JSON.stringify(config, null, 2));
});

afterAll(async () => {
  for (const w of workers) w.child.kill('SIGKILL');
  await load;
  redis?.disconnect();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('incidents from the watch', () => {
  it('stays silent when healthy, opens one thread for a slow follower disk, resolves the same thread', async () => {
    // Writes for fsyncs to measure; bounded, and awaited in afterAll.
    load = lab.writeLoad({ ratePerSecond: 60, durationMs: 100_000, valueBytes: 256 });
    startWorker();
    await checks(4);
    expect(fake.messages(CHANNEL)).toHaveLength(0);

    const leader = await lab.leaderName();
    const victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-2';
    const slow = await lab.slowDisk(victim, 20_000);
    const faultAt = Date.now();
    try {
      // Two checks in a row see it: within two intervals, plus the window (one interval), plus a check.
      await waitFor(() => roots().length > 0, 4 * INTERVAL_S * 1000 + 10_000);
      const postedAfterMs = Date.now() - faultAt;
      expect(postedAfterMs).toBeLessThan(3 * INTERVAL_S * 1000 + 8000);
      expect(postedAfterMs).toBeLessThan(ETCD_HIGH_FSYNC_FOR_MS);
      // The chart follows the diagnosis into the thread while the fault is still on.
      await waitFor(() => chartsIn(roots()[0]).length > 0, 20_000);
    } finally {
      await slow.stop();
    }
    const [root] = roots();
    if (!root) throw new Error('no incident root');
    expect(messageText(root)).toMatch(new RegExp(`INCIDENT: slow-disk on ${victim}`));
    // Since when, from the minute history: the fault started mid-history, after healthy checks.
    expect(messageText(root)).toMatch(
      new RegExp(
        `${victim} wal fsync p99 above 10 ms since \\d\\d:\\d\\d \\(\\d+ min; \\d\\d:\\d\\d-\\d\\d:\\d\\d it was [\\d.]+-[\\d.]+ ms\\)`,
      ),
    );
    await waitFor(() => replies(root).length > 0, 10_000);
    expect(messageText(replies(root)[0] ?? root)).toContain(victim);
    expectSlowMemberStandsOut(chartsIn(root)[0], victim);

    // Fixed: three healthy checks resolve the same root; no second thread.
    await waitFor(() => /RESOLVED: slow-disk/.test(messageText(roots()[0] ?? root)), 8 * INTERVAL_S * 1000);
    expect(roots()).toHaveLength(1);
    expect(messageText(roots()[0] ?? root)).toMatch(/Resolved at \d\d:\d\d UTC after \d+ (s|min)/);
    // The resolve posts the same metric again, in the same thread: a second chart there.
    await waitFor(() => chartsIn(root).length >= 2, 20_000);
    expect(chartsIn(root)[1]?.title).toMatch(/wal fsync p99 per member/);

    // A killed member: open at the first check that sees it.
    const down = lab.members.map((m) => m.name).find((n) => n !== victim && n !== leader) ?? 'etcd-3';
    await lab.kill(down);
    const killedAt = Date.now();
    await waitFor(() => roots().length === 2, 2 * INTERVAL_S * 1000 + 10_000);
    expect(Date.now() - killedAt).toBeLessThan(2 * INTERVAL_S * 1000 + 5000);
    const second = roots()[1];
    expect(messageText(second ?? root)).toMatch(new RegExp(`INCIDENT: member-down on ${down}`));

    // The worker dies between two checks; a new one carries on the same incident.
    await checks(1);
    const first = workers[0];
    first?.child.kill('SIGKILL');
    await within(
      new Promise<void>((resolve) =>
        first?.child.exitCode !== null ? resolve() : first.child.once('exit', () => resolve()),
      ),
      10_000,
      'the SIGKILLed worker exits',
    );
    startWorker();
    await checks(2, 60_000);
    expect(roots()).toHaveLength(2);

    await lab.restart(down);
    await waitFor(() => /RESOLVED: /.test(messageText(roots()[1] ?? root)), 10 * INTERVAL_S * 1000);
    expect(roots()).toHaveLength(2);
  }, 300_000);
});
