import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A Redis key prefix no other test (or deployment) uses. */
export function testPrefix(name: string): string {
  return `test-${name}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under `prefix:` (the queue, as obliterate would, and the job state). */
export async function purgePrefix(prefix: string, url = REDIS_URL): Promise<number> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, lazyConnect: true });
  let deleted = 0;
  try {
    await redis.connect();
    let cursor = '0';
    // SCAN visits every key once per full cycle; 10,000 rounds of 1000 is far past any test's keys.
    for (let round = 0; round < 10_000; round += 1) {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      if (keys.length > 0) deleted += await redis.del(...keys);
      cursor = next;
      if (cursor === '0') break;
    }
  } finally {
    redis.disconnect();
  }
  return deleted;
}
