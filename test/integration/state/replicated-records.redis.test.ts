import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createRedisConnections, REPLICA_WAIT_MS } from '../../../src/clients/redis.js';
import { createJobState } from '../../../src/state/job-state.js';
import { createRemediationState } from '../../../src/state/remediation-state.js';
import { redisCli } from '../../support/redis/redis-server.js';
import { type SentinelGroup, startSentinelGroup } from '../../support/redis/redis-sentinel.js';

/**
 * Replication is asynchronous: a record the primary took but had not passed on is gone after a
 * failover, and a retried job then posts its root or its answer again, or runs a remediation twice.
 * Behind Sentinel (real processes: a primary, a replica, three sentinels), the records of what was
 * done outside Redis wait until the replica holds them, bounded by REPLICA_WAIT_MS. The replica is
 * SIGSTOPped so the wait is seen: the write is pending while the replica cannot take it, done when
 * it can, and still there after the primary is SIGKILLed and the replica promoted.
 */

const PREFIX = 'replicated-records';
let group: SentinelGroup;
let connections: ReturnType<typeof createRedisConnections>;
let replicaPid: number;

const ROOT = { channel: 'C111', ts: '1796457071.000001' };
/** A connection whose errors during the failover are expected (the roles log them; here they are dropped). */
const connect = (name: string) => connections.connect(name).on('error', () => undefined);
const timer = (ms: number) => new Promise<'waiting'>((r) => setTimeout(() => r('waiting'), ms));
const signalReplica = (signal: NodeJS.Signals) => process.kill(replicaPid, signal);

beforeAll(async () => {
  group = await startSentinelGroup();
  connections = createRedisConnections(group.target);
  const info = await redisCli(group.replicaPort, 'info', 'server');
  replicaPid = Number(/process_id:(\d+)/.exec(info)?.[1]);
  expect(replicaPid).toBeGreaterThan(0);
}, 60_000);

afterAll(async () => {
  if (replicaPid) signalReplica('SIGCONT');
  connections?.shutdown();
  await group?.destroy();
});

describe('records of what cannot be taken back, behind Sentinel', () => {
  it('a root message is saved once the replica holds it, and survives the failover', async () => {
    const state = createJobState(connect('replicated-test'), PREFIX);
    signalReplica('SIGSTOP');
    let saved: Promise<void>;
    try {
      saved = state.saveRoot('job-1', ROOT);
      // Well under REPLICA_WAIT_MS: the replica cannot have it, so the save has not returned.
      expect(await Promise.race([saved.then(() => 'saved' as const), timer(REPLICA_WAIT_MS / 3)])).toBe(
        'waiting',
      );
    } finally {
      signalReplica('SIGCONT');
    }
    await saved;
    expect(await redisCli(group.replicaPort, 'get', `${PREFIX}:state:root:job-1`)).toContain(ROOT.ts);

    await group.killPrimary();
    await group.waitForFailover(30_000);
    const after = createJobState(connect('replicated-test-after'), PREFIX);
    expect(await after.root('job-1')).toEqual(ROOT);
  }, 60_000);

  it('a replica that does not answer delays a record by REPLICA_WAIT_MS at most, never blocks it', async () => {
    // The first test promoted the replica: this one checks the bound on the new primary, whose
    // replica is gone (WAIT then answers 0 after its timeout).
    const remediation = createRemediationState(connect('replicated-test-bound'), PREFIX);
    const started = performance.now();
    expect(await remediation.markRunning('plan-1', 'U111')).toBe(true);
    expect(performance.now() - started).toBeLessThan(REPLICA_WAIT_MS + 2_000);
    expect(await remediation.markRunning('plan-1', 'U111')).toBe(false);
  }, 30_000);
});
