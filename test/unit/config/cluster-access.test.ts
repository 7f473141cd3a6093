import { readFile } from 'node:fs/promises';
import { describe, expect, it } from '@jest/globals';
import { createClusterAccess } from '../../../src/config/cluster-access.js';
import { checkQueuedReply, spaceQueuedReply } from '../../../src/commands/check-replies.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { createDoctor } from '../../../src/doctor.js';
import { isEtcdDoctorError } from '../../../src/errors.js';

/**
 * What the bot tells a user before any probe runs: which clusters a channel may name (by channel
 * ID), and the private reply once a check is queued or joins one already running. Built on the
 * real Doctor from a real config; nothing here connects to etcd.
 */

const config = configFileSchema.parse({
  clusters: [
    {
      name: 'prod',
      etcd: { endpoints: ['http://127.0.0.1:2379'] },
      slack: { allowedChannels: ['C0PROD01'] },
    },
    { name: 'staging', etcd: { endpoints: ['http://127.0.0.1:12379'] } },
  ],
});
const doctor = createDoctor({ config, readFileBuffer: (p) => readFile(p) });
const access = createClusterAccess(doctor);
const from = (channel: string, channelName?: string) => ({ channel, channelName });

/** The error's code and words, as the user reads them. */
function refusal(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    if (isEtcdDoctorError(err)) return { code: err.code, message: err.message };
    throw err;
  }
  throw new Error('not refused');
}

describe('which clusters a channel may name', () => {
  it('a restricted cluster answers only in its channels, and says where to ask', () => {
    expect(access.get('prod', from('C0PROD01')).name).toBe('prod');
    expect(refusal(() => access.get('prod', from('C0OTHER1', 'prod-incidents')))).toEqual({
      code: 'channel_forbidden',
      message:
        'cluster "prod" can only be used in C0PROD01; ask there, or have it added to slack.allowedChannels of "prod" in the config',
    });
    // By channel ID only: a channel renamed to look like the allowed one is still not it.
    expect(access.allowedIn('prod', from('C0OTHER1', 'C0PROD01'))).toBe(false);
  });

  it('an unrestricted cluster answers anywhere; an unknown one names the known ones', () => {
    expect(access.allowedIn('staging', from('C0OTHER1'))).toBe(true);
    expect(access.names()).toEqual(['prod', 'staging']);
    expect(refusal(() => access.get('prdo', from('C0PROD01')))).toEqual({
      code: 'cluster_unknown',
      message: 'unknown cluster "prdo"; known clusters: prod, staging',
    });
  });
});

describe('the private reply once a check is queued', () => {
  it('queued: what runs and where the answer goes', () => {
    expect(checkQueuedReply('diagnose', 'prod', { joined: false, jobId: 'check-1' }).lines).toEqual([
      'Diagnosing *prod*: progress follows in this channel, the answer in a thread.',
    ]);
    expect(checkQueuedReply('health', 'prod', { joined: false, jobId: 'check-2' }).lines).toEqual([
      'Checking the health of *prod*: progress follows in this channel, the answer in a thread.',
    ]);
  });

  it('joined: says it is not probing twice, with a link to the running thread once there is one', () => {
    const running = checkQueuedReply('diagnose', 'prod', {
      joined: true,
      jobId: 'check-1',
      thread: {
        channel: 'C0PROD01',
        ts: '1733371200.000100',
        link: 'https://example.slack.com/archives/C0PROD01/p1733371200000100',
      },
    });
    expect(running.lines).toEqual([
      'A diagnosis of *prod* is already running; this request joins it instead of probing twice.',
    ]);
    expect(running.link).toEqual({
      label: 'Open the running thread',
      url: 'https://example.slack.com/archives/C0PROD01/p1733371200000100',
    });
    const waiting = checkQueuedReply('health', 'prod', { joined: true, jobId: 'check-2', thread: undefined });
    expect(waiting.lines).toEqual([
      'A health check of *prod* is already queued; this request joins it. Its answer goes to the channel it was asked in.',
    ]);
    expect(waiting.link).toBeUndefined();
  });

  it('a space scan: one at a time per cluster, a second request joins it', () => {
    expect(spaceQueuedReply('prod', { joined: false, jobId: 'space-1' }).lines[0]).toMatch(
      /^Measuring what fills \*prod\*: it reads from a follower, rate-limited/,
    );
    expect(spaceQueuedReply('prod', { joined: true, jobId: 'space-1', thread: undefined }).lines).toEqual([
      'What fills *prod* is already being measured; this request joins that scan.',
    ]);
  });
});
