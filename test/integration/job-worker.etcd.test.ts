import { readFile } from 'node:fs/promises';
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import type { ChatAdapter } from '../../src/chat/adapter.js';
import {
  createMemoryAdapter,
  type MemoryAdapter,
  type MemoryMessage,
} from '../../src/chat/memory/memory-adapter.js';
import { createSlackAdapter } from '../../src/chat/slack/slack-adapter.js';
import { createRedisConnections, type RedisConnections } from '../../src/clients/redis.js';
import { createDoctor, type Doctor } from '../../src/doctor.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { silentLogger } from '../../src/logger.js';
import { createJobQueue, type JobQueue } from '../../src/queue/job-queue.js';
import type { CheckJob } from '../../src/queue/job-schemas.js';
import { createJobWorker, type JobWorker, type JobWorkerOptions } from '../../src/queue/job-worker.js';
import { Secret } from '../../src/secret.js';
import { createJobState } from '../../src/state/job-state.js';
import { createPlanStore } from '../../src/state/plan-store.js';
import { answerOnce } from '../../src/answer/answer-once.js';
import { createJobRunner } from '../../src/checks/check-jobs.js';
import { startFakeSlack } from '../support/slack/fake-slack.js';
import { waitForJobState } from '../support/redis/job-states.js';
import { labConfig } from '../support/lab/lab-config.js';
import { captureLogs, type LogCapture } from '../support/process/log-capture.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';
import { testSigner } from '../support/redis/signing-key.js';

/**
 * The queue's promises, against real Redis and a real etcd: one answer per job even when a worker
 * dies or the job runs out of time, retries only for transient errors, one job per cluster at a time.
 */

let lab: EtcdLab;
let doctor: Doctor;
const prefixes: string[] = [];
const cleanups: Array<() => Promise<void>> = [];

beforeAll(async () => {
  lab = await startEtcdLab();
  // A hung member makes every diagnosis last one probe timeout (2.5 s): time to crash a worker mid-job.
  doctor = createDoctor({
    config: labConfig(lab, { probes: { timeoutMs: 2500, metricsWindowMs: 200 } }),
    readFileBuffer: (p) => readFile(p),
  });
});

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

afterAll(async () => {
  await doctor?.close();
  await lab?.destroy();
  for (const prefix of prefixes) await purgePrefix(prefix);
});

interface Harness {
  prefix: string;
  queue: JobQueue;
  startWorker(
    name: string,
    chat: ChatAdapter,
    tuning?: Partial<JobWorkerOptions>,
  ): { worker: JobWorker; redis: RedisConnections; logs: LogCapture };
  /** A BullMQ view of the same queue, for asserting job states. */
  inspect: Queue;
}

function harness(name: string): Harness {
  const prefix = testPrefix(name);
  prefixes.push(prefix);
  const producer = createRedisConnections(REDIS_URL);
  const queue = createJobQueue({ connection: producer.connect('test-producer'), prefix, backoffMs: 200 });
  const inspect = new Queue('jobs', { connection: { url: REDIS_URL }, prefix });
  const workers: JobWorker[] = [];
  const connections: RedisConnections[] = [producer];
  cleanups.push(async () => {
    await Promise.all(workers.map((w) => w.close()));
    await queue.close();
    await inspect.close();
    for (const c of connections) c.shutdown();
  });
  return {
    prefix,
    queue,
    inspect,
    startWorker(workerId, chat, tuning = {}) {
      const redis = createRedisConnections(REDIS_URL);
      connections.push(redis);
      const state = createJobState(redis.connect(`test-${workerId}`), prefix);
      const plans = createPlanStore(redis.connect(`test-${workerId}-plans`), prefix, testSigner);
      const handlers = createJobRunner({
        doctor,
        chat,
        state,
        plans,
        logger: silentLogger,
        workerId,
        progressIntervalMs: 50,
      });
      const logs = captureLogs();
      const worker = createJobWorker({
        redis,
        prefix,
        handlers,
        clusterLocks: state,
        logger: logs.logger,
        ...tuning,
      });
      workers.push(worker);
      return { worker, redis, logs };
    },
  };
}

const check = (depth: CheckJob['depth'], channel = 'C1'): CheckJob => ({
  v: 1,
  kind: 'check',
  depth,
  cluster: 'local',
  channel,
  user: 'U1',
  requestedAt: Date.now(),
});

