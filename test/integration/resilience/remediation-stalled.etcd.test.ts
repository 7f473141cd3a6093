import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { signedJob } from '../../../src/remediation/job-signature.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { createAuditLog } from '../../../src/state/audit-log.js';
import { createPlanStore } from '../../../src/state/plan-store.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { QUICK_PROBES } from '../../support/lab/lab-config.js';
import {
  isAlive,
  killWorkers,
  startWorkerProcess,
  type WorkerProcess,
  waitUntil,
} from '../../support/process/worker-process.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { TEST_SIGNING_KEY, testSigner } from '../../support/redis/signing-key.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { messageText } from '../../support/slack/slack-driver.js';

/**
 * Issue 38 L5: a worker stalled but alive (its main thread held, as H2's 48 s did; here SIGSTOP)
 * loses its job's queue lock after 15 s, and the stalled check hands the job to another worker,
 * which tells the thread the run was interrupted. The first worker then wakes up and, before, carried
 * on: it defragmented the other members as if nothing had happened, a second run beside the one the
 * thread was told had stopped. Now it asks before each step whether the run is still its own, and
 * stops. Real `etcd-doctor worker` processes, a real 3-member etcd, the fake Slack.
 */

// One run only: a second would start from a cluster and workers the first left mid-change.
jest.retryTimes(0);

const CHANNEL = 'C111';
const ALICE = 'U0ALICE';
/** Job lock (15 s) + stalled check (5 s) + the second worker's start and its message. */
const HANDOVER_MS = 60_000;

let lab: EtcdLab;
let fake: FakeSlack;
let roles: RunningRoles;
let redis: Redis;
let dir: string;
let configPath: string;
const prefix = testPrefix('remediation-stalled');
const workers: WorkerProcess[] = [];
const texts = () => fake.messages(CHANNEL).map(messageText);

function startWorker(): WorkerProcess {
  const worker = startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url });
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-stalled-'));
  configPath = join(dir, 'clusters.yaml');
  const config = {
    clusters: [
      {
        name: 'local',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        remediation: { responders: [ALICE] },
        // Every member is defragmented, however little it holds free.
        maintenance: { defrag: { minFreeRatio: 0, minFreeBytes: 0 } },
      },
    ],
    probes: QUICK_PROBES,
  };
  await writeFile(configPath, JSON.stringify(config));
  roles = await startRoles({
    role: 'bot',
    chat: createMemoryAdapter(),
    config: configFileSchema.parse(config),
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    signingKey: TEST_SIGNING_KEY,
  });
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
}, 60_000);

afterAll(async () => {
  for (const w of workers) if (isAlive(w)) w.child.kill('SIGCONT');
  killWorkers(workers);
  await roles?.stop();
  redis?.disconnect();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Queues the confirmed defragmentation as the bot does after "Run it": a signed plan and job. */
async function pressDefragment(): Promise<string> {
  const createdAt = Date.now();
  const plan = await createPlanStore(redis, prefix, testSigner).save({
    action: 'defragment',
    cluster: 'local',
    args: {},
    label: 'Defragment',
    channel: CHANNEL,
    createdAt,
    context: { confirmationOf: 'origin-stalled-1', boundUser: ALICE, originCreatedAt: String(createdAt) },
  });
  if (!roles.enqueue) throw new Error('no queue in the bot role');
  await roles.enqueue(
    signedJob(testSigner, {
      v: 1,
      kind: 'remediate',
      plan,
      cluster: 'local',
      channel: CHANNEL,
      user: ALICE,
      requestedAt: Date.now(),
    }),
  );
  return plan;
}

describe('a worker stalled in the middle of a defragmentation', () => {
  it(
    'wakes up after the job was handed over and stops at its next step: one run, not two',
    async () => {
      const first = startWorker();
      await waitUntil(() => first.started(), 30_000, 'the first worker started');
      // Every fsync takes 1 s (a real slow disk, strace): one member's Defragment then runs for
      // seconds, and the first worker is stopped inside it, once etcd logs that it started.
      const slow = await Promise.all(lab.members.map((m) => lab.slowDisk(m.name, 1_000_000)));
      try {
        const plan = await pressDefragment();
        const defragmenting = () =>
          lab.members.find((m) => lab.logs(m.name).includes('"msg":"starting defragment"'));
        await waitUntil(() => defragmenting() !== undefined, 90_000, 'a member started defragmenting');
        const pid = first.child.pid ?? 0;
        process.kill(pid, 'SIGSTOP');
        const second = startWorker();
        await fake.waitFor(() => texts().some((t) => /was interrupted/.test(t)), HANDOVER_MS);
        expect(second.started()).toBe(true);
        process.kill(pid, 'SIGCONT');

        // The first worker's own answer, once its Defragment returns: it stops before the next member.
        const ran = /ran \*?Defragment\*? on \*?local\*?: (finished|failed)/;
        await fake.waitFor(() => texts().some((t) => ran.test(t)), 120_000);
        const outcome = texts().find((t) => ran.test(t)) ?? '';
        expect(outcome).toMatch(
          /: failed in [\d.]+ s: stopped before defragmenting etcd-\d: this worker stalled long enough that the queue handed the job to another worker/,
        );
        // One member was defragmented, the one in flight when it stopped (etcd's own logs say
        // which); before, the woken worker went on and defragmented all three.
        const finished = lab.members.filter((m) => lab.logs(m.name).includes('"msg":"finished defragment"'));
        expect(finished.map((m) => m.name)).toEqual([defragmenting()?.name]);
        const audit = (await createAuditLog(redis, prefix).read({})).filter((r) => r.plan === plan);
        expect(audit.map((r) => r.event).sort()).toEqual(['failed', 'failed', 'started']);
      } finally {
        await Promise.all(slow.map((f) => f.stop()));
      }
    },
    4 * 60_000,
  );
});
