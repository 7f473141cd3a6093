import { z } from 'zod';
import { defineCommand } from '../src/commands/command.js';
import type { DigestService } from '../src/digest/digest-service.js';
import { formatTimeOfDay, isTimeZone, parseTimeOfDay } from '../src/digest/schedule.js';
import { EtcdDoctorError } from '../src/errors.js';
import { type ChatView, textView } from '../src/report/chat-view.js';

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
      const all = await digests.list();
      if (all.length === 0)
        return textView(
          'No channel has a digest. `/etcd digest subscribe all daily 09:00 UTC` starts one here.',
        );
      return textView(
        all.map(({ subscription: s, nextSlotMs, lastSentSlotMs }) => {
          const clusters = s.clusters === 'all' ? 'all clusters' : s.clusters.join(', ');
          const last = lastSentSlotMs ? `, last sent ${when(lastSentSlotMs)}` : '';
          return `• ${s.channel}: ${clusters}, daily at ${formatTimeOfDay(s)} ${s.tz} (next ${when(nextSlotMs)}${last})`;
        }),
        'info',
        { title: 'Digests' },
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
    const which = clusters === 'all' ? 'all clusters' : clusters.join(', ');
    return textView(
      `This channel gets a digest of ${which} daily at ${formatTimeOfDay(time)} ${args.tz}; the first at ${when(nextSlotMs)}.`,
      'success',
    );
  },
});
