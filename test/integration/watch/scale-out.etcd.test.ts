import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { stringify } from 'yaml';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { checkTimes, countSlots } from '../../support/chat/watch-slots.js';
import { startWorkerProcess, type WorkerProcess, waitUntil } from '../../support/process/worker-process.js';
import { within } from '../../support/process/within.js';

/**
 * Scale-out of the watch (one instance cannot check hundreds of clusters in time): two real `etcd-doctor worker` processes on one Redis watch 40
 * clusters (each named on its own, all pointing at one real 3-member lab) every 10 s. Both take
 * checks, and over three intervals every cluster is checked exactly once in each of its
 * scheduler's slots: none twice, none skipped (read back from each cluster's minute history).
 */
const CLUSTERS = 40;
const INTERVAL_S = 10;
const WINDOW_INTERVALS = 3;
const prefix = testPrefix('watch-scale');
let lab: EtcdLab;
let fake: FakeSlack;
let redis: Redis;
let dir: string;
const workers: WorkerProcess[] = [];
const names = Array.from({ length: CLUSTERS }, (_, i) => `w${String(i).padStart(2, '0')}`);

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-scale-'));
  const configPath = join(dir, 'clusters.yaml');
  const clusters = names.map((name) => ({
    name,
    etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
  }));
  await writeFile(
    configPath,
    stringify({ clusters, watch: { intervalSeconds: INTERVAL_S } }, { aliasDuplicateObjects: false }),
  );
  for (let i = 0; i < 2; i++) workers.push(startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url }));
  await waitUntil(() => workers.every((w) => w.started()), 60_000, 'both workers started');
});

afterAll(async () => {
  await Promise.all(
    workers.map(async (w) => {
      if (w.child.exitCode !== null || w.child.signalCode !== null) return;
      const exited = new Promise<void>((resolve) => w.child.once('exit', () => resolve()));
      w.child.kill('SIGTERM');
      await within(exited, 10_000, 'the SIGKILLed worker exits');
    }),
  );
  redis?.disconnect();
  await purgePrefix(prefix);
  await Promise.all([fake?.close(), lab?.destroy()]);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the watch on two worker processes', () => {
  it('shares the checks: every cluster once an interval, never twice, none skipped', async () => {
    const everyMs = INTERVAL_S * 1000;
    // Warm-up: every cluster's scheduler has fired once.
    const deadline = Date.now() + 3 * everyMs + 30_000;
    for (;;) {
      const times = await checkTimes(redis, prefix, names);
      if ([...times.values()].every((t) => t.length > 0)) break;
      if (Date.now() > deadline) throw new Error('not every cluster was checked within 3 intervals');
      await new Promise((r) => setTimeout(r, 500));
    }
    const from = Date.now();
    const to = from + WINDOW_INTERVALS * everyMs;
    // The last slots' checks land a moment after they fire: wait until each slot in the window has
    // its check, a whole interval at most.
    await new Promise((r) => setTimeout(r, to - from));
    let count = countSlots(await checkTimes(redis, prefix, names), from, to, everyMs);
    const settle = Date.now() + everyMs;
    while (count.skipped > 0 && Date.now() < settle) {
      await new Promise((r) => setTimeout(r, 500));
      count = countSlots(await checkTimes(redis, prefix, names), from, to, everyMs);
    }
    expect(count.slots).toBeGreaterThanOrEqual(CLUSTERS * (WINDOW_INTERVALS - 1));
    expect({ twice: count.clustersTwice, skipped: count.clustersSkipped }).toEqual({
      twice: [],
      skipped: [],
    });
    expect(count.checks).toBe(count.slots);

    // Both processes took checks (BullMQ records which worker ran each job: host:pid:id).
    const queue = new Queue('jobs', { connection: redis, prefix });
    const done = (await queue.getJobs(['completed'])).filter((j) => j.name === 'watch');
    await queue.close();
    const byPid = new Set(done.map((j) => j.processedBy?.split(':')[1]));
    for (const w of workers) expect(byPid).toContain(String(w.child.pid));
  });
});
