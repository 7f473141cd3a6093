import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createSlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import { createRedisConnections, type RedisConnections } from '../../../src/clients/redis.js';
import { createDoctor, type Doctor } from '../../../src/doctor.js';
import { silentLogger } from '../../../src/logger.js';
import type { CheckJob } from '../../../src/queue/job-schemas.js';
import { Secret } from '../../../src/secret.js';
import { createJobState } from '../../../src/state/job-state.js';
import { createPlanStore } from '../../../src/state/plan-store.js';
import { createJobRunner } from '../../../src/checks/check-jobs.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { type EtcdLab, startEtcdLab } from '../../support/lab/etcd-lab.js';
import { labConfig } from '../../support/lab/lab-config.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { testSigner } from '../../support/redis/signing-key.js';

/**
 * Two runs of one check job can meet: the first is abandoned (it timed out for the queue) while
 * its progress edit is still on its way, and the second answers. Slack rate-limits the first run's
 * edit, so it lands after the second run's verdict: the root message must end on the verdict, not
 * on "1 of 7 probes done". Real Slack Web API clients (one per worker, as in two worker processes)
 * against the fake Slack, real Redis, a real 3-member etcd.
 */
let lab: EtcdLab;
let doctor: Doctor;
let fake: FakeSlack;
const prefix = testPrefix('late-progress');
const connections: RedisConnections[] = [];

beforeAll(async () => {
  lab = await startEtcdLab();
  doctor = createDoctor({ config: labConfig(lab), readFileBuffer: (p) => readFile(p) });
  fake = await startFakeSlack();
});

afterAll(async () => {
  await fake?.close();
  for (const c of connections) c.shutdown();
  await doctor?.close();
  await lab?.destroy();
  await purgePrefix(prefix);
});

function worker(workerId: string) {
  const redis = createRedisConnections(REDIS_URL);
  connections.push(redis);
  return createJobRunner({
    doctor,
    chat: createSlackAdapter({ botToken: new Secret('xoxb-1-test'), apiUrl: fake.url, logger: silentLogger }),
    state: createJobState(redis.connect(`late-${workerId}`), prefix),
    plans: createPlanStore(redis.connect(`late-${workerId}-plans`), prefix, testSigner),
    logger: silentLogger,
    workerId,
    progressIntervalMs: 50,
  });
}

const job: CheckJob = {
  v: 1,
  kind: 'check',
  depth: 'health',
  cluster: 'local',
  channel: 'C0LATE',
  user: 'U1',
  requestedAt: Date.now(),
};

const PROGRESS = /probes done/;

describe("an abandoned run's late progress edit", () => {
  it('never stays over the verdict another run posted', async () => {
    const first = worker('A');
    const second = worker('B');
    // The first run's first progress edit is rate-limited: its client sends it again 3 s later.
    fake.failNext('chat.update', { status: 429, retryAfterSeconds: 3 });
    const abandoned = new AbortController();
    const firstRun = first.run(job, { jobId: 'late-1', attempt: 1, signal: abandoned.signal });
    await fake.waitFor((f) => f.calls('chat.update').some((c) => c.status === 429), 10_000);
    abandoned.abort(new Error('the job timed out'));

    await second.run(job, { jobId: 'late-1', attempt: 2, signal: new AbortController().signal });
    const root = () => fake.messages('C0LATE').find((m) => m.thread_ts === undefined);
    const verdict = root()?.text ?? '';
    expect(verdict).toContain('local');
    expect(verdict).not.toMatch(PROGRESS);
    const answeredAt = fake.calls('chat.update').length;
    // The answer is in the thread, once.
    expect(fake.messages('C0LATE').filter((m) => m.thread_ts !== undefined)).toHaveLength(1);

    // The first run ends either way: its diagnosis had finished (it then answers nothing), or the
    // abort stopped it (it rejects with the reason).
    await firstRun.catch((err: unknown) => expect(String(err)).toContain('the job timed out'));
    // The held edit did land after the verdict (the race happened)...
    const late = fake.calls('chat.update').slice(answeredAt);
    expect(late.some((c) => c.status === 200 && PROGRESS.test(String(c.body.text)))).toBe(true);
    // ...and the root shows the verdict again, with nothing new in the thread.
    expect(root()?.text).toBe(verdict);
    expect(fake.messages('C0LATE').filter((m) => m.thread_ts !== undefined)).toHaveLength(1);
  });
});
