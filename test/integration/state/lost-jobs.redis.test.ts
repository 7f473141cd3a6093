import { afterAll, describe, expect, it } from '@jest/globals';
import { LOST_WITH_REDIS, watchLostJobs } from '../../../src/bot/lost-jobs.js';
import { createMemoryAdapter } from '../../../src/chat/memory/memory-adapter.js';
import { createRedisConnections } from '../../../src/clients/redis.js';
import { silentLogger } from '../../../src/logger.js';
import type { CheckJob } from '../../../src/queue/job-schemas.js';
import { createJobState } from '../../../src/state/job-state.js';
import { createPlanStore } from '../../../src/state/plan-store.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { testSigner } from '../../support/redis/signing-key.js';

/**
 * Which tracked checks the bot calls lost with Redis, on the shared Redis (none of these jobs is
 * in its queue: that is what a Redis that came back empty looks like). Only a check still waiting
 * for a worker is lost; one a worker took, one that ended, and one answered are not, also when the
 * queue's event arrived before the bot tracked the job (a fast worker).
 */

const prefix = testPrefix('lost-jobs');
const connections = createRedisConnections(REDIS_URL);
const redis = connections.connect('lost-jobs-test');

afterAll(async () => {
  connections.shutdown();
  await purgePrefix(prefix);
});

const check = (cluster: string): CheckJob => ({
  v: 1,
  kind: 'check',
  depth: 'diagnose',
  cluster,
  channel: 'C111',
  user: 'U111',
  requestedAt: 0,
});

describe('jobs lost with Redis', () => {
  it('tells only the user whose check no worker had taken, with a Run again button', async () => {
    const chat = createMemoryAdapter();
    const state = createJobState(redis, prefix);
    const watch = watchLostJobs({
      redis,
      exists: async () => false,
      state,
      plans: createPlanStore(redis, prefix, testSigner),
      chat,
      logger: silentLogger,
    });
    try {
      watch.track('queued', check('waiting'));
      watch.track('taken', check('running'));
      watch.phase('taken', 'taken');
      watch.phase('early', 'taken');
      watch.track('early', check('fast'));
      watch.track('ended', check('done'));
      watch.phase('ended', 'ended');
      watch.track('answered', check('answered'));
      await state.markAnswered('answered', { channel: 'C111', ts: '1.000001' });
      watch.track('retried', check('retried'));
      watch.phase('retried', 'taken');
      watch.phase('retried', 'queued');

      await watch.sweep();
      expect(chat.messages.map((m) => m.text)).toEqual([
        `@U111 your diagnose of waiting: ${LOST_WITH_REDIS}.\nButtons: [Run again]`,
        `@U111 your diagnose of retried: ${LOST_WITH_REDIS}.\nButtons: [Run again]`,
      ]);
      // Told once: a second sweep finds nothing more to say.
      await watch.sweep();
      expect(chat.messages).toHaveLength(2);
    } finally {
      watch.stop();
    }
  });
});
