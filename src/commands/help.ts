import { optionalWord } from './args.js';
import { defineCommand } from './command.js';
import { usageLines } from './parse-command.js';
import { textView } from '../report/chat-view.js';

/** Offline analysis is not a command: a file dropped in the chat, or `analyze` typed in a terminal. */
const OFFLINE =
  '`analyze <path...>` (in a terminal), or a file dropped here: a must-gather, a `kubectl cluster-info dump` or etcd logs, analysed offline';

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
    return textView([...usageLines(ctx.commands), OFFLINE, `Clusters: ${known}`], 'info', {
      title: 'etcd-doctor commands',
    });
  },
});