const roots = (chat: MemoryAdapter): MemoryMessage[] => chat.messages.filter((m) => m.threadTs === undefined);
const repliesTo = (chat: MemoryAdapter, root: MemoryMessage): MemoryMessage[] =>
  chat.messages.filter((m) => m.threadTs === root.ref.ts);

describe('answerOnce', () => {
  it('delivers once when several workers answer the same job at the same time', async () => {
    const prefix = testPrefix('answer-once');
    prefixes.push(prefix);
    const redis = createRedisConnections(REDIS_URL);
    cleanups.push(async () => redis.shutdown());
    let delivered = 0;
    const deliver = async () => {
      delivered += 1;
      await new Promise((r) => setTimeout(r, 50));
      return { channel: 'C1', ts: `${delivered}.0` };
    };
    const results = await Promise.all(
      ['w1', 'w2', 'w3', 'w4'].map((workerId) =>
        answerOnce('job-1', deliver, {
          state: createJobState(redis.connect(workerId), prefix),
          workerId,
          leaseMs: 10_000,
          waitMs: 2000,
          sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
        }),
      ),
    );
    expect(delivered).toBe(1);
    expect(results.filter(Boolean)).toHaveLength(1);
  });

  it('lets another worker answer when the one holding the claim fails to deliver', async () => {
    const prefix = testPrefix('answer-once-fail');
    prefixes.push(prefix);
    const redis = createRedisConnections(REDIS_URL);
    cleanups.push(async () => redis.shutdown());
    const opts = (workerId: string) => ({
      state: createJobState(redis.connect(workerId), prefix),
      workerId,
      leaseMs: 10_000,
      waitMs: 2000,
      sleep: (ms: number) => new Promise<void>((r) => setTimeout(r, ms)),
    });
    await expect(
      answerOnce('job-2', () => Promise.reject(new Error('Slack 500')), opts('w1')),
    ).rejects.toThrow('Slack 500');
    await expect(answerOnce('job-2', async () => ({ channel: 'C1', ts: '1.0' }), opts('w2'))).resolves.toBe(
      true,
    );
    await expect(answerOnce('job-2', async () => ({ channel: 'C1', ts: '2.0' }), opts('w3'))).resolves.toBe(
      false,
    );
  });
});

