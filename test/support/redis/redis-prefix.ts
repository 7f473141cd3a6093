import { randomBytes } from 'node:crypto';
import { purgePrefix as purgeInstall } from '../../../src/state/purge-prefix.js';

export const REDIS_URL = 'redis://127.0.0.1:6379';

/** A Redis key prefix no other test (or deployment) uses. */
export function testPrefix(name: string): string {
  return `test-${name}-${randomBytes(4).toString('hex')}`;
}

/** Deletes every key under `prefix:` (the queue, as obliterate would, and the job state). */
export function purgePrefix(prefix: string, url = REDIS_URL): Promise<number> {
  return purgeInstall(url, prefix);
}
