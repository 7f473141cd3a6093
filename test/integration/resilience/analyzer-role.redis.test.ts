import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { Queue } from 'bullmq';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import {
  killWorkers,
  startWorkerProcess,
  type WorkerProcess,
  waitUntil,
} from '../../support/process/worker-process.js';
import { inspectQueue } from '../../support/redis/job-states.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { blocksText, sendFileShare } from '../../support/slack/slack-driver.js';
import { eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';

/**
 * Issue 38 M3: the worker holds the etcd client certificate (it can write pods straight into etcd,
 * past admission) and read untrusted files in the same pod. `etcd-doctor analyzer` takes the
 * analyze queue alone, in pods that mount no certificate, no Kubernetes token and no signing key
 * (deploy/kubernetes/components/analyzer), and the workers leave that queue to it
 * (`offline.analysisIn: analyzer`). Here, with real
 * processes on a real Redis: a worker that holds the cluster's TLS files and an analyzer started
 * without them (its config names files that do not exist, as in a pod that does not mount them);
 * a log shared in a DM is answered, and the analyze job was run by the analyzer, never the worker.
 */
const DM = 'D0ANALYZER1';
const SLOW_DISK_LOG = [
  '2026-12-06 03:00:01.000000 W | wal: sync duration of 1.823s, expected less than 1s',
  '2026-12-06 03:00:02.000000 W | etcdserver: failed to send out heartbeat on time (exceeded the 100ms timeout for 1.7s, to 8211f1d0f64f3269)',
  '2026-12-06 03:00:02.100000 W | etcdserver: server is likely overloaded',
  '2026-12-06 03:00:03.000000 W | wal: sync duration of 2.101s, expected less than 1s',
  '2026-12-06 03:00:04.000000 W | etcdserver: apply request took too long (1.9s) to execute (expected 100ms)',
].join('\n');

describe('etcd-doctor analyzer beside etcd-doctor worker, offline.analysisIn: analyzer (real processes)', () => {
  let dir: string;
  let fake: FakeSlack;
  let chat: SlackAdapter;
  let roles: RunningRoles | undefined;
  let worker: WorkerProcess;
  let analyzer: WorkerProcess | undefined;
  let startAnalyzer: () => WorkerProcess;
  let analyses: Queue;
  const prefix = testPrefix('analyzer-role');

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-analyzer-'));
    fake = await startFakeSlack();
    // The analyzer's pod mounts no etcd client certificate: its config names files it cannot read.
    const cluster = (tls: string) => ({
      name: 'local',
      etcd: {
        endpoints: ['https://127.0.0.1:9'],
        tls: {
          caFile: join(tls, 'ca.crt'),
          certFile: join(tls, 'client.crt'),
          keyFile: join(tls, 'client.key'),
        },
      },
    });
    const missing = join(dir, 'not-mounted');
    // The workers leave the analyze queue to the analyzer pods.
    const config = { clusters: [cluster(missing)], offline: { analysisIn: 'analyzer' } };
    const configPath = join(dir, 'etcd-doctor.yaml');
    await writeFile(configPath, JSON.stringify(config));
    chat = httpSlackAdapter(fake);
    roles = await startRoles({
      role: 'bot',
      chat,
      config: configFileSchema.parse(config),
      redisUrl: REDIS_URL,
      queuePrefix: prefix,
      logger: silentLogger,
    });
    worker = startWorkerProcess({
      configPath,
      prefix,
      slackApiUrl: fake.url,
      role: ['worker'],
    });
    startAnalyzer = () =>
      startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url, role: ['analyzer'] });
    await waitUntil(() => worker.started(), 30_000, 'the worker started');
    analyses = inspectQueue(prefix, 'analyze');
  }, 60_000);

  afterAll(async () => {
    killWorkers(analyzer ? [worker, analyzer] : [worker]);
    await analyses?.close();
    await roles?.stop();
    await fake?.close();
    await purgePrefix(prefix);
    for (const w of [worker, analyzer]) {
      const pid = w?.child.pid;
      for (const name of pid ? await readdir(tmpdir()) : [])
        if (name.startsWith(`etcd-doctor-analyze-${pid}-`))
          await rm(join(tmpdir(), name), { recursive: true, force: true });
    }
    await rm(dir, { recursive: true, force: true });
  });

  it('a log shared while only the worker runs waits for the analyzer, which answers it with its cause', async () => {
    const file = fake.shareFile({
      name: 'etcd.log',
      content: Buffer.from(SLOW_DISK_LOG),
      mimetype: 'text/plain',
    });
    const ts = `${Math.floor(Date.now() / 1000)}.000002`;
    const res = await sendFileShare(eventsUrl(chat), {
      channel: DM,
      user: 'U0ONCALL',
      ts,
      file,
      eventId: 'Ev0ANALYZER1',
    });
    expect(res.status).toBe(200);
    await waitUntil(
      async () => (await analyses.getJobs(['waiting'])).length === 1,
      30_000,
      'the analysis was queued',
    ).catch(async (err: Error) => {
      throw new Error(
        `${err.message}: ${JSON.stringify(await analyses.getJobCounts())} ${JSON.stringify(fake.messages(DM).map((m) => m.text))}`,
      );
    });

    // The worker is idle and polling: a job of the main queue, queued after the analysis, is run by
    // it. Had it served the analyze queue, it would have taken the older analysis first.
    const jobs = inspectQueue(prefix);
    try {
      await roles?.enqueue?.({
        v: 1,
        kind: 'status',
        clusters: ['local'],
        channel: DM,
        user: 'U0ONCALL',
        requestedAt: Date.now(),
      });
      await waitUntil(
        async () => (await jobs.getJobs(['completed', 'failed'])).length > 0,
        30_000,
        'the status job ended',
      );
      const [done] = await jobs.getJobs(['completed', 'failed']);
      expect(done?.processedBy).toContain(`:${worker.child.pid}:`);
    } finally {
      await jobs.close();
    }
    expect((await analyses.getJobs(['waiting'])).length).toBe(1);

    if (analyzer) killWorkers([analyzer]); // a second run of this test starts from the worker alone
    const started = startAnalyzer();
    analyzer = started;
    const answers = () =>
      fake
        .messages(DM)
        .filter((m) => m.thread_ts === ts && !m.text.startsWith('Analysing '))
        .map((m) => `${m.text}\n${blocksText(m.blocks)}`);
    await fake.waitFor(() => answers().length > 0, 60_000);
    expect(answers()[0]).toMatch(/slow-disk|slow disk/i);
    // The job is marked completed once its handler returns, just after the answer is posted.
    await waitUntil(
      async () => (await analyses.getJobs(['completed'])).length > 0,
      10_000,
      'the analysis completed',
    );
    const [job] = await analyses.getJobs(['completed']);
    expect(job?.processedBy).toContain(`:${started.child.pid}:`);
  }, 120_000);
});
