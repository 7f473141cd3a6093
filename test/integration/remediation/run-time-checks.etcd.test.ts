import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import type { Logger } from '../../../src/logger.js';
import {
  ALICE,
  BOB_IN_GROUP,
  finished,
  type Harness,
  labCluster,
  ONCALL_GROUP,
  runItButton,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';

/** Records error lines and lets a test wait for one. */
function recordingLogger() {
  const errors: string[] = [];
  const waiters: Array<{ pattern: RegExp; resolve: () => void }> = [];
  const error = (fields: object, message: string) => {
    const line = `${message} ${JSON.stringify(fields)}`;
    errors.push(line);
    for (const w of waiters.filter((x) => x.pattern.test(line))) w.resolve();
  };
  const logger: Logger = { debug: () => undefined, info: () => undefined, warn: () => undefined, error };
  const waitFor = (pattern: RegExp) =>
    errors.some((l) => pattern.test(l))
      ? Promise.resolve()
      : new Promise<void>((resolve) => waiters.push({ pattern, resolve }));
  return { logger, errors, waitFor };
}

/**
 * What the worker checks again when it takes a remediation job, and what its lock guarantees, on a
 * real 3-member etcd and a real Redis: a stale job is refused, a presser who left the responders is
 * refused, one confirmation is open per plan, and a lapsed lock stops the action before its next step.
 */
describe('remediation at run time', () => {
  let lab: EtcdLab;
  let h: Harness;
  const log = recordingLogger();
  let stealOnFirstMember = false;
  let stolen: Promise<void> | undefined;

  beforeAll(async () => {
    lab = await startEtcdLab();
    h = await startHarness(
      [
        labCluster(lab, {
          remediation: { responders: [ALICE, ONCALL_GROUP], defragPauseSeconds: 5 },
          // Every member is defragmented, however little it holds free.
          maintenance: { defrag: { minFreeRatio: 0, minFreeBytes: 0 } },
        }),
      ],
      'rem-runtime',
      {
        logger: log.logger,
        onChange: async (m) => {
          // Progress never holds an action: the lock is taken away as soon as the first member's
          // result is shown, while the action goes on to the next member (its lock check comes
          // right before that member's Defragment).
          if (!stealOnFirstMember || !/etcd-\d: db .* → .* in [\d.]+ s/.test(m.text)) return;
          stealOnFirstMember = false;
          await h.redis.set(`${h.prefix}:remediation:lock:local`, 'another-plan:thief', 'PX', 60_000);
          stolen = log.waitFor(/remediation lock lapsed/);
          await stolen;
        },
      },
    );
  }, 60_000);

  afterAll(async () => {
    await h?.close();
    await lab?.destroy();
  });

  const audited = async (plan: string) =>
    (await h.audit()).filter((r) => r.plan === plan).map((r) => r.event);

  it('refuses a job that waited hours in the queue, and runs nothing', async () => {
    const hoursAgo = Date.now() - 3 * 3_600_000;
    const runIt = await h.button(
      'defragment',
      {},
      {
        createdAt: hoursAgo,
        context: { confirmationOf: 'origin-stale-1', boundUser: ALICE, originCreatedAt: String(hoursAgo) },
      },
    );
    const plan = JSON.parse(runIt.value).plan as string;
    await h.enqueue({
      v: 1,
      kind: 'remediate',
      plan,
      cluster: 'local',
      channel: 'C0MEMORY',
      user: ALICE,
      requestedAt: hoursAgo + 60_000,
    });
    await h.chat.waitFor((c) => c.messages.some((m) => /in the queue/.test(m.text)), 20_000);
    const refusal = h.chat.messages.find((m) => /in the queue/.test(m.text))?.text ?? '';
    expect(refusal).toMatch(/this press waited 179 min in the queue \(at most 2 min\).*nothing was done/);
    expect(await audited(plan)).toEqual(['refused']);
  });

  it('refuses a job whose presser left the responders before a worker took it', async () => {
    const runIt = await h.button(
      'defragment',
      {},
      {
        context: {
          confirmationOf: 'origin-left-1',
          boundUser: BOB_IN_GROUP,
          originCreatedAt: String(Date.now()),
        },
      },
    );
    const plan = JSON.parse(runIt.value).plan as string;
    h.groups[ONCALL_GROUP] = [];
    try {
      await h.enqueue({
        v: 1,
        kind: 'remediate',
        plan,
        cluster: 'local',
        channel: 'C0MEMORY',
        user: BOB_IN_GROUP,
        requestedAt: Date.now(),
      });
      await h.chat.waitFor(
        (c) => c.messages.some((m) => /no longer one of the responders/.test(m.text)),
        20_000,
      );
    } finally {
      h.groups[ONCALL_GROUP] = [BOB_IN_GROUP];
    }
    expect(await audited(plan)).toEqual(['refused']);
  });

  it('opens one confirmation per plan: a second responder is told who holds it', async () => {
    const anchor = await h.anchor();
    const defrag = await h.button('defragment', {});
    const [alice] = await h.chat.click(anchor, defrag, { user: ALICE });
    const [bob] = await h.chat.click(anchor, defrag, { user: BOB_IN_GROUP });
    expect(textOf(bob)).toMatch(
      /<@U0ALICE> already has the confirmation of \*defragment\* open; it runs once/,
    );
    expect(bob?.kind === 'text' && bob.liveMentions).toBe(true);
    // Alice pressing again gets the same confirmation back, not a second one.
    const [again] = await h.chat.click(anchor, defrag, { user: ALICE });
    expect(runItButton(again).value).toBe(runItButton(alice).value);
  });

  it('stops before the next member when its lock lapses, logs it, and leaves the new holder alone', async () => {
    const anchor = await h.anchor();
    const before = h.chat.messages.length;
    const [confirm] = await h.chat.click(anchor, await h.button('defragment', {}), { user: ALICE });
    stealOnFirstMember = true;
    await h.chat.click(anchor, runItButton(confirm), { user: ALICE });
    await h.chat.waitFor((c) => c.messages.slice(before).some((m) => /: failed in/.test(m.text)), 60_000);
    expect(stolen).toBeDefined();
    const done = finished(h.chat)?.text ?? '';
    expect(done).toMatch(
      /failed in .*stopped before defragmenting etcd-\d: the remediation lock of local lapsed \(the lock .* is no longer ours/,
    );
    expect(log.errors.some((l) => /remediation stopped: its lock lapsed/.test(l))).toBe(true);
    expect(await h.redis.get(`${h.prefix}:remediation:lock:local`)).toBe('another-plan:thief');
    const events = (await h.audit()).map((r) => r.event);
    expect(events.at(-1)).toBe('failed');
  }, 90_000);
});
