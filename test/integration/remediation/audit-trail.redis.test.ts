import { afterAll, beforeAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import {
  auditStreamKey,
  createAuditLog,
  MAX_REFUSALS_PER_USER_PER_HOUR,
} from '../../../src/state/audit-log.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

/** The audit stream on a real Redis: trimmed by age, and refusals bounded per user. */
const prefix = testPrefix('audit-trail');
let redis: Redis;
beforeAll(() => {
  redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
});
afterAll(async () => {
  await purgePrefix(prefix);
  redis.disconnect();
});

const entry = { cluster: 'prod', action: 'defragment', plan: 'plan12345', detail: 'not a responder' };

it('drops entries older than the retention when it appends', async () => {
  const key = auditStreamKey(prefix);
  const dayMs = 86_400_000;
  const fields = [
    'event',
    'finished',
    'cluster',
    'prod',
    'user',
    'U0OLD',
    'action',
    'defragment',
    'plan',
    'p',
    'detail',
    'old',
  ];
  await redis.xadd(key, `${Date.now() - 100 * dayMs}-0`, ...fields);
  await redis.xadd(
    key,
    `${Date.now() - 10 * dayMs}-0`,
    ...fields.map((f) => (f === 'U0OLD' ? 'U0RECENT' : f)),
  );
  await createAuditLog(redis, prefix).append({ ...entry, event: 'started', user: 'U0ALICE' });
  const users = (await createAuditLog(redis, prefix).read({})).map((r) => r.user);
  expect(users).toEqual(['U0RECENT', 'U0ALICE']);
});

it('records at most 20 refusals per user per hour, says so once, and leaves other users alone', async () => {
  const audit = createAuditLog(redis, `${prefix}-refusals`);
  for (let i = 0; i < 50; i += 1) await audit.append({ ...entry, event: 'refused', user: 'U0MALLORY' });
  await audit.append({ ...entry, event: 'refused', user: 'U0BOB' });
  const trail = await audit.read({});
  const mallory = trail.filter((r) => r.user === 'U0MALLORY');
  expect(mallory).toHaveLength(MAX_REFUSALS_PER_USER_PER_HOUR + 1);
  expect(mallory.at(-1)?.detail).toMatch(/20 refusals of U0MALLORY this hour: further ones are not recorded/);
  expect(trail.filter((r) => r.user === 'U0BOB')).toHaveLength(1);
  await purgePrefix(`${prefix}-refusals`);
});