describe('job worker', () => {
  it('answers exactly once when the worker running the job is force-closed, and another worker takes it over', async () => {
    const h = harness('crash');
    const chat = createMemoryAdapter();
    lab.stop('etcd-3');
    try {
      const a = h.startWorker('A', chat, { lockDurationMs: 1000, stalledIntervalMs: 300 });
      await a.worker.ready();
      const { jobId } = await h.queue.enqueue(check('diagnose'));
      await chat.waitFor((c) => roots(c).length === 1, 10_000);
      // Force-close A mid-job: its run is let go (aborted, so it posts nothing more) and the job goes
      // back to the queue for B. (A run that goes on regardless, as in a paused VM, races B to the
      // answer: answerOnce above.)
      await a.worker.close(true);
      const b = h.startWorker('B', chat, { lockDurationMs: 1000, stalledIntervalMs: 300 });
      await b.worker.ready();
      await chat.waitFor(
        (c) => roots(c).length === 1 && repliesTo(c, roots(c)[0] as MemoryMessage).length === 1,
        20_000,
      );
      await waitForJobState(h.inspect, jobId, 'completed', 20_000);
      // Whatever A had started is over (B's run ended with the job); still one root and one answer.
      await a.logs.waitFor('an abandoned run has ended', { fields: { jobId }, timeoutMs: 10_000 });
      expect(b.logs.lines().map((l) => l.msg)).not.toContain('an abandoned run has ended');
      const [root] = roots(chat);
      expect(roots(chat)).toHaveLength(1);
      expect(repliesTo(chat, root as MemoryMessage)).toHaveLength(1);
      expect(repliesTo(chat, root as MemoryMessage)[0]?.text).toMatch(/^Diagnosis of local/);
      expect(root?.text).toMatch(/^\[(DEGRADED|CRITICAL|UNKNOWN)\] local: /);
    } finally {
      lab.cont('etcd-3');
    }
  });

  it('gives a job an overall timeout and answers the timeout exactly once', async () => {
    const h = harness('timeout');
    const chat = createMemoryAdapter();
    lab.stop('etcd-3');
    try {
      const w = h.startWorker('T', chat, { jobTimeoutMs: 1000 });
      await w.worker.ready();
      const { jobId } = await h.queue.enqueue(check('diagnose'));
      await waitForJobState(h.inspect, jobId, 'failed', 10_000);
      await chat.waitFor(
        (c) => roots(c).length === 1 && repliesTo(c, roots(c)[0] as MemoryMessage).length === 1,
        10_000,
      );
      // The abandoned run is stopped by its attempt's signal (its probes of the stopped member would
      // otherwise go on for 2.5 s more) and must not answer a second time.
      await w.logs.waitFor('an abandoned run has ended', {
        fields: { jobId, how: 'stopped' },
        timeoutMs: 10_000,
      });
      // The root message turns to the verdict just after the answer is posted.
      await chat
        .waitFor((c) => roots(c)[0]?.text.startsWith('[FAILED]') === true, 10_000)
        .catch(() => undefined);
      const root = roots(chat)[0] as MemoryMessage;
      expect(repliesTo(chat, root).map((m) => m.text)).toEqual([
        'Could not finish the diagnosis of local: it did not finish within 1 s',
      ]);
      expect(root.text).toBe('[FAILED] local: the diagnosis did not finish: it did not finish within 1 s');
      const job = await h.inspect.getJob(jobId);
      expect(job?.attemptsMade).toBe(1);
    } finally {
      lab.cont('etcd-3');
    }
  });

  it('fails an unreadable payload at once, without retries or a chat message', async () => {
    const h = harness('invalid');
    const chat = createMemoryAdapter();
    const w = h.startWorker('I', chat);
    await w.worker.ready();
    const job = await h.inspect.add('check', { v: 2, kind: 'check', cluster: 'local' }, { attempts: 3 });
    await waitForJobState(h.inspect, job.id ?? '', 'failed', 10_000);
    const failed = await h.inspect.getJob(job.id ?? '');
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toMatch(/^invalid job payload: /);
    expect(chat.messages).toHaveLength(0);
  });

  it('runs one job per cluster at a time, across kinds', async () => {
    const h = harness('per-cluster');
    const log: string[] = [];
    const chat = createMemoryAdapter();
    const recording: ChatAdapter = {
      ...chat,
      post: async (to, view) => {
        const ref = await chat.post(to, view);
        log.push(`post ${view.kind} ${ref.ts}`);
        return ref;
      },
      update: async (ref, view) => {
        await chat.update(ref, view);
        log.push(`update ${view.kind} ${ref.ts}`);
      },
    };
    const w = h.startWorker('P', recording, { concurrency: 4 });
    await w.worker.ready();
    await Promise.all([h.queue.enqueue(check('health')), h.queue.enqueue(check('diagnose'))]);
    await chat.waitFor(
      (c) => roots(c).length === 2 && roots(c).every((r) => r.view.kind === 'verdict'),
      20_000,
    );
    const firstVerdict = log.findIndex((e) => e.startsWith('update verdict'));
    const secondRoot = log.filter((e) => e.startsWith('post progress'))[1];
    expect(firstVerdict).toBeGreaterThan(-1);
    expect(log.indexOf(secondRoot ?? '')).toBeGreaterThan(firstVerdict);
  });

  it('retries a transient Slack failure with backoff, and gives up at once on a permanent one', async () => {
    const h = harness('retry');
    const fake = await startFakeSlack();
    cleanups.push(() => fake.close());
    // No client-side retries: the queue's retry is what is tested here.
    const slack = createSlackAdapter({
      botToken: new Secret('xoxb-1-test'),
      apiUrl: fake.url,
      retries: 0,
      logger: silentLogger,
    });
    const w = h.startWorker('R', slack);
    await w.worker.ready();

    fake.failNext('chat.postMessage', { status: 503 });
    const transient = await h.queue.enqueue(check('health', 'C100'));
    await waitForJobState(h.inspect, transient.jobId, 'completed', 20_000);
    expect((await h.inspect.getJob(transient.jobId))?.attemptsMade).toBe(2);
    expect(fake.messages('C100').filter((m) => m.thread_ts === undefined)).toHaveLength(1);
    expect(fake.messages('C100').filter((m) => m.thread_ts !== undefined)).toHaveLength(1);

    fake.failNext('chat.postMessage', { ok: false, error: 'channel_not_found' }, 5);
    const permanent = await h.queue.enqueue(check('health', 'C200'));
    await waitForJobState(h.inspect, permanent.jobId, 'failed', 20_000);
    const failed = await h.inspect.getJob(permanent.jobId);
    expect(failed?.attemptsMade).toBe(1);
    expect(failed?.failedReason).toBe('Slack chat.postMessage failed: channel_not_found');
  });
});
