import { describe, expect, it } from '@jest/globals';
import backups from '../../../src/commands/backups.js';
import { commands } from '../../../src/commands/index.js';
import type { JobRequests } from '../../../src/queue/job-requests.js';
import { createClusterAccess } from '../../../src/config/cluster-access.js';
import type { CommandContext } from '../../../src/commands/command.js';
import { configFileSchema } from '../../../src/config/schema.js';
import { EtcdDoctorError } from '../../../src/errors.js';

const config = configFileSchema.parse({
  clusters: [
    { name: 'prod', etcd: { endpoints: ['http://127.0.0.1:2379'] }, backups: { dir: '/var/backups/etcd' } },
    {
      name: 'lab',
      etcd: { endpoints: ['http://127.0.0.1:2479'] },
      slack: { allowedChannels: ['C0LAB'] },
    },
  ],
});

function context(queued: Array<{ cluster: string; channel: string }>): CommandContext {
  const cluster = (name: string) => {
    const found = config.clusters.find((c) => c.name === name);
    if (!found) throw new EtcdDoctorError('cluster_unknown', `unknown cluster "${name}"`);
    return found;
  };
  const jobs = {
    async backups(req: { cluster: string; channel: string }) {
      queued.push({ cluster: req.cluster, channel: req.channel });
      return { joined: false as const, jobId: 'backups-1' };
    },
  } as unknown as JobRequests;
  return {
    channel: 'C0LAB',
    channelName: 'lab',
    user: 'U1',
    clusters: createClusterAccess({ cluster, clusterNames: () => config.clusters.map((c) => c.name) }),
    jobs,
    commands,
  };
}

describe('/etcd backups', () => {
  it('queues the listing for a cluster with backups', async () => {
    const queued: Array<{ cluster: string; channel: string }> = [];
    const view = await backups.run({ cluster: 'prod' }, context(queued));
    expect(queued).toEqual([{ cluster: 'prod', channel: 'C0LAB' }]);
    expect(view).toMatchObject({
      kind: 'text',
      lines: ['Reading the backups of *prod*; the answer follows in this channel.'],
    });
  });

  it('a cluster without backups: says how to add them, queues nothing', async () => {
    const queued: Array<{ cluster: string; channel: string }> = [];
    const view = await backups.run({ cluster: 'lab' }, context(queued));
    expect(queued).toEqual([]);
    expect(view).toMatchObject({
      tone: 'warning',
      lines: [
        '*lab* has no backups configured: add `backups: { dir: /path/to/snapshots }` to it in the config (docs/configuration.md).',
      ],
    });
  });
});
