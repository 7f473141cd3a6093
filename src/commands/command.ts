import type { z } from 'zod';
import type { JobRequests } from '../queue/job-requests.js';
import type { DigestService } from '../digest/digest-service.js';
import type { ChatView } from '../report/chat-view.js';
import type { ClusterAccess } from '../config/cluster-access.js';
import type { WatchStatus } from '../watch/watch-status.js';

/** Who asked, and what a command may ask the core for. Commands never talk to clusters: they enqueue. */
export interface CommandContext {
  channel: string;
  channelName: string | undefined;
  user: string;
  clusters: ClusterAccess;
  jobs: JobRequests;
  /** Digest subscriptions (`/etcd digest`); absent where no Redis backs them. */
  digests?: DigestService;
  /** The watched clusters and their state (`/etcd watch`); absent where no Redis backs them. */
  watch?: WatchStatus;
  /** Every command, for help and usage replies. */
  commands: readonly ChatCommand[];
}

/**
 * One chat command (`commands/<name>.ts`), like a Hubot script: its words, and what it asks the core
 * to do. `args` turns the words after the command name into typed arguments.
 */
export interface ChatCommand<Args = unknown> {
  name: string;
  /** `diagnose <cluster>` (shown after `/etcd `). */
  usage: string;
  summary: string;
  args: z.ZodType<Args>;
  /** Typed without its cluster where the channel may use only one (the demo's shell), it means that one. */
  defaultsToOnlyCluster?: boolean;
  /** The private reply to the user; throws EtcdDoctorError for expected refusals. */
  run(args: Args, ctx: CommandContext): Promise<ChatView>;
}

/** Keeps a command's `args` and `run` in step, and lets lists of commands of any argument type mix. */
export function defineCommand<Args>(command: ChatCommand<Args>): ChatCommand {
  return command as ChatCommand;
}
