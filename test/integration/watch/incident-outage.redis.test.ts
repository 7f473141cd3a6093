import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import { createSlackAdapter } from '../../../src/chat/slack/slack-adapter.js';
import type { DiagnosisReport, FindingJson } from '../../../src/contracts/report-json.js';
import { silentLogger } from '../../../src/logger.js';
import { Secret } from '../../../src/secret.js';
import { createIncidents } from '../../../src/state/incidents.js';
import { createPlanStore } from '../../../src/state/plan-store.js';
import { createIncidentRunner } from '../../../src/watch/incident-runner.js';
import { type FakeSlack, startFakeSlack } from '../../support/slack/fake-slack.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';
import { messageText } from '../../support/slack/slack-driver.js';
import { channelThreads } from '../../support/slack/slack-http.js';
import { testSigner } from '../../support/redis/signing-key.js';

const CHANNEL = 'C0OUTAGE';
const prefix = testPrefix('incident-outage');
let fake: FakeSlack;
let redis: Redis;
const { roots, replies } = channelThreads(() => fake, CHANNEL);

function slowDisk(severity: 'warning' | 'critical'): DiagnosisReport {
  const finding: FindingJson = {
    cause: 'slow-disk',
    severity,
    members: ['etcd-2'],
    nodes: [],
    summary: 'etcd-2 wal fsync p99 is 800 ms',
    evidence: [],
    remediation: [],
    causedBy: null,
    steps: [],
    unknowns: [],
  };
  return {
    cluster: 'local',
    status: severity === 'critical' ? 'critical' : 'degraded',
    durationMs: 100,
    members: [],
    findings: [finding],
    probes: [],
    kind: 'diagnose',
    collectedAt: new Date().toISOString(),
  };
}

beforeAll(async () => {
  fake = await startFakeSlack();
  redis = new Redis(REDIS_URL);
});

afterAll(async () => {
  redis?.disconnect();
  await fake?.close();
  await purgePrefix(prefix);
});

/** A change saved before it was posted would be lost if the post failed: it must wait for Slack. */
describe('a watch incident that changes during a Slack outage', () => {
  it('posts the change at the next check once Slack is back', async () => {
    const run = createIncidentRunner({
      chat: createSlackAdapter({
        botToken: new Secret('xoxb-1-test'),
        apiUrl: fake.url,
        logger: silentLogger,
      }),
      incidents: createIncidents(redis, prefix),
      plans: createPlanStore(redis, prefix, testSigner),
      isSnoozed: async () => false,
      channelOf: () => CHANNEL,
      clusterOf: () => undefined,
      logger: silentLogger,
      now: Date.now,
    });
    const bad = { bad: 2, good: 0 };
    expect(await run('local', slowDisk('warning'), bad)).toBe('opened');
    // Slack fails the edit of the root: the change (warning -> critical) cannot be posted.
    fake.failNext('chat.update', { ok: false, error: 'fatal_error' });
    await expect(run('local', slowDisk('critical'), { bad: 3, good: 0 })).rejects.toThrow(/fatal_error/);
    // The next check, Slack answering again: the change is still news, and the thread gets it.
    expect(await run('local', slowDisk('critical'), { bad: 4, good: 0 })).toBe('updated');
    const thread = replies(roots()[0] ?? fail())
      .map(messageText)
      .join('\n');
    expect(thread).toMatch(/Changed: now slow-disk \(critical\), was slow-disk \(warning\)/);
  });
});

function fail(): never {
  throw new Error('no incident root in the channel');
}
