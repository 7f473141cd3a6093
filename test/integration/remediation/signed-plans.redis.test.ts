import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import type { Queue } from 'bullmq';
import { buttonValue } from '../../../src/state/plan-store.js';
import { createRemediationState } from '../../../src/state/remediation-state.js';
import { signedJob } from '../../../src/remediation/job-signature.js';
import type { RemediateJob } from '../../../src/queue/job-schemas.js';
import {
  ALICE,
  type Harness,
  MALLORY,
  startHarness,
  textOf,
} from '../../support/chat/remediation-harness.js';
import { inspectQueue, waitForJobState } from '../../support/redis/job-states.js';
import { testSigner } from '../../support/redis/signing-key.js';

/**
 * Issue 38 M2: Redis was the root of trust. Anyone who could write to it could put a plan and a job
 * pressing it there, and the worker ran it (runTimeRefusal accepted one). Here, on a real Redis, the
 * forged and altered records are written straight into Redis as such a writer would, and the action
 * is `snooze`: it needs no etcd, and a forged one would silence a cluster's digests, alert triage
 * and watch incidents for a week.
 */
const CHANNEL = 'C0MEMORY';

describe('plans and remediation jobs that etcd-doctor did not sign', () => {
  let h: Harness;
  let queue: Queue;

  beforeAll(async () => {
    const cluster = { name: 'local', etcd: { endpoints: ['http://127.0.0.1:9'] } };
    h = await startHarness([{ ...cluster, remediation: { responders: [ALICE] } }], 'signed-plans');
    queue = inspectQueue(h.prefix);
  });

  afterAll(async () => {
    await queue?.close();
    await h?.close();
  });

  const snoozed = () => createRemediationState(h.redis, h.prefix).snoozedUntil('local');
  const planKey = (id: string) => `${h.prefix}:state:plan:${id}`;
  /** A job put into the queue as BullMQ's own clients add one: with the id the bot would give it. */
  const addRaw = async (job: RemediateJob) => {
    await queue.add('remediate', job, { jobId: `remediate-${job.plan}` });
    return waitForJobState(queue, `remediate-${job.plan}`, 'completed', 20_000);
  };
  const job = (plan: string, user = ALICE): RemediateJob => ({
    v: 1,
    kind: 'remediate',
    plan,
    cluster: 'local',
    channel: CHANNEL,
    user,
    requestedAt: Date.now(),
  });
  const auditOf = async (plan: string) => (await h.audit()).filter((r) => r.plan === plan);
  /** What a confirmation's "Run it" plan carries (snooze asks for one): bound to ALICE, just now. */
  const confirmed = () => ({
    confirmationOf: randomBytes(12).toString('base64url'),
    boundUser: ALICE,
    originCreatedAt: String(Date.now()),
  });

  it('a plan and a job written into Redis by hand: refused, audited, nothing snoozed', async () => {
    const id = randomBytes(12).toString('base64url');
    const plan = { v: 1, action: 'snooze', cluster: 'local', args: { hours: '168' }, label: 'Snooze' };
    const context = confirmed();
    await h.redis.set(
      planKey(id),
      JSON.stringify({ ...plan, channel: CHANNEL, createdAt: Date.now(), context }),
    );
    const done = await addRaw(job(id));

    expect(done.returnvalue).toMatchObject({ status: 'refused' });
    expect(await snoozed()).toBeUndefined();
    const [entry] = await auditOf(id);
    expect(entry).toMatchObject({ event: 'refused', user: ALICE, cluster: 'local' });
    expect(entry?.detail).toMatch(/^forged job: it carries no signature/);
  });

  it('a signed job whose plan was changed in Redis after etcd-doctor wrote it: refused in the channel, audited', async () => {
    const button = await h.button('snooze', { hours: '1' }, { context: confirmed() });
    const id = JSON.parse(button.value).plan as string;
    const raw = (await h.redis.get(planKey(id))) ?? '';
    // One hour becomes a week: the writer edits the stored plan in place, keeping everything else.
    const altered = raw.replace(/(hours\\*":\\*")1(\\*")/, '$1168$2');
    expect(altered).not.toBe(raw);
    await h.redis.set(planKey(id), altered);
    const before = h.chat.messages.length;
    const done = await addRaw(signedJob(testSigner, job(id)));

    expect(done.returnvalue).toMatchObject({ status: 'refused' });
    expect(await snoozed()).toBeUndefined();
    expect(h.chat.messages.slice(before).map((m) => m.text)).toEqual([
      expect.stringMatching(/plan fails its signature check \(its signature does not match its content/),
    ]);
    const [entry] = await auditOf(id);
    expect(entry).toMatchObject({ event: 'refused', action: 'snooze', cluster: 'local' });
    expect(entry?.detail).toMatch(/^forged plan: its signature does not match/);
  });

  it("a signed job changed in Redis to another presser (a responder's name): refused, audited", async () => {
    const button = await h.button('snooze', { hours: '2' }, { context: confirmed() });
    const id = JSON.parse(button.value).plan as string;
    // The bot signed a press by MALLORY, who is no responder; the writer makes it ALICE's.
    const pressed = signedJob(testSigner, job(id, MALLORY));
    const done = await addRaw({ ...pressed, user: ALICE });

    expect(done.returnvalue).toMatchObject({ status: 'refused' });
    expect(await snoozed()).toBeUndefined();
    const [entry] = await auditOf(id);
    expect(entry?.detail).toMatch(/^forged job: its signature does not match its content/);
  });

  it('a button whose plan was written into Redis by hand: the click is refused and audited, nothing is queued', async () => {
    const id = randomBytes(12).toString('base64url');
    const plan = { v: 1, action: 'snooze', cluster: 'local', args: {}, label: 'Snooze' };
    await h.redis.set(planKey(id), JSON.stringify({ ...plan, channel: CHANNEL, createdAt: Date.now() }));
    const anchor = await h.anchor();
    const button = { action: 'snooze' as const, label: 'Snooze', value: buttonValue(id), finding: null };
    const [reply] = await h.chat.click(anchor, button, { user: ALICE });

    expect(textOf(reply)).toMatch(/^This button's plan fails its signature check: it carries no signature/);
    expect(await queue.getJob(`remediate-${id}`)).toBeUndefined();
    expect(await snoozed()).toBeUndefined();
    const [entry] = await auditOf(id);
    expect(entry).toMatchObject({ event: 'refused', user: ALICE, action: 'snooze' });
  });

  it('the same press, signed and unchanged, runs (the check refuses only what was forged)', async () => {
    const button = await h.button('snooze', { hours: '3' }, { context: confirmed() });
    const id = JSON.parse(button.value).plan as string;
    const done = await addRaw(signedJob(testSigner, job(id)));

    expect(done.returnvalue).toMatchObject({ status: 'done' });
    expect((await snoozed())?.by).toBe(ALICE);
  });

  it('a signed job for a re-run button: the bot answers those itself, so the job path refuses it and audits it', async () => {
    const button = await h.button('rerun', { depth: 'diagnose' });
    const id = JSON.parse(button.value).plan as string;
    const done = await addRaw(signedJob(testSigner, job(id)));

    expect(done.returnvalue).toMatchObject({
      status: 'refused',
      summary: expect.stringMatching(
        /is answered by the bot when its button is pressed, never by a remediation job/,
      ),
    });
    const [entry] = await auditOf(id);
    expect(entry).toMatchObject({ event: 'refused', action: 'rerun', cluster: 'local', user: ALICE });
  });
});
