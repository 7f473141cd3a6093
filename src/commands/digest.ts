import { z } from 'zod';
import { type CommandContext, defineCommand } from './command.js';
import type { DigestService } from '../digest/digest-service.js';
import { formatTimeOfDay, isTimeZone, parseTimeOfDay } from '../digest/schedule.js';
import { EtcdDoctorError } from '../errors.js';
import { type ChatView, textView } from '../report/chat-view.js';

const USAGE = 'digest subscribe <clusters|all> daily <HH:MM> <IANA time zone> | unsubscribe | list';
const word = z.string().min(1).max(64);

/** `subscribe prod,staging daily 09:00 Europe/Paris`, `unsubscribe`, `list`; values are checked in run. */
const digestArgs = z.union([
  z
    .tuple([z.string().regex(/^subscribe$/i), word, z.string().regex(/^daily$/i), word, word])
    .transform((w) => ({
      action: 'subscribe' as const,
      clusters: w[1],
      time: w[3],
      tz: w[4],
    })),
  z.tuple([z.string().regex(/^unsubscribe$/i)]).transform(() => ({ action: 'unsubscribe' as const })),
  z.tuple([z.string().regex(/^list$/i)]).transform(() => ({ action: 'list' as const })),
]);

function refuse(problem: string): never {
  throw new EtcdDoctorError('command_invalid', `${problem}. Usage: \`/etcd ${USAGE}\``);
}

const when = (ms: number) => new Date(ms).toISOString().replace('T', ' ').slice(0, 16).concat(' UTC');

/** The clusters this channel may see (`slack.allowedChannels`): what `all` means here. */
const visible = (ctx: CommandContext): string[] =>
  ctx.clusters.names().filter((name) => ctx.clusters.allowedIn(name, ctx));

/** `/etcd digest ...`: this channel's daily health digest. */
export default defineCommand({
  name: 'digest',
  usage: USAGE,
  summary: "this channel's daily health digest: one line per cluster, with trends",
  args: digestArgs,
  async run(args, ctx): Promise<ChatView> {
    const digests: DigestService | undefined = ctx.digests;
    if (!digests) return textView('Digests are not available in this process (it has no Redis).', 'warning');
    if (args.action === 'list') {
      // This channel's digest only: other channels' subscriptions are theirs to see.
      const mine = (await digests.list()).find((d) => d.subscription.channel === ctx.channel);
      if (!mine)
        return textView(
          'This channel has no digest. `/etcd digest subscribe all daily 09:00 UTC` starts one here.',
        );
      const { subscription: s, nextSlotMs, lastSentSlotMs } = mine;
      const clusters =
        s.clusters === 'all'
          ? `all clusters this channel may see (${visible(ctx).join(', ')})`
          : s.clusters.join(', ');
      const last = lastSentSlotMs ? `, last sent ${when(lastSentSlotMs)}` : '';
      return textView(
        `This channel's digest: ${clusters}, daily at ${formatTimeOfDay(s)} ${s.tz} (next ${when(nextSlotMs)}${last}).`,
        'info',
        { title: 'Digest' },
      );
    }
    if (args.action === 'unsubscribe') {
      const had = await digests.unsubscribe(ctx.channel);
      return textView(had ? 'This channel no longer gets a digest.' : 'This channel had no digest.');
    }
    const time = parseTimeOfDay(args.time);
    if (!time) refuse(`"${args.time}" is not a time of day (HH:MM, 24-hour)`);
    if (!isTimeZone(args.tz))
      refuse(`"${args.tz}" is not an IANA time zone (e.g. Europe/Paris, America/New_York, UTC)`);
    let clusters: 'all' | string[] = 'all';
    if (args.clusters.toLowerCase() !== 'all') {
      clusters = [
        ...new Set(
          args.clusters
            .split(',')
            .map((c) => c.trim())
            .filter(Boolean),
        ),
      ];
      for (const name of clusters) ctx.clusters.get(name, ctx);
    }
    const { nextSlotMs } = await digests.subscribe({
      channel: ctx.channel,
      user: ctx.user,
      clusters,
      schedule: { ...time, tz: args.tz },
    });
    const which =
      clusters === 'all'
        ? `all clusters this channel may see (${visible(ctx).join(', ') || 'none yet'}; slack.allowedChannels keeps the others out)`
        : clusters.join(', ');
    return textView(
      `This channel gets a digest of ${which} daily at ${formatTimeOfDay(time)} ${args.tz}; the first at ${when(nextSlotMs)}.`,
      'success',
    );
  },
});
