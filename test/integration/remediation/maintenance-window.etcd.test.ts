import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createMaintenanceSchedules } from '../../../src/queue/maintenance-schedules.js';
import { MAINTENANCE_ACTOR } from '../../../src/state/audit-log.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { readStatus } from '../../support/lab/etcd-ops.js';
import { REDIS_URL } from '../../support/redis/redis-prefix.js';
import { ALICE, type Harness, labCluster, startHarness } from '../../support/chat/remediation-harness.js';

/**
 * Sunday 2026-12-06 02:30 UTC: inside `sun 02:00-04:00`. The roles' clock runs from there, a date
 * that is past on the day this runs (or any day after): the injected clock decides the window only,
 * and every etcd call takes its deadline from the wall clock (clients/grpc-deadline.ts). Built on the
 * injected clock, each deadline was `04:00` of that day, so from that day on every Status failed at
 * once and the run was refused as "0 healthy members".
 */
const IN_WINDOW = Date.parse('2026-12-06T02:30:00Z');
const CHANNEL = 'C0MAINT';

/**
 * The defragmentation window on a real 3-member etcd: its BullMQ job scheduler fires (every 300 ms
 * here instead of at 02:00 UTC on Sundays), the worker's injected clock says the window is open,
 * and it defragments once with the button's guards, posts in the cluster's channel and audits it.
 */
describe('maintenance.defrag.window', () => {
  let lab: EtcdLab;
  let h: Harness;
  let redis: Redis;
  const started = Date.now();

  beforeAll(async () => {
    lab = await startEtcdLab();
    await lab.fragment({ bytes: 12 * 1024 * 1024 });
    h = await startHarness(
      [
        labCluster(lab, {
          slack: { channel: CHANNEL },
          remediation: { responders: [ALICE], defragPauseSeconds: 0.2 },
          maintenance: { defrag: { window: 'sun 02:00-04:00', minFreeRatio: 0.1, minFreeBytes: 4_000_000 } },
        }),
      ],
      'rem-maint-window',
      { now: () => IN_WINDOW + (Date.now() - started), maintenanceEveryMs: 300 },
    );
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  }, 60_000);

  afterAll(async () => {
    redis?.disconnect();
    await h?.close();
    await lab?.destroy();
  });

  const finishedPost = () =>
    h.chat.messages.find(
      (m) => m.ref.channel === CHANNEL && /ran maintenance defragmentation of/.test(m.text),
    );

  it('runs in the window: defragments, moves the leader first, posts in the channel and audits', async () => {
    const leader = await lab.leaderName();
    await h.chat.waitFor(() => finishedPost() !== undefined, 90_000);
    const post = finishedPost()?.text ?? '';
    expect(post).toMatch(
      /ran maintenance defragmentation of local \(window sun 02:00-04:00 UTC, until 04:00\): finished in [\d.]+ s: defragmented /,
    );
    expect(post).toMatch(new RegExp(`moved leadership from ${leader} to etcd-\\d`));
    expect([...post.matchAll(/• (etcd-\d): db /g)]).toHaveLength(3);
    for (const m of lab.members) {
      const s = await readStatus(m.clientUrl, 3000);
      expect(s?.dbSizeBytes).toBeLessThan(1_000_000);
    }

    const audit = (await h.audit()).filter((r) => r.user === MAINTENANCE_ACTOR);
    expect(audit.map((r) => r.event)).toEqual(['started', 'finished']);
    expect(audit[1]).toMatchObject({ action: 'defragment', cluster: 'local' });
    expect(audit[1]?.plan).toBe(`maintenance-defrag-local-${Date.parse('2026-12-06T02:00:00Z')}`);
    expect(audit[1]?.detail).toMatch(/^defragmented /);
  }, 120_000);

  it('the scheduler goes on firing, and the same window does not run again', async () => {
    await waitForSlots(redis, h.prefix, 3);
    const runs = (await h.audit()).filter((r) => r.user === MAINTENANCE_ACTOR && r.event === 'started');
    expect(runs).toHaveLength(1);
    expect(h.chat.messages.filter((m) => m.ref.channel === CHANNEL)).toHaveLength(1);
  }, 60_000);

  it('a clock outside the window (Sunday 04:00, closed): slots fire, nothing runs, nothing is posted', async () => {
    const closed = await startHarness(
      [
        labCluster(lab, {
          slack: { channel: CHANNEL },
          remediation: { responders: [ALICE] },
          maintenance: { defrag: { window: 'sun 02:00-04:00', minFreeRatio: 0, minFreeBytes: 0 } },
        }),
      ],
      'rem-maint-closed',
      { now: () => Date.parse('2026-12-06T04:00:00Z') + (Date.now() - started), maintenanceEveryMs: 300 },
    );
    try {
      await waitForSlots(redis, closed.prefix, 3);
      expect(closed.chat.messages).toHaveLength(0);
      expect(await closed.audit()).toEqual([]);
    } finally {
      await closed.close();
    }
  }, 60_000);
});

/** Waits (bounded, polling) until the worker has taken `slots` more of the scheduler's slots. */
async function waitForSlots(redis: Redis, prefix: string, slots: number): Promise<void> {
  const schedules = createMaintenanceSchedules({ connection: redis, prefix });
  try {
    const nextOf = async () => (await schedules.list()).find((s) => s.cluster === 'local')?.nextMs;
    let first = await nextOf();
    for (let i = 0; i < 100 && first === undefined; i++) {
      await new Promise((r) => setTimeout(r, 100));
      first = await nextOf();
    }
    expect(first).toBeDefined();
    const target = (first ?? 0) + slots * 300;
    let next = first ?? 0;
    for (let i = 0; i < 100 && next < target; i++) {
      await new Promise((r) => setTimeout(r, 100));
      next = (await nextOf()) ?? next;
    }
    expect(next).toBeGreaterThanOrEqual(target);
  } finally {
    await schedules.close();
  }
}
