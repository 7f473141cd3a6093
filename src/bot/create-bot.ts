import type { ChatAdapter, ChatHandlers, IncomingAction, IncomingCommand } from '../chat/adapter.js';
import { APOLOGY_TEXT } from '../chat/adapter.js';
import type { ChannelOrigin, ClusterAccess } from '../config/cluster-access.js';
import type { ChatCommand, CommandContext } from '../commands/command.js';
import { parseCommand, usageLines } from '../commands/parse-command.js';
import type { WatchStatus } from '../watch/watch-status.js';
import type { DigestService } from '../digest/digest-service.js';
import { describeError, isEtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import { type ChatView, textView } from '../report/chat-view.js';
import type { PlanStore } from '../state/plan-store.js';
import { handleAction, type RemediationClickDeps } from './handle-action.js';
import type { JobRequests } from '../queue/job-requests.js';

export interface BotDeps {
  chat: ChatAdapter;
  /** The clusters a chat may name (config/cluster-access.ts): config lookups only, never a probe. */
  clusters: ClusterAccess;
  jobs: JobRequests;
  /** Button plans, read within the chat's Redis deadline (bot/deadline.ts chatPlans). */
  plans: Pick<PlanStore, 'load'>;
  commands: readonly ChatCommand[];
  logger: Logger;
  /** `/etcd digest` subscriptions. */
  digests?: DigestService;
  /** `/etcd watch`. */
  watch?: WatchStatus;
  /** Remediation buttons (src/remediation/handle-click.ts); without it they say they are not enabled. */
  remediation?: RemediationClickDeps;
  /** Files shared for offline analysis (src/offline/install.ts); without it the chat does not listen for files. */
  onFiles?: ChatHandlers['onFiles'];
}

export interface Bot {
  readonly handlers: ChatHandlers;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The chat side: words in, a private reply out, jobs queued. Bad input gets words, never silence. */
export function createBot(deps: BotDeps): Bot {
  const { clusters } = deps;

  const answerCommand = async (cmd: IncomingCommand): Promise<ChatView> => {
    const from = { channel: cmd.channel, channelName: cmd.channelName };
    const parsed = parseCommand(cmd.text, deps.commands, () => onlyCluster(clusters, from));
    if (!parsed.ok) return usageReply(parsed.problem, parsed.command, deps.commands, clusters);
    const ctx: CommandContext = {
      channel: cmd.channel,
      channelName: cmd.channelName,
      user: cmd.user,
      clusters,
      jobs: deps.jobs,
      commands: deps.commands,
      ...(deps.digests ? { digests: deps.digests } : {}),
      ...(deps.watch ? { watch: deps.watch } : {}),
    };
    return parsed.command.run(parsed.args, ctx);
  };

  const handlers: ChatHandlers = {
    async onCommand(cmd) {
      await cmd.respond(
        await guarded(deps.logger, { text: cmd.text, channel: cmd.channel }, () => answerCommand(cmd)),
      );
    },
    async onAction(action: IncomingAction) {
      const reply = await guarded(deps.logger, { action: action.actionId, channel: action.channel }, () =>
        handleAction(action, {
          clusters,
          jobs: deps.jobs,
          plans: deps.plans,
          ...(deps.remediation ? { remediation: deps.remediation } : {}),
        }),
      );
      await action.respond(reply);
    },
    ...(deps.onFiles ? { onFiles: deps.onFiles } : {}),
  };
  return {
    handlers,
    start: () => deps.chat.start(handlers),
    stop: () => deps.chat.stop(),
  };
}

/** The one cluster the channel may use, where it may use one only (`diagnose` alone there means it). */
function onlyCluster(clusters: ClusterAccess, from: ChannelOrigin): string | undefined {
  const usable = clusters.names().filter((name) => clusters.allowedIn(name, from));
  return usable.length === 1 ? usable[0] : undefined;
}

/** Expected refusals become their one-line message; anything else is logged and apologised for. */
async function guarded(logger: Logger, fields: object, work: () => Promise<ChatView>): Promise<ChatView> {
  try {
    return await work();
  } catch (err) {
    if (isEtcdDoctorError(err))
      return textView(describeError(err), err.code === 'queue_unavailable' ? 'error' : 'warning');
    logger.error({ ...fields, err: describeError(err) }, 'chat request failed');
    return textView(APOLOGY_TEXT, 'error');
  }
}

function usageReply(
  problem: string,
  command: ChatCommand | undefined,
  commands: readonly ChatCommand[],
  clusters: ClusterAccess,
): ChatView {
  const usage = command ? [`Usage: \`/etcd ${command.usage}\`  ${command.summary}`] : usageLines(commands);
  const known = `Clusters: ${clusters.names().join(', ')}`;
  return textView([`Sorry: ${problem}${/[?.]$/.test(problem) ? '' : '.'}`, ...usage, known], 'warning');
}
