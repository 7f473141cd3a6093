import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createWatchState } from '../../../src/state/watch-state.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { metricValue, rangeStorm, seedKeys, waitForMetric } from '../../support/lab/overload-load.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText } from '../../support/slack/slack-driver.js';
import { channelThreads } from '../../support/slack/slack-http.js';
import { startWorkerProcess, type WorkerProcess } from '../../support/process/worker-process.js';
import { channelDump, waitForSlack, watchChecks } from '../../support/chat/watch-waits.js';

/**
 * The watch carries a range storm (issue 39): a real worker watching the 3-member lab every 5 s
 * opens one incident naming expensive-requests on the member read from, with the bytes a second and
 * since when, and resolves it once the storm stops.
 */
const CHANNEL = 'C0STORM';
const INTERVAL_S = 5;
const prefix = testPrefix('storm');
let lab: EtcdLab;
let fake: FakeSlack;
let redis: Redis;
let dir: string;
let worker: WorkerProcess | undefined;
const { roots } = channelThreads(() => fake, CHANNEL);

const context = async () =>
  `\nlast check: ${JSON.stringify(await createWatchState(redis, prefix).lastCheck('local'))}${channelDump(fake, CHANNEL, 400)}`;
const waitFor = (pred: () => boolean, timeoutMs: number) =>
  waitForSlack(fake, pred, timeoutMs, 'the Slack messages awaited', context);

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  redis = new Redis(REDIS_URL);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-storm-'));
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
  await writeFile(join(dir, 'clusters.yaml'), JSON.stringify(config, null, 2));
});

afterAll(async () => {
  worker?.child.kill('SIGKILL');
  redis?.disconnect();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('the watch and a range storm', () => {
  it('opens one incident for expensive-requests on the member read from, says since when, resolves it', async () => {
    const target = lab.members[0];
    if (!target) throw new Error('no member');
    await seedKeys(target.clientUrl, { prefix: '/registry/pods/', count: 20_000, valueBytes: 1500 });
    worker = startWorkerProcess({ configPath: join(dir, 'clusters.yaml'), prefix, slackApiUrl: fake.url });
    await watchChecks(createWatchState(redis, prefix), 'local', 2, { intervalS: INTERVAL_S, context });
    expect(fake.messages(CHANNEL)).toHaveLength(0);
    const sent = (await metricValue(lab, target.name, 'etcd_network_client_grpc_sent_bytes_total')) ?? 0;
    const storm = await rangeStorm(target.clientUrl, {
      prefix: '/registry/pods/',
      clients: 3,
      maxSeconds: 150,
    });
    try {
      await waitForMetric(
        lab,
        target.name,
        'etcd_network_client_grpc_sent_bytes_total',
        (v) => v > sent + 60e6,
      );
      await waitFor(() => roots().length > 0, 6 * INTERVAL_S * 1000 + 20_000);
    } finally {
      await storm.stop();
    }
    const root = roots()[0];
    const text = messageText(root ?? { text: '' });
    console.log(`watch incident:\n${text}`);
    expect(text).toMatch(new RegExp(`INCIDENT: expensive-requests on ${target.name}`));
    expect(text).toMatch(new RegExp(`\\d+ MB/s from ${target.name}`));
    expect(text).toMatch(new RegExp(`heavy client reads on ${target.name} since \\d\\d:\\d\\d`));
    await waitFor(
      () => /RESOLVED: expensive-requests/.test(messageText(roots()[0] ?? { text: '' })),
      10 * INTERVAL_S * 1000,
    );
    expect(roots()).toHaveLength(1);
  }, 240_000);
});
