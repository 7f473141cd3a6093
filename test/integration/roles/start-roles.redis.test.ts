import { afterAll, describe, expect, it } from '@jest/globals';
import { Queue } from 'bullmq';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { silentLogger } from '../../../src/logger.js';
import { startRoles } from '../../../src/roles/start-roles.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { within } from '../../support/process/within.js';

/**
 * The composition root a process runs (`etcd-doctor serve`, `bot`): built from a config, on the
 * real Redis at 127.0.0.1:6379 under a prefix of its own, with the in-memory chat standing in for
 * Slack. A cluster nothing answers for (127.0.0.1:1) keeps it quick and needs no etcd.
 */

const config = configFileSchema.parse({
  clusters: [{ name: 'dead', etcd: { endpoints: ['http://127.0.0.1:1'] } }],
  probes: { timeoutMs: 1000, metricsWindowMs: 300 },
});
const prefixes: string[] = [];
afterAll(async () => {
  for (const p of prefixes) await purgePrefix(p);
});

function start(role: 'serve' | 'bot') {
  const prefix = testPrefix(`unit-roles-${role}`);
  prefixes.push(prefix);
  const chat = createMemoryAdapter();
  const started = startRoles({
    role,
    chat,
    config,
    redisUrl: REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    tuning: { progressIntervalMs: 100, jobTimeoutMs: 20_000, shutdownTimeoutMs: 2000 },
  });
  return { chat, started, prefix };
}

describe('startRoles', () => {
  it('serve: a command is acknowledged privately, then answered in a thread, and stop() ends it', async () => {
    const { chat, started } = start('serve');
    const roles = await started;
    try {
      expect(await roles.redisReady()).toBe(true);
      const replies = await chat.command('health dead');
      expect(replies.map((v) => (v.kind === 'text' ? v.lines : v.kind))).toEqual([
        ['Checking the health of *dead*: progress follows in this channel, the answer in a thread.'],
      ]);
      // The answer is in: a thread reply, and the root updated from progress to the verdict.
      const settled = (text: string | undefined) => text !== undefined && !/probes done/.test(text);
      await chat.waitFor(
        (c) =>
          c.messages.some((m) => m.threadTs !== undefined) &&
          settled(c.messages.find((m) => m.threadTs === undefined)?.text),
        20_000,
      );
      const root = chat.messages.find((m) => m.threadTs === undefined);
      // Nothing answers and nothing else can tell: not checked (unknown), never called down.
      expect(root?.text).toMatch(/^\[UNKNOWN\] dead: unreachable-from-here on 127\.0\.0\.1:1: /);
      const reply = chat.messages.find((m) => m.threadTs === root?.ref.ts);
      expect(reply?.text).toContain('unreachable-from-here');
      await roles.idle(5000);
    } finally {
      await within(roles.stop(), 15_000, 'serve stops');
    }
  });

  it('bot alone queues the check and answers nothing itself: a worker does', async () => {
    const { chat, started, prefix } = start('bot');
    const roles = await started;
    try {
      const replies = await chat.command('diagnose dead');
      expect(replies.map((v) => (v.kind === 'text' ? v.lines : v.kind))).toEqual([
        ['Diagnosing *dead*: progress follows in this channel, the answer in a thread.'],
      ]);
      // A second ask while it waits joins it instead of queueing another.
      const again = await chat.command('diagnose dead', { user: 'U0OTHER' });
      expect(again.map((v) => (v.kind === 'text' ? v.lines[0] : v.kind))).toEqual([
        'A diagnosis of *dead* is already queued; this request joins it. Its answer goes to the channel it was asked in.',
      ]);
      // One job waits in Redis for a worker; the bot posted nothing in the channel.
      const queue = new Queue('jobs', { connection: { url: REDIS_URL }, prefix });
      try {
        expect((await queue.getWaiting()).map((j) => j.name)).toEqual(['check']);
      } finally {
        await queue.close();
      }
      expect(chat.messages).toEqual([]);
    } finally {
      await within(roles.stop(), 15_000, 'bot stops');
    }
  });
});
