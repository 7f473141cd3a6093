import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisConnections, type Redis, type RedisConnections } from '../../../src/clients/redis.js';
import { runCli } from '../../../src/cli.js';
import { keyPrefixFor } from '../../../src/config/redis-target.js';
import type { MinuteSample } from '../../../src/state/minute-sample.js';
import { createAuditLog } from '../../../src/state/audit-log.js';
import { createIncidents } from '../../../src/state/incidents.js';
import { createJobState } from '../../../src/state/job-state.js';
import { createMinuteHistory } from '../../../src/state/minute-history.js';
import { createRateLimiter } from '../../../src/state/rate-limit.js';
import { createRemediationState } from '../../../src/state/remediation-state.js';
import { createSubscriptionStore } from '../../../src/state/subscriptions.js';
import { type RedisClusterGroup, startRedisCluster } from '../../support/redis/redis-cluster.js';

/**
 * Every state/ store whose writes are a MULTI or a Lua script over more than one key, on a real
 * 3-node Redis Cluster: with the prefix that keyPrefixFor gives a cluster (`{cluster-stores}`) each
 * one works; with the plain prefix, the keys of one command land in different slots and Redis
 * refuses it (CROSSSLOT), which is why the prefix is tagged.
 */

let cluster: RedisClusterGroup;
let connections: RedisConnections;
let redis: Redis;
const ref = { channel: 'C111', ts: '1700000000.000100' };

beforeAll(async () => {
  cluster = await startRedisCluster();
  connections = createRedisConnections(cluster.target);
  redis = connections.connect('cluster-stores-test');
}, 60_000);

afterAll(async () => {
  connections?.shutdown();
  await cluster?.destroy();
});

function sample(t: number): MinuteSample {
  const member = (name: string): MinuteSample['m'][number] => [name, 3, 2, 0.4, 0, 1e8, 8e7, 3, 0, [[2, 70]]];
  return { v: 1, t, s: 'healthy', m: [member('etcd-1'), member('etcd-2')], f: [] };
}

describe('the stores on a Redis Cluster', () => {
  it('tags the prefix once, and only for a cluster', () => {
    expect(keyPrefixFor(cluster.target, 'etcd-doctor')).toBe('{etcd-doctor}');
    expect(keyPrefixFor(cluster.target, '{etcd-doctor}')).toBe('{etcd-doctor}');
    expect(keyPrefixFor(cluster.target, 'team-a:{etcd-doctor}')).toBe('team-a:{etcd-doctor}');
    expect(keyPrefixFor(cluster.target, 'odd{}')).toBe('{odd{}}');
    expect(keyPrefixFor('redis://127.0.0.1:6379', 'etcd-doctor')).toBe('etcd-doctor');
  });

  it('answer claims (Lua over the claim and the answered marker) and markAnswered (MULTI)', async () => {
    const state = createJobState(redis, keyPrefixFor(cluster.target, 'cluster-stores'));
    expect(await state.claimAnswer('job-1', 'worker-a', 10_000)).toBe('claimed');
    await state.markAnswered('job-1', ref);
    expect(await state.isAnswered('job-1')).toBe(true);
    expect(await state.claimAnswer('job-1', 'worker-b', 10_000)).toBe('answered');
    const lock = await state.holdClusterLock('local', 'job-1', { ttlMs: 5000 });
    expect(lock?.lost()).toBeUndefined();
    await lock?.release();
  });

  it('the minute history (one MULTI over three sorted sets)', async () => {
    const now = Date.UTC(2026, 11, 5, 9, 2, 0);
    const history = createMinuteHistory(redis, keyPrefixFor(cluster.target, 'cluster-stores'), () => now);
    await history.record('local', sample(now - 60_000));
    await history.record('local', sample(now));
    expect((await history.samples('local', now - 120_000)).map((s) => s.t)).toEqual([now - 60_000, now]);
    // Both checks fold into one 5-minute roll-up (09:00-09:05), written in the same MULTI.
    expect((await history.rollups('local', now - 3_600_000)).map((r) => r.n)).toEqual([2]);
  });

  it('locks, claims, limits, incidents, digest slots and the audit trail', async () => {
    const prefix = keyPrefixFor(cluster.target, 'cluster-stores');
    const remediation = createRemediationState(redis, prefix);
    expect(await remediation.claimPress('plan-1', 'U1')).toEqual({ first: true });
    expect(await remediation.openConfirmation('plan-1', 'U1:c1', 5000)).toEqual({ opened: true });
    const incidents = createIncidents(redis, prefix);
    const incident = { id: 'i-1', root: ref, cause: 'slow-disk', severity: 'warning' as const, members: [] };
    expect(await incidents.open('local', { ...incident, openedAt: 1, updatedAt: 1 })).toBe(true);
    await incidents.close('local', 'i-1');
    expect(await createRateLimiter(redis, prefix).take('U1:local', 2, 60_000)).toEqual({ ok: true });
    const audit = createAuditLog(redis, prefix);
    await audit.append({
      event: 'refused',
      cluster: 'local',
      user: 'U1',
      action: 'a',
      plan: 'p',
      detail: 'd',
    });
    expect(await audit.read({ cluster: 'local' })).toHaveLength(1);
    const subs = createSubscriptionStore(redis, prefix);
    await subs.save({
      v: 1,
      channel: 'C111',
      clusters: 'all',
      hour: 9,
      minute: 0,
      tz: 'UTC',
      user: 'U1',
      createdAt: 0,
    });
    expect(await subs.list()).toHaveLength(1);
    expect(await subs.claimSlot('C111', 1000, 'worker-a', 5000)).toBe(true);
    await subs.markSent('C111', 1000);
    expect(await subs.lastSentSlot('C111')).toBe(1000);
  });

  it('`etcd-doctor audit` with REDIS_CLUSTER_NODES reads the trail under the tagged prefix', async () => {
    await createAuditLog(redis, '{cluster-cli}').append({
      event: 'finished',
      cluster: 'prod',
      user: 'U42',
      action: 'defragment',
      plan: 'p-1',
      detail: 'defragmented 3 members',
    });
    const out: string[] = [];
    const err: string[] = [];
    const code = await runCli({
      // The plain prefix, as an operator types it: on a cluster it means {cluster-cli}.
      argv: ['audit', '--since', '1h', '--queue-prefix', 'cluster-cli'],
      env: { REDIS_CLUSTER_NODES: cluster.target.nodes.map((n) => `${n.host}:${n.port}`).join(',') },
      stdout: (text) => out.push(text),
      stderr: (text) => err.push(text),
    });
    expect({ code, err }).toEqual({ code: 0, err: [] });
    expect(out.join('\n')).toMatch(/prod +U42 +defragment +finished +plan p-1/);
  });

  it('without the tag, a command over two keys is refused (CROSSSLOT)', async () => {
    const state = createJobState(redis, 'cluster-stores-plain');
    await expect(state.claimAnswer('job-1', 'worker-a', 10_000)).rejects.toThrow(/CROSSSLOT/);
  });
});
