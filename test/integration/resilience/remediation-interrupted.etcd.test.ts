import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, jest } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { MEMBER_CHANGE_RETRY_MS } from '../../../src/remediation/actions/member-change.js';
import { type RunningRoles, startRoles } from '../../../src/roles/start-roles.js';
import { createAuditLog } from '../../../src/state/audit-log.js';
import { createPlanStore } from '../../../src/state/plan-store.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { QUICK_PROBES } from '../../support/lab/lab-config.js';
import {
  killWorkers,
  startWorkerProcess,
  type WorkerProcess,
  waitUntil,
} from '../../support/process/worker-process.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { messageText } from '../../support/slack/slack-driver.js';
import { TEST_SIGNING_KEY, testSigner } from '../../support/redis/signing-key.js';
import { signedJob } from '../../../src/remediation/job-signature.js';

/**
 * A worker process SIGKILLed in the middle of replace-member, after it removed etcd-3 and added it
 * back as a learner, while it waits for the learner to be started: BullMQ hands the job to the next
 * worker (a job lock of 15 s, a stalled check every 5 s). That worker must not run the half-done
 * change again, and must not stay silent either: the thread is told the run was interrupted and
 * what to check, once, and the audit trail says so. Real `etcd-doctor worker` processes, a real
 * 3-member etcd, the fake Slack.
 */

// One run only (test/support/retry-once.ts): a second would start from the cluster and the worker
// the first left mid-change.
jest.retryTimes(0);

const CHANNEL = 'C111';
const ALICE = 'U0ALICE';
const VICTIM = 'etcd-3';
/** Job lock (15 s) + stalled check (5 s) + the second worker's start and its message. */
const RECOVERY_MS = 60_000;
const START_FLAGS = /--initial-cluster-state existing/;
/**
 * Remove and add each retry up to MEMBER_CHANGE_RETRY_MS while etcd says the cluster is not ready
 * (peers connected for under 5 s: a loaded host makes them flap), so the start instructions can
 * take both retries and more.
 */
const INSTRUCTIONS_MS = 2 * MEMBER_CHANGE_RETRY_MS + 20_000;

let lab: EtcdLab;
let fake: FakeSlack;
let roles: RunningRoles;
let redis: Redis;
let dir: string;
let configPath: string;
const prefix = testPrefix('remediation-interrupted');
const workers: WorkerProcess[] = [];

const texts = () => fake.messages(CHANNEL).map(messageText);

function startWorker(): WorkerProcess {
  const worker = startWorkerProcess({ configPath, prefix, slackApiUrl: fake.url });
  workers.push(worker);
  return worker;
}

beforeAll(async () => {
  [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-interrupted-'));
  configPath = join(dir, 'clusters.yaml');
  // The lab as cluster `local`, with ALICE allowed to change it (JSON is YAML for the workers).
  const config = {
    clusters: [
      {
        name: 'local',
        etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls },
        remediation: { responders: [ALICE] },
      },
    ],
    probes: QUICK_PROBES,
  };
  await writeFile(configPath, JSON.stringify(config));
  // The bot side only queues (in this process); the workers are processes.
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
  killWorkers(workers);
  await roles?.stop();
  redis?.disconnect();
  await Promise.all([fake?.close(), lab?.destroy()]);
  await purgePrefix(prefix);
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('a worker killed in the middle of replace-member', () => {
  it(
    'the next worker does not run it again: it tells the thread what to check, once',
    async () => {
      await lab.kill(VICTIM);
      const first = startWorker();
      await waitUntil(() => first.started(), 30_000, 'the first worker started');

      // The confirmed plan, as the confirmation's "Run it, I will press Promote" saves it.
      const createdAt = Date.now();
      const plan = await createPlanStore(redis, prefix, testSigner).save({
        action: 'replace-member',
        cluster: 'local',
        args: { member: VICTIM, promote: 'button' },
        label: `Replace ${VICTIM}`,
        channel: CHANNEL,
        createdAt,
        context: {
          confirmationOf: 'origin-interrupted-1',
          boundUser: ALICE,
          originCreatedAt: String(createdAt),
        },
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

      // Mid-run: removed, added back as a learner, the start instructions posted, waiting for it.
      // A run that ends first (refused or failed: its guards read the cluster as it was) never posts
      // them: stop at once and show what the thread said.
      const ended = /ran \*?Replace etcd-3\*? on \*?local\*?: (refused|failed|finished)/;
      await fake.waitFor(() => texts().some((t) => START_FLAGS.test(t) || ended.test(t)), INSTRUCTIONS_MS);
      expect(texts().filter((t) => ended.test(t))).toEqual([]);
      first.child.kill('SIGKILL');
      await waitUntil(() => first.child.signalCode === 'SIGKILL', 5000, 'the first worker died');
      const second = startWorker();

      await fake.waitFor(() => texts().some((t) => /was interrupted/.test(t)), RECOVERY_MS);
      // Only the second worker is alive to say it.
      expect(second.started()).toBe(true);
      const told = texts().filter((t) => /was interrupted/.test(t));
      expect(told).toHaveLength(1);
      expect(told[0]).toMatch(
        /Replace etcd-3 on local was interrupted: the worker running it stopped before it finished .*It is not run again by itself/,
      );
      expect(told[0]).toContain('/etcd diagnose local');
      expect(told[0]).toContain('etcdctl member add etcd-3 --learner');
      // Nothing was run a second time: one "started", and the member list as the first run left it.
      expect(texts().filter((t) => /started .*Replace etcd-3/.test(t))).toHaveLength(1);
      const listed = await lab.etcdctl(['member', 'list', '-w', 'json']);
      const members = (JSON.parse(listed.stdout) as { members: Array<{ isLearner?: boolean }> }).members;
      expect(members).toHaveLength(3);
      expect(members.filter((m) => m.isLearner)).toHaveLength(1);
      const audit = (await createAuditLog(redis, prefix).read({})).filter((r) => r.plan === plan);
      expect(audit.map((r) => r.event)).toEqual(['started', 'failed']);
      expect(audit[1]?.detail).toMatch(/^interrupted: /);
    },
    INSTRUCTIONS_MS + RECOVERY_MS + 60_000,
  );
});
