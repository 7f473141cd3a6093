import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { DEFAULT_QUEUE_NAME } from '../../src/queue/job-queue.js';
import { createMemoryAdapter, type MemoryAdapter } from '../../src/chat/memory/memory-adapter.js';
import { configFileSchema } from '../../src/config/schema.js';
import { type EtcdLab, startEtcdLab } from '../support/lab/etcd-lab.js';
import { silentLogger } from '../../src/logger.js';
import type { ChatView } from '../../src/report/chat-view.js';
import { type RunningRoles, startRoles } from '../../src/roles/start-roles.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';

const textOf = (views: ChatView[]) =>
  views.map((v) => (v.kind === 'text' ? v.lines.join('\n') : '')).join('\n');

/** `/etcd diagnose` rate limits on a real Redis, with workers diagnosing a real 3-member etcd. */
describe('/etcd diagnose is rate-limited per user and per cluster', () => {
  const prefix = testPrefix('diagnose-limits');
  let lab: EtcdLab;
  let chat: MemoryAdapter;
  let roles: RunningRoles;
  let queue: Queue;

  beforeAll(async () => {
    lab = await startEtcdLab();
    chat = createMemoryAdapter();
    roles = await startRoles({
      role: 'serve',
      chat,
      config: configFileSchema.parse({
        clusters: [{ name: 'local', etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } }],
        probes: { timeoutMs: 1000, metricsWindowMs: 200 },
      }),
      redisUrl: REDIS_URL,
      queuePrefix: prefix,
      logger: silentLogger,
      tuning: { diagnoseLimits: { perUser: 2, perCluster: 3, windowMs: 60_000 } },
    });
    queue = new Queue(DEFAULT_QUEUE_NAME, { connection: { url: REDIS_URL }, prefix });
  }, 60_000);
  afterAll(async () => {
    await queue?.close();
    await roles?.stop();
    await purgePrefix(prefix);
    await lab?.destroy();
  });

  /** One diagnosis, answered, so the next one is new (not joined). */
  const diagnose = async (user: string) => {
    const before = chat.messages.filter((m) => m.view.kind === 'report').length;
    const reply = textOf(await chat.command('diagnose local', { user }));
    if (/^Diagnosing/.test(reply)) {
      await chat.waitFor((c) => c.messages.filter((m) => m.view.kind === 'report').length > before, 20_000);
      // Done for the queue too, so the next request is a new diagnosis rather than a join.
      for (let i = 0; i < 200; i += 1) {
        const counts = await queue.getJobCounts('active', 'waiting', 'delayed');
        if (Object.values(counts).every((n) => n === 0)) break;
        await new Promise((r) => setTimeout(r, 50));
      }
    }
    return reply;
  };

  it('tells a user who asked too often when to retry, and a busy cluster too; health stays open', async () => {
    expect(await diagnose('U0A')).toMatch(/^Diagnosing \*local\*/);
    expect(await diagnose('U0A')).toMatch(/^Diagnosing \*local\*/);
    expect(await diagnose('U0A')).toMatch(
      /^You asked for 2 diagnoses in the last 60 s; try again in \d+ s\.$/,
    );
    expect(await diagnose('U0B')).toMatch(/^Diagnosing \*local\*/);
    // Three new diagnoses of local in the window: the cluster's limit, whoever asks.
    expect(await diagnose('U0C')).toMatch(
      /^\*local\* was diagnosed 3 times in the last 60 s; try again in \d+ s, or read the latest diagnosis in its thread\.$/,
    );
    expect(textOf(await chat.command('health local', { user: 'U0A' }))).toMatch(
      /Checking the health of \*local\*/,
    );
  }, 90_000);
});
