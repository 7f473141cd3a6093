import { afterAll, describe, expect, it } from '@jest/globals';
import type { Redis } from '../../src/clients/redis.js';
import { configFileSchema } from '../../src/config/schema.js';
import { silentLogger } from '../../src/logger.js';
import { AUDIT_DEADLINE_MS, createConnectionAuditReader } from '../../src/mcp/audit-tool.js';
import { createProcessParts, type ProcessParts } from '../../src/roles/role-base.js';
import { createAuditLog } from '../../src/state/audit-log.js';
import { allocateFreePorts } from '../support/lab/free-ports.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../support/redis/redis-prefix.js';

/**
 * /mcp reads the audit trail on a connection of its role (roles/role-base.ts), not one of its own:
 * with Redis up it reads what a remediation wrote; with Redis down the tool says so within
 * AUDIT_DEADLINE_MS, naming why, instead of waiting for the reconnect.
 */
const config = configFileSchema.parse({
  clusters: [{ name: 'local', etcd: { endpoints: ['http://127.0.0.1:1'] } }],
});
const prefix = testPrefix('mcp-audit-conn');
const opened: ProcessParts[] = [];

function connectionOn(redisUrl: string): Redis {
  const parts = createProcessParts({ config, redisUrl, logger: silentLogger });
  opened.push(parts);
  const redis = parts.connect('etcd-doctor-mcp');
  return redis;
}

afterAll(async () => {
  for (const parts of opened) {
    await parts.doctor.close();
    await parts.closeRedis(await parts.redisReady());
  }
  await purgePrefix(prefix);
});

describe('the audit trail on the role connection', () => {
  it('reads what was written, under the prefix', async () => {
    const redis = connectionOn(REDIS_URL);
    await createAuditLog(redis, prefix).append({
      event: 'finished',
      cluster: 'local',
      user: 'U0DAVE',
      action: 'defragment',
      plan: 'p1',
      detail: 'etcd-1 defragmented',
    });
    const audit = createConnectionAuditReader({ redis, redisUrl: REDIS_URL, prefix });
    const records = await audit.read({ sinceMs: Date.now() - 60_000, limit: 10 });
    expect(records).toEqual([
      expect.objectContaining({ user: 'U0DAVE', action: 'defragment', cluster: 'local' }),
    ]);
  });

  it('Redis unreachable: a tool error within the deadline, naming the refused connection', async () => {
    const [port] = await allocateFreePorts(1, '127.0.0.1');
    const url = `redis://127.0.0.1:${port}`;
    const redis = connectionOn(url);
    const audit = createConnectionAuditReader({ redis, redisUrl: url, prefix });
    const started = performance.now();
    await expect(audit.read({ sinceMs: 0, limit: 10 })).rejects.toThrow(
      new RegExp(
        `^Redis at redis://127\\.0\\.0\\.1:${port} did not answer within 3 s \\(.*ECONNREFUSED.*\\), and the audit trail lives there`,
      ),
    );
    expect(performance.now() - started).toBeLessThan(AUDIT_DEADLINE_MS + 1000);
  });
});
