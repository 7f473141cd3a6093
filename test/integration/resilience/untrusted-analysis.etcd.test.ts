import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { SlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { buttonValue, createPlanStore } from '../../../src/state/plan-store.js';
import { type FakeSlack, type SlackFileObject, startFakeSlack } from '../../support/slack/fake-slack.js';
import { inspectQueue, waitForQueueSettled } from '../../support/redis/job-states.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { MG_ROOT, mustGatherFiles, writeTarball } from '../../support/offline/offline-fixtures.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { blocksText, buttonsIn, sendBlockAction, sendFileShare } from '../../support/slack/slack-driver.js';
import { eventsUrl, httpSlackAdapter } from '../../support/slack/slack-http.js';
import {
  isAlive,
  killWorkers,
  startWorkerProcess,
  type WorkerProcess,
  waitUntil,
} from '../../support/process/worker-process.js';
import { TEST_SIGNING_KEY, testSigner } from '../../support/redis/signing-key.js';

/**
 * For real: files anyone may DM the bot never share a worker process's heap or a queue
 * slot with a remediation. The workers are real `etcd-doctor worker` processes with the
 * deployment's `--max-old-space-size=256`; the bot runs here (real Bolt, HTTP) against the fake
 * Slack; the remediation defragments a real 3-member etcd.
 */

const CHANNEL = 'C0OPS0001';
const DM = 'D0UNTRUST1';
const RESPONDER = 'U0RESP001';
/** The deployment's worker heap (deploy/kubernetes/base/deployment-worker.yaml). */
const WORKER_HEAP = '--max-old-space-size=256';

let lab: EtcdLab;
let fake: FakeSlack;
let chat: SlackAdapter;
let roles: RunningRoles;
let dir: string;
let configPath: string;
let redis: Redis;
const prefix = testPrefix('untrusted-analysis');
const workers: WorkerProcess[] = [];

function startWorker(): WorkerProcess {
  const worker = startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url, nodeOptions: WORKER_HEAP });
  workers.push(worker);
  return worker;
}

/** Every text the fake was sent (posts and edits), oldest first. */
function sentTexts(): string[] {
  return [...fake.calls('chat.postMessage'), ...fake.calls('chat.update')].map((c) =>
    String(c.body.text ?? ''),
  );
}

/** A file dropped into the DM, as Slack's HTTP events deliver it; resolves with the event's ts. */
async function dropFile(file: SlackFileObject, n: number): Promise<string> {
  const ts = `${Math.floor(Date.now() / 1000)}.00${String(n).padStart(4, '0')}`;
  const res = await sendFileShare(eventsUrl(chat), {
    channel: DM,
    user: 'U0STRANGER',
    ts,
    file,
    eventId: `Ev0UNTRUST${n}`,
  });
  expect(res.status).toBe(200);
  return ts;
}

/** The answers in the DM thread of the file dropped at `ts`. */
function dmAnswers(ts: string): string[] {
  return fake
    .messages(DM)
    .filter((m) => m.thread_ts === ts)
    .map((m) => `${m.text}\n${blocksText(m.blocks)}`);
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-untrusted-'));
  const config = {
    clusters: [
      {
        name: 'local',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        remediation: { responders: [RESPONDER] },
        // The lab's databases are tiny: defragment every member whatever it frees.
        maintenance: { defrag: { minFreeRatio: 0, minFreeBytes: 0 } },
      },
    ],
    probes: { timeoutMs: 1000, metricsWindowMs: 300 },
  };
  configPath = join(dir, 'etcd-doctor.yaml');
  await writeFile(configPath, JSON.stringify(config));
  chat = httpSlackAdapter(fake);
  roles = await startRoles({
    role: 'bot',
    chat,
    config: configFileSchema.parse(config),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    signingKey: TEST_SIGNING_KEY,
  });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
}, 60_000);

