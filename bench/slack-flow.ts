import { randomBytes } from 'node:crypto';
import { startEtcdLab } from '../test/support/lab/etcd-lab.js';
import { silentLogger } from '../src/logger.js';
import { startRoles } from '../src/roles/start-roles.js';
import { startFakeSlack } from '../test/support/slack/fake-slack.js';
import { DIAGNOSIS_PROBES, labConfig } from '../test/support/lab/lab-config.js';
import { purgePrefix, REDIS_URL } from '../test/support/redis/redis-prefix.js';
import { sendSlashCommand } from '../test/support/slack/slack-driver.js';
import { eventsUrl, httpSlackAdapter } from '../test/support/slack/slack-http.js';
import { median, ms, percentile, row } from './stats.js';

/**
 * The Slack path on one local 3-member cluster, through the real Bolt HTTP receiver, real Redis and
 * BullMQ, and a fake Slack Web API on loopback:
 *  - ack latency of 50 and 200 concurrent signed slash commands (Slack allows 3000 ms; we aim
 *    under 200 ms);
 *  - wall time from a slash command to its final thread reply: healthy, with one member hung
 *    (SIGSTOP), and with one member's fdatasync slowed by 200 ms (strace) under writes, with the
 *    default probe settings (diagnose waits a 3 s /metrics window by design).
 */
const CONCURRENCY = [50, 200] as const;
const FLOW_RUNS = 6;
const FAULT_RUNS = 3;

export async function benchSlackFlow(): Promise<string> {
  const prefix = `bench-slack-${randomBytes(4).toString('hex')}`;
  const [lab, fake] = await Promise.all([startEtcdLab(), startFakeSlack()]);
  const chat = httpSlackAdapter(fake);
  const roles = await startRoles({
    role: 'serve',
    chat,
    config: labConfig(lab, { probes: DIAGNOSIS_PROBES }),
    redisUrl: process.env.REDIS_URL ?? REDIS_URL,
    queuePrefix: prefix,
    logger: silentLogger,
    // This measures the Slack path under load, not abuse: the per-user diagnose limit would refuse it.
    tuning: { diagnoseLimits: { perUser: 1_000_000, perCluster: 1_000_000 } },
  });
  const url = eventsUrl(chat);
  const line = (what: string, values: number[], p: number) =>
    row([what, ms(median(values)), ms(percentile(values, p)), `p${p}`, values.length]);
  const command = (text: string, channel = 'C111') =>
    sendSlashCommand(url, { text, channel_id: channel, user_id: 'U111' });
  try {
    for (let i = 0; i < 5; i++) await command('help');
    const storm = async (text: string, n: number) =>
      (await Promise.all(Array.from({ length: n }, () => command(text)))).map((r) => r.ms);
    const storms: string[] = [];
    for (const n of CONCURRENCY) {
      const help = await storm('help', n);
      const diagnose = await storm('diagnose local', n);
      await roles.idle();
      storms.push(
        line(`ack of ${n} concurrent \`/etcd help\` (no queue)`, help, 99),
        line(
          `ack of ${n} concurrent \`/etcd diagnose local\` (enqueue; 1 job, the rest join it)`,
          diagnose,
          99,
        ),
      );
    }
    const flow = async (depth: 'health' | 'diagnose', runs = FLOW_RUNS) => {
      const times: number[] = [];
      for (let i = 0; i < runs; i++) {
        fake.reset();
        const started = performance.now();
        await command(`${depth} local`, 'C222');
        await fake.waitFor((f) => f.messages('C222').some((m) => m.thread_ts !== undefined), 30_000);
        times.push(performance.now() - started);
        // Let the job finish (verdict on the root, job completed) so the next run is not joined to it.
        await fake.waitFor((f) =>
          f.messages('C222').some((m) => m.thread_ts === undefined && !/probes done|starting/.test(m.text)),
        );
        await new Promise((r) => setTimeout(r, 200));
      }
      return times;
    };
    const health = await flow('health');
    const diagnosis = await flow('diagnose');
    lab.stop('etcd-2');
    const hung = await flow('diagnose', FAULT_RUNS).finally(() => lab.cont('etcd-2'));
    const leader = await lab.leaderName();
    const victim = lab.members.map((m) => m.name).find((n) => n !== leader) ?? 'etcd-3';
    const slow = await lab.slowDisk(victim, 200_000);
    let writing = true;
    const load = (async () => {
      for (let i = 0; writing && i < 120; i++)
        await lab.writeLoad({ ratePerSecond: 40, durationMs: 500, valueBytes: 256 });
    })();
    const slowDisk = await flow('diagnose', FAULT_RUNS).finally(async () => {
      writing = false;
      await load;
      await slow.stop();
    });
    return [
      '## Slack: ack latency and time to the answer (3 local members, HTTP receiver, loopback fake Slack)',
      '',
      row(['what', 'median', 'tail', 'tail is', 'runs']),
      row(['---', '---', '---', '---', '---']),
      ...storms,
      line('`/etcd health local` to its thread reply (healthy cluster)', health, 90),
      line(
        '`/etcd diagnose local` to its thread reply (healthy cluster, 3 s /metrics window)',
        diagnosis,
        90,
      ),
      line('`/etcd diagnose local` with etcd-2 hung (SIGSTOP) to its thread reply', hung, 90),
      line(`\`/etcd diagnose local\` with ${victim}'s fdatasync +200 ms, under writes`, slowDisk, 90),
      '',
    ].join('\n');
  } finally {
    await roles.stop();
    await Promise.all([fake.close(), lab.destroy()]);
    await purgePrefix(prefix);
  }
}
