import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createIncidents } from '../../../src/state/incidents.js';
import { createWatchState } from '../../../src/state/watch-state.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { type PrivateRedis, startPrivateRedis } from '../../support/redis/private-redis.js';
import { testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText } from '../../support/slack/slack-driver.js';
import { channelThreads } from '../../support/slack/slack-http.js';
import { startWorkerProcess, type WorkerProcess } from '../../support/process/worker-process.js';
import { channelDump, waitForSlack, watchChecks } from '../../support/chat/watch-waits.js';
import { within } from '../../support/process/within.js';

/**
 * One problem, one thread, whatever dies between two checks: a real `etcd-doctor worker` process
 * watching a real 3-member etcd every 5 s, on a Redis of this test's own (so it can be crashed and
 * restarted without touching the shared one), posting to the fake Slack. A killed member opens
 * the incident; the worker is SIGKILLed and replaced, Redis is SIGKILLed and restarted from its
 * append-only file; the thread stays the only one, is updated when the cause changes (quorum
 * lost), and is the one that says resolved.
 */

const CHANNEL = 'C0RESTART';
const INTERVAL_S = 5;
const prefix = testPrefix('watch-restarts');
let lab: EtcdLab;
let fake: FakeSlack;
let store: PrivateRedis;
let redis: Redis;
let dir: string;
let configPath: string;
const workers: WorkerProcess[] = [];
const { roots, replies } = channelThreads(() => fake, CHANNEL);

function startWorker(): WorkerProcess {
  const worker = startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url, redisUrl: store.url });
  workers.push(worker);
  return worker;
}

async function killWorker(worker: WorkerProcess | undefined): Promise<void> {
  if (!worker || worker.child.exitCode !== null || worker.child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => worker.child.once('exit', () => resolve()));
  worker.child.kill('SIGKILL');
  await within(exited, 10_000, 'the SIGKILLed worker exits');
}

const checks = (n: number, timeoutMs?: number) =>
  watchChecks(createWatchState(redis, prefix), 'local', n, {
    intervalS: INTERVAL_S,
    timeoutMs,
    context: dump,
  });

/** Every message in the channel and the live worker's last log lines, for a failure's message. */
function dump(): string {
  const log = workers.at(-1)?.log.join('').split('\n').slice(-15).join('\n') ?? '';
  return `${channelDump(fake, CHANNEL)}\nworker log:\n${log}`;
}

const waitFor = (pred: () => boolean, timeoutMs: number, what: string) =>
  waitForSlack(fake, pred, timeoutMs, what, dump);

/** The incident root's ts as Redis holds it, once it holds one (undefined past `timeoutMs`). */
async function savedRoot(timeoutMs: number): Promise<string | undefined> {
  const incidents = createIncidents(redis, prefix);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ts = (await incidents.get('local'))?.root?.ts;
    if (ts !== undefined || Date.now() > deadline) return ts;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  [lab, fake, store] = await Promise.all([startEtcdLab(), startFakeSlack(), startPrivateRedis()]);
  // Commands wait out the restart instead of failing.
  redis = new Redis(store.url, { maxRetriesPerRequest: null });
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-watch-restarts-'));
  configPath = join(dir, 'clusters.yaml');
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
  // JSON is YAML.
  await writeFile(configPath, JSON.stringify(config, null, 2));
});

afterAll(async () => {
  for (const w of workers) await killWorker(w);
  redis?.disconnect();
  await Promise.all([fake?.close(), lab?.destroy(), store?.destroy()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the watch across restarts', () => {
  it('keeps one thread for one incident through a killed worker and a crashed Redis, and resolves it there', async () => {
    startWorker();
    await checks(2, 60_000);
    expect(fake.messages(CHANNEL)).toHaveLength(0);

    const leader = await lab.leaderName();
    const [first, second] = lab.members.map((m) => m.name).filter((n) => n !== leader);
    if (!first || !second) throw new Error('no followers');
    await lab.kill(first);
    await waitFor(() => roots().length > 0, 3 * INTERVAL_S * 1000 + 15_000, 'an incident root');
    const [root] = roots();
    if (!root) throw new Error('no root');
    expect(messageText(root)).toMatch(new RegExp(`INCIDENT: member-down on ${first}`));
    // The worker saves the root right after Slack answers the post.
    expect(await savedRoot(10_000)).toBe(root.ts);

    // (a) The worker dies between two checks; a new one carries on the same incident.
    await checks(1);
    await killWorker(workers[0]);
    startWorker();
    await checks(2, 90_000);
    expect(roots()).toHaveLength(1);

    // (b) Redis crashes (SIGKILL) between checks and comes back from its append-only file.
    await store.restart();
    await checks(2, 90_000);
    expect(roots()).toHaveLength(1);
    expect(await savedRoot(10_000)).toBe(root.ts);

    // Still the same thread: a second member down loses quorum, and the root says so.
    await lab.kill(second);
    await waitFor(() => /INCIDENT: quorum-lost/.test(messageText(roots()[0] ?? root)), 60_000, 'the update');
    // The root is edited first, then the thread says what changed.
    await waitFor(
      () =>
        replies(root).some((m) =>
          /Changed: now quorum-lost \(critical\), was member-down/.test(messageText(m)),
        ),
      10_000,
      'the change said in the thread',
    );
    expect(roots()).toHaveLength(1);

    // Both back: three healthy checks resolve that same root.
    await lab.restart(second);
    await lab.restart(first);
    await waitFor(
      () => /RESOLVED: /.test(messageText(roots()[0] ?? root)),
      20 * INTERVAL_S * 1000,
      'resolved',
    );
    expect(roots()).toHaveLength(1);
    expect(roots()[0]?.ts).toBe(root.ts);
    await waitFor(
      () => replies(root).some((m) => /healthy for 3 checks in a row: resolved/.test(messageText(m))),
      10_000,
      'resolved said in the thread',
    );
  }, 420_000);
});