afterAll(async () => {
  killWorkers(workers);
  redis?.disconnect();
  await roles?.stop();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** A must-gather whose etcd pods.yaml is 30 MB of `[0,0,…]`: 15 million YAML nodes, gzipped. */
async function bombTarball(): Promise<string> {
  const files = mustGatherFiles('openshift-4.14-healthy').filter((f) => !f.path.endsWith('core/pods.yaml'));
  files.push({
    path: `${MG_ROOT}/namespaces/openshift-etcd/core/pods.yaml`,
    content: `[${'0,'.repeat(15_000_000)}0]\n`,
  });
  return writeTarball(join(dir, 'must-gather.tar.gz'), files);
}

/** Presses the defragment button as the responder, then its "Run it". */
async function startDefragment(): Promise<void> {
  const anchor = await chat.post({ channel: CHANNEL }, { kind: 'text', tone: 'info', lines: ['anchor'] });
  const plan = await createPlanStore(redis, prefix, testSigner).save({
    action: 'defragment',
    cluster: 'local',
    args: {},
    label: 'Defragment',
    channel: CHANNEL,
    createdAt: Date.now(),
  });
  const press = (b: { actionId: string; value: string; label: string }) =>
    sendBlockAction(eventsUrl(chat), { user: RESPONDER, channel: CHANNEL, messageTs: anchor.ts, ...b });
  await press({ actionId: 'etcd_doctor.defragment.0', value: buttonValue(plan), label: 'Defragment' });
  await fake.waitFor(() => fake.ephemerals().some((e) => buttonsIn(e.blocks).length > 0), 10_000);
  const runIt = fake.ephemerals().flatMap((e) => buttonsIn(e.blocks))[0];
  if (!runIt) throw new Error('no Run it button');
  await press(runIt);
}

describe('a 53 KB must-gather that expands past the heap, during a defragmentation', () => {
  it('is answered with what to share instead, the worker lives, and the defragmentation finishes', async () => {
    const worker = startWorker();
    await waitUntil(worker.started, 30_000, 'the worker started');
    const path = await bombTarball();
    expect((await stat(path)).size).toBeLessThan(64 * 1024);

    // Every fsync of every member takes 1 s (a real slow disk, strace): a defragmentation writes a
    // new database file with a few of them, so it runs for ~15 s while the file is analysed.
    const slow = await Promise.all(['etcd-1', 'etcd-2', 'etcd-3'].map((m) => lab.slowDisk(m, 1_000_000)));
    let ts: string;
    try {
      await startDefragment();
      await waitUntil(
        () => sentTexts().some((t) => /defragmenting etcd-\d/.test(t)),
        30_000,
        'defrag running',
      );
      const file = fake.shareFile({
        name: 'must-gather.tar.gz',
        content: await readFile(path),
        mimetype: 'application/gzip',
      });
      ts = await dropFile(file, 1);
      await fake.waitFor(() => dmAnswers(ts).some((a) => /Could not analyse/.test(a)), 60_000);
      // At the same time: the defragmentation had not finished yet.
      expect(sentTexts().some((t) => /ran .*finished in/.test(t))).toBe(false);
      await waitUntil(() => sentTexts().some((t) => /ran .*finished in/.test(t)), 90_000, 'defrag finished');
    } finally {
      await Promise.all(slow.map((f) => f.stop()));
    }
    const answer = dmAnswers(ts).find((a) => /Could not analyse/.test(a)) ?? '';
    expect(answer).toMatch(
      /namespaces\/openshift-etcd\/core\/pods\.yaml in must-gather\.tar\.gz holds more than 150,000 YAML nodes, over the limit for one document/,
    );
    expect(answer).toMatch(
      /give the etcd and control-plane parts only \(namespaces\/openshift-etcd, etcd_info\//,
    );
    expect(answer).not.toMatch(/etcd-doctor-analyze-|\/tmp\//);

    const done = sentTexts().find((t) => /ran .*finished in/.test(t)) ?? '';
    expect([...done.matchAll(/(etcd-\d)( \(leader\))?: db /g)]).toHaveLength(3);
    expect(isAlive(worker)).toBe(true);
    expect(worker.logged('heap out of memory')).toBe(false);
    // The analysis went to its own queue; the remediation to the jobs queue.
    for (const [name, kind] of [
      ['analyze', 'analyze'],
      ['jobs', 'remediate'],
    ] as const) {
      const queue = inspectQueue(prefix, name);
      try {
        const { completed } = await waitForQueueSettled(queue, 1, 10_000);
        expect(completed.map((j) => j.name)).toEqual([kind]);
      } finally {
        await queue.close();
      }
    }
  }, 150_000);
});

describe('a worker process that dies in the middle of an analysis', () => {
  it('is not handed to the next worker: the user is told it stopped and what to share instead', async () => {
    killWorkers(workers);
    const victim = startWorker();
    await waitUntil(victim.started, 30_000, 'the first worker started');
    const log = Buffer.from('{"level":"info","msg":"ready to serve client requests"}\n'.repeat(4000));
    const file = fake.shareFile({ name: 'etcd.log', content: log, hangAfterBytes: 1024 });
    const ts = await dropFile(file, 2);
    const downloads = () => fake.downloads().filter((d) => d.fileId === file.id);
    await fake.waitFor(() => downloads().length === 1, 30_000);
    victim.child.kill('SIGKILL');
    await waitUntil(() => victim.child.signalCode === 'SIGKILL', 5000, 'the victim died');

    const next = startWorker();
    // Lock (15 s) + two stalled checks (5 s each) + the deferred failure, in production timings.
    await fake.waitFor(() => dmAnswers(ts).some((a) => /Could not analyse/.test(a)), 90_000);
    const answers = dmAnswers(ts).filter((a) => /Could not analyse/.test(a));
    expect(answers).toHaveLength(1);
    expect(answers[0]).toMatch(
      /Could not analyse etcd\.log: the worker process running it stopped before it finished \(killed, or out of memory\); it is not tried again: give the etcd and control-plane parts only/,
    );
    // Never downloaded (nor run) again, and the worker that found it lives on.
    expect(downloads()).toHaveLength(1);
    expect(isAlive(next)).toBe(true);
  }, 150_000);
});
