import { z } from 'zod';
import { defineCommand } from './command.js';
import { parseTarget } from '../lifecycle/upgrade-rules.js';
import { textView } from '../report/chat-view.js';

/** `/etcd upgrade-check <cluster> <minor>`: can the cluster go to that etcd minor now (src/lifecycle/). */
export default defineCommand({
  name: 'upgrade-check',
  usage: 'upgrade-check <cluster> <minor>',
  summary: 'can the cluster go to that etcd minor now (3.6): what blocks it, each with its fix',
  args: z
    .tuple([z.string().min(1).max(64), z.string().min(1).max(20)])
    .transform(([cluster, target]) => ({ cluster, target })),
  async run({ cluster, target }, ctx) {
    ctx.clusters.get(cluster, ctx);
    const minor = parseTarget(target); // `4.0`: one line naming the known minors
    const reply = await ctx.jobs.lifecycle({
      task: 'upgrade-check',
      cluster,
      target: minor,
      channel: ctx.channel,
      user: ctx.user,
    });
    return textView(
      reply.joined
        ? `The upgrade check of *${cluster}* to etcd ${minor} is already running here; the answer follows in this channel.`
        : `Checking whether *${cluster}* can go to etcd ${minor}; the answer follows in this channel.`,
    );
  },
});
