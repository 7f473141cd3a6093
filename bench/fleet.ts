import { createServer, type Server, type Socket } from 'node:net';
import { Redis } from 'ioredis';
import { createSlackAdapter } from '../src/chat/slack/slack-adapter.js';
import { configFileSchema } from '../src/config/schema.js';
import { createSubscriptionStore } from '../src/digest/subscriptions.js';
import { allocateFreePorts } from '../src/lab/free-ports.js';
import { type EtcdLab, startEtcdLab } from '../src/lab/etcd-lab.js';
import { silentLogger } from '../src/logger.js';
import { createDigestSchedules } from '../src/queue/digest-schedules.js';
import { type RunningRoles, startRoles } from '../src/roles/start-roles.js';
import { Secret } from '../src/secret.js';
import { startFakeSlack } from '../test/support/fake-slack.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../test/support/redis-prefix.js';
import { row } from './stats.js';

/**
 * A digest over 200 configured clusters (DESIGN: many clusters per channel), with the production
 * probe settings (3 s timeout, 3 s metrics window):
 *  - 180 point at two real local 3-member labs (90 each);
 *  - 15 at closed ports on 127.0.0.1 (refused at once);
 *  - 5 at a TCP listener that accepts and never answers (each probe waits its full timeout).
 * Run with 1 worker, then 2 workers on the same Redis, in this one process.
 */
const CLUSTERS = 200;
const CLOSED = 15;
const BLACKHOLE = 5;
const CHANNEL = 'C0FLEET';
/** The default (digest.concurrency): every cluster at once, each probe bounded by its timeout. */
const CONCURRENCY = 200;

interface FleetRun {
  workers: number;
  wallMs: number;
  peakRssMiB: number;
  redisDeltaBytes: number;
  lines: number;
}

function blackhole(): Promise<{ server: Server; port: number; sockets: Set<Socket> }> {
  const sockets = new Set<Socket>();
  const server = createServer((s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({ server, port: typeof address === 'object' && address ? address.port : 0, sockets });
    }),
  );
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/used_memory:(\d+)/.exec(info)?.[1] ?? 0);
}

export async function benchFleet(): Promise<string> {
  const labs: EtcdLab[] = await Promise.all([startEtcdLab(), startEtcdLab()]);
  const fake = await startFakeSlack();
  const hole = await blackhole();
  const closedPorts = await allocateFreePorts(CLOSED, '127.0.0.1');
  const redis = new Redis(REDIS_URL);
  try {
    const clusters = Array.from({ length: CLUSTERS }, (_, i) => {
      const name = `c${String(i).padStart(3, '0')}`;
      if (i < CLOSED) return { name, etcd: { endpoints: [`http://127.0.0.1:${closedPorts[i]}`] } };
      if (i < CLOSED + BLACKHOLE) return { name, etcd: { endpoints: [`http://127.0.0.1:${hole.port}`] } };
      const lab = labs[i % 2] as EtcdLab;
      return { name, etcd: { endpoints: lab.endpoints, metricsUrls: lab.metricsUrls } };
    });
    const config = configFileSchema.parse({ clusters, digest: { concurrency: CONCURRENCY } });
    const runs: FleetRun[] = [];
    let perSampleBytes = 0;
    for (const workers of [1, 2]) {
      const prefix = testPrefix('bench-fleet');
      const roles: RunningRoles[] = [];
      try {
        for (let w = 0; w < workers; w += 1) {
          const chat = createSlackAdapter({
            botToken: new Secret('xoxb-bench'),
            apiUrl: fake.url,
            logger: silentLogger,
          });
          roles.push(
            await startRoles({
              role: 'worker',
              chat,
              config,
              redisUrl: REDIS_URL,
              queuePrefix: prefix,
              logger: silentLogger,
            }),
          );
        }
        fake.reset();
        await createSubscriptionStore(redis, prefix).save({
          v: 1,
          channel: CHANNEL,
          clusters: 'all',
          hour: 9,
          minute: 0,
          tz: 'UTC',
          user: 'Ubench',
          createdAt: 0,
        });
        const before = await usedMemory(redis);
        const baseRss = process.memoryUsage().rss;
        let peakRss = baseRss;
        const sampler = setInterval(() => {
          peakRss = Math.max(peakRss, process.memoryUsage().rss);
        }, 50);
        const schedules = createDigestSchedules({ connection: redis, prefix });
        const started = performance.now();
        await schedules.addNow({
          v: 1,
          kind: 'digest',
          channel: CHANNEL,
          user: 'Ubench',
          requestedAt: Date.now(),
          slotMs: Date.now(),
        });
        await fake.waitFor((f) => f.messages(CHANNEL).some((m) => m.thread_ts === undefined), 120_000);
        const wallMs = performance.now() - started;
        clearInterval(sampler);
        await schedules.close();
        const root = fake.messages(CHANNEL).find((m) => m.thread_ts === undefined);
        runs.push({
          workers,
          wallMs,
          peakRssMiB: peakRss / 1024 ** 2,
          redisDeltaBytes: (await usedMemory(redis)) - before,
          lines: (root?.text.match(/\n/g) ?? []).length,
        });
        const one = Number(await redis.call('MEMORY', 'USAGE', `${prefix}:history:c100`, 'SAMPLES', '0'));
        perSampleBytes = one;
      } finally {
        await Promise.all(roles.map((r) => r.stop()));
        await purgePrefix(prefix);
      }
    }
    return [
      `## Digest over ${CLUSTERS} clusters`,
      '',
      `${CLUSTERS - CLOSED - BLACKHOLE} clusters on two real local 3-member labs, ${CLOSED} on closed ports, ${BLACKHOLE} on a listener that never answers; probe timeout 3 s, metrics window 3 s, ${CONCURRENCY} clusters at once. Wall time is from queueing the digest job to the digest message in (fake) Slack. Target: < 30 s.`,
      '',
      row(['workers', 'wall time', 'peak RSS (bench process)', 'Redis used_memory delta', 'root lines']),
      row(['---', '---', '---', '---', '---']),
      ...runs.map((r) =>
        row([
          r.workers,
          `${(r.wallMs / 1000).toFixed(1)} s`,
          `${r.peakRssMiB.toFixed(0)} MiB`,
          `${(r.redisDeltaBytes / 1024).toFixed(0)} KiB`,
          r.lines,
        ]),
      ),
      '',
      `History: one diagnosis of a 3-member cluster costs ${perSampleBytes} bytes of Redis (MEMORY USAGE of a one-sample key, key overhead included).`,
      'One digest is one job, so a second worker adds redundancy (a replica that dies mid-digest is replaced), not speed: the clusters are already diagnosed concurrently inside the job.',
      '',
    ].join('\n');
  } finally {
    redis.disconnect();
    for (const s of hole.sockets) s.destroy();
    hole.server.close();
    await fake.close();
    await Promise.all(labs.map((l) => l.destroy()));
  }
}
