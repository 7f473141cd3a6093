import { optionalWord } from '../src/commands/args.js';
import { defineCommand } from '../src/commands/command.js';
import { usageLines } from '../src/commands/parse-command.js';
import { textView } from '../src/report/chat-view.js';

/** `/etcd help [command]`. */
export default defineCommand({
  name: 'help',
  usage: 'help [command]',
  summary: 'this list',
  args: optionalWord,
  async run({ word }, ctx) {
    const one = ctx.commands.find((c) => c.name === word?.toLowerCase());
    if (one) return textView(`\`/etcd ${one.usage}\`  ${one.summary}`);
    const known = ctx.clusters.names().join(', ');
    return textView([...usageLines(ctx.commands), `Clusters: ${known}`], 'info', {
      title: 'etcd-doctor commands',
    });
  },
});
