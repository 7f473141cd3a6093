import { afterAll, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createAuditLog } from '../../../src/state/audit-log.js';
import { runCli } from '../../../src/cli.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

const prefix = testPrefix('audit-cli');
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
afterAll(async () => {
  await purgePrefix(prefix);
  redis.disconnect();
});

it('etcd-doctor audit prints the trail, filtered by cluster', async () => {
  const audit = createAuditLog(redis, prefix);
  const entry = {
    user: 'U0ALICE',
    action: 'defragment',
    plan: 'plan12345',
    detail: 'defragmented etcd-1, etcd-3, then leader etcd-2',
  };
  await audit.append({ ...entry, event: 'started', cluster: 'prod' });
  await audit.append({ ...entry, event: 'finished', cluster: 'prod', durationMs: 31_000 });
  await audit.append({
    ...entry,
    event: 'refused',
    cluster: 'staging',
    user: 'U0MALLORY',
    detail: 'not a responder',
  });
  const out: string[] = [];
  const code = await runCli({
    argv: ['audit', '--cluster', 'prod', '--since', '1h', '--queue-prefix', prefix],
    env: { REDIS_URL },
    stdout: (t) => out.push(t),
    stderr: (t) => out.push(`ERR ${t}`),
  });
  expect(code).toBe(0);
  expect(out).toHaveLength(2);
  expect(out[1]).toMatch(
    /prod {2}U0ALICE {2}defragment {2}finished {2}\(31\.0 s\) {2}plan plan12345: defragmented etcd-1, etcd-3, then leader etcd-2/,
  );
  const bad: string[] = [];
  expect(
    await runCli({
      argv: ['audit', '--since', 'soon', '--queue-prefix', prefix],
      env: { REDIS_URL },
      stdout: (t) => bad.push(t),
      stderr: (t) => bad.push(t),
    }),
  ).toBe(2);
  expect(bad.join('\n')).toMatch(/--since "soon" is not a duration/);
});

it('never prints the password of REDIS_URL when Redis does not answer', async () => {
  const err: string[] = [];
  const code = await runCli({
    argv: ['audit', '--queue-prefix', prefix],
    // Nothing listens on port 9 of loopback.
    env: { REDIS_URL: 'redis://:hunter2@127.0.0.1:9' },
    stdout: (t) => err.push(t),
    stderr: (t) => err.push(t),
  });
  expect(code).toBe(2);
  expect(err.join('\n')).toMatch(/Redis at redis:\/\/\[redacted\]@127\.0\.0\.1:9 does not answer/);
  expect(err.join('\n')).not.toContain('hunter2');
});
