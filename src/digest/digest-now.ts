import type { Redis } from '../clients/redis.js';
import type { ChatAdapter, Destination, MessageRef } from '../chat/adapter.js';
import type { ConfigFile } from '../config/schema.js';
import type { Doctor } from '../doctor.js';
import { EtcdDoctorError } from '../errors.js';
import { createMemoryHistoryStore } from '../state/history-store.js';
import { doctorFor } from '../history/doctor-for.js';
import { historyStoreFor } from '../history/install.js';
import type { Logger } from '../logger.js';
import type { ChatView } from '../report/chat-view.js';
import { renderViewText } from '../report/render-view-text.js';
import { channelAllowsByName, createDigestRunner, type DigestResult } from './run-digest.js';
import { createSubscriptionStore, type SubscriptionStore } from '../state/subscriptions.js';
import { createMinuteHistory } from '../state/minute-history.js';
import { createWatchState } from '../state/watch-state.js';

export interface DigestNowOptions {
  config: ConfigFile;
  doctor: Doctor;
  /** Redis for history and subscriptions, or undefined when it does not answer (no trends then). */
  redis: Redis | undefined;
  prefix: string;
  /** Slack, or undefined to print the digest instead. */
  chat: Pick<ChatAdapter, 'post'> | undefined;
  print: (text: string) => void;
  /** Only this channel; default every subscribed channel. */
  channel?: string;
  logger: Logger;
  now: () => number;
}

/** `etcd-doctor digest --now`: one digest per channel, now, outside any schedule (no slot, never "late"). */
export async function runDigestNow(opts: DigestNowOptions): Promise<DigestResult[]> {
  const history = opts.redis
    ? historyStoreFor(opts.redis, opts.prefix, opts.config, opts.now)
    : createMemoryHistoryStore();
  const subscriptions: SubscriptionStore | undefined = opts.redis
    ? createSubscriptionStore(opts.redis, opts.prefix)
    : undefined;
  const channels = opts.channel
    ? [opts.channel]
    : ((await subscriptions?.list()) ?? []).map((s) => s.channel);
  if (channels.length === 0) {
    if (opts.chat)
      throw new EtcdDoctorError('command_invalid', 'no channel subscribes to a digest: pass --channel C');
    channels.push('stdout');
  }
  const run = createDigestRunner({
    doctor: doctorFor(opts.doctor, { role: 'digest-now', records: history, logger: opts.logger }),
    history,
    subscriptions: {
      get: async (channel) => subscriptions?.get(channel),
      claimSlot: async () => true,
      markSent: async () => undefined,
      releaseSlot: async () => undefined,
    },
    chat: opts.chat ?? printingChat(opts.print),
    // Printed on the operator's terminal: every cluster. Posted to a channel: what it may see.
    allowedIn: (cluster, channel) => !opts.chat || channelAllowsByName(opts.config, cluster, channel),
    logger: opts.logger,
    workerId: 'cli',
    now: opts.now,
    ...(opts.config.digest?.concurrency ? { concurrency: opts.config.digest.concurrency } : {}),
    ...(opts.config.digest?.memoryBudgetMiB
      ? { memoryBudgetBytes: opts.config.digest.memoryBudgetMiB * 1024 * 1024 }
      : {}),
    ...(opts.redis ? watchHistoryOf(opts.redis, opts.prefix, opts.now) : {}),
  });
  const results: DigestResult[] = [];
  for (const channel of channels) {
    results.push(
      await run({ v: 1, kind: 'digest', channel, user: 'cli', requestedAt: opts.now() }, undefined),
    );
  }
  return results;
}

/** With Redis, the watch's minute history and kept scrapes (read only), as a worker's digest has. */
function watchHistoryOf(redis: Redis, prefix: string, now: () => number) {
  const state = createWatchState(redis, prefix);
  return {
    minutes: createMinuteHistory(redis, prefix, now),
    watchScrapes: (cluster: string) => state.scrapes(cluster, 0),
  };
}

/** Prints what would be posted: the root, then each thread reply indented under a rule. */
function printingChat(print: (text: string) => void): Pick<ChatAdapter, 'post'> {
  let seq = 0;
  return {
    async post(to: Destination, view: ChatView): Promise<MessageRef> {
      seq += 1;
      const text = renderViewText(view);
      print(to.thread ? `  --- in the thread ---\n${text.replace(/^/gm, '  ')}` : text);
      return { channel: to.channel, ts: `${seq}` };
    },
  };
}
