import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { createRedisConnections, type RedisConnections } from '../../../src/clients/redis.js';
import {
  ANALYZE_QUEUE_NAME,
  createJobQueue,
  DEFAULT_QUEUE_NAME,
  type JobQueue,
} from '../../../src/queue/job-queue.js';
import type { JobData } from '../../../src/queue/job-schemas.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

/**
 * The queue between a chat command and a worker, on the real Redis at 127.0.0.1:6379 under a key
 * prefix of its own (no worker runs here: every job stays waiting). What a user sees of it: two
 * people asking the same question at once get one answer, a double click runs one remediation,
 * and files shared in chat never wait in the queue remediations run from.
 */

const prefix = testPrefix('unit-job-queue');
let connections: RedisConnections;
let queue: JobQueue;

beforeAll(() => {
  connections = createRedisConnections(REDIS_URL);
  queue = createJobQueue({ connection: connections.connect('unit-job-queue'), prefix });
});

afterAll(async () => {
  await queue.close();
  connections.shutdown();
  await purgePrefix(prefix);
});

const requester = (user: string) => ({ channel: 'C0OPS', user, requestedAt: Date.now() });
const diagnose = (cluster: string, user: string): JobData => ({
  v: 1,
  kind: 'check',
  depth: 'diagnose',
  cluster,
  ...requester(user),
});

/** The jobs waiting in one of the prefix's queues, as a worker would find them. */
async function waiting(name: string): Promise<Array<{ name: string; data: unknown }>> {
  const view = new Queue(name, { connection: { url: REDIS_URL }, prefix });
  try {
    return (await view.getWaiting()).map((j) => ({ name: j.name, data: j.data }));
  } finally {
    await view.close();
  }
}

describe('the job queue on a real Redis', () => {
  it('a second user asking for the same diagnosis while it waits joins it; another cluster is its own job', async () => {
    const first = await queue.enqueue(diagnose('prod', 'U1'));
    const second = await queue.enqueue(diagnose('prod', 'U2'));
    const other = await queue.enqueue(diagnose('staging', 'U1'));
    expect(first.joined).toBe(false);
    expect(second).toEqual({ jobId: first.jobId, joined: true });
    expect(other.joined).toBe(false);
    expect(other.jobId).not.toBe(first.jobId);
    // One diagnosis per cluster waits: the joined request added nothing.
    const jobs = await waiting(DEFAULT_QUEUE_NAME);
    expect(jobs.map((j) => (j.data as { cluster: string }).cluster).sort()).toEqual(['prod', 'staging']);
    expect(await queue.unfinishedCount()).toBe(2);
  });

  it("a remediation's job is its plan: a double click or a Slack retry adds no second one", async () => {
    const press = (user: string): JobData => ({
      v: 1,
      kind: 'remediate',
      plan: 'plan_0123456789',
      cluster: 'prod',
      ...requester(user),
    });
    const first = await queue.enqueue(press('U1'));
    const again = await queue.enqueue(press('U1'));
    expect(first).toEqual({ jobId: 'remediate-plan_0123456789', joined: false });
    // The same job id: BullMQ hands back the job that is there (so `joined` stays false; the press
    // path does not read it) and adds nothing.
    expect(again.jobId).toBe(first.jobId);
    const remediations = (await waiting(DEFAULT_QUEUE_NAME)).filter((j) => j.name === 'remediate');
    expect(remediations).toHaveLength(1);
    expect(await queue.exists(first.jobId)).toBe(true);
  });

  it('files shared in chat wait on the analyze queue, never beside remediations', async () => {
    const analysis: JobData = {
      v: 1,
      kind: 'analyze',
      source: { kind: 'slack', files: [{ id: 'F0123ABC', name: 'etcd-2.log' }] },
      requestId: '1733371200.000100',
      ...requester('U3'),
    };
    const { jobId, joined } = await queue.enqueue(analysis);
    expect(joined).toBe(false);
    expect(await queue.exists(jobId)).toBe(true);
    expect((await waiting(ANALYZE_QUEUE_NAME)).map((j) => j.name)).toEqual(['analyze']);
    expect((await waiting(DEFAULT_QUEUE_NAME)).map((j) => j.name)).not.toContain('analyze');
    // Its depth shows on /metrics under its own queue's name.
    const depths = await Promise.all(queue.queues.map(async (q) => [q.name, (await q.counts()).waiting]));
    expect(Object.fromEntries(depths)).toEqual({ [DEFAULT_QUEUE_NAME]: 3, [ANALYZE_QUEUE_NAME]: 1 });
  });
});
