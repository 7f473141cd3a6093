import { Redis } from 'ioredis';

/**
 * Deletes every key under `prefix:` (the queue, as BullMQ's obliterate would, and every store of that
 * prefix): what a throwaway install (the demo, a test) leaves in Redis when it ends. SCAN visits each
 * key once per cycle; 10,000 rounds of 1,000 is far past what one install writes.
 */
export async function purgePrefix(redisUrl: string, prefix: string): Promise<number> {
  // One try: a Redis that is gone has nothing left to delete.
  const redis = new Redis(redisUrl, {
    maxRetriesPerRequest: 1,
    lazyConnect: true,
    connectTimeout: 2000,
    retryStrategy: () => null,
  });
  // connect() rejects with a refused connection; the event would only repeat it on stderr.
  redis.on('error', () => {});
  let deleted = 0;
  try {
    await redis.connect();
    let cursor = '0';
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
