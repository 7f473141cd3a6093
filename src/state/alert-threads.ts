import { createHash } from 'node:crypto';
import type { Redis } from '../clients/redis.js';
import { z } from 'zod';
import type { MessageRef } from '../chat/adapter.js';

/** The thread an alert group (Alertmanager `groupKey`) posts into, per cluster. */
export interface AlertThread {
  root: MessageRef;
  status: 'firing' | 'resolved';
  /** Firing notifications posted into this thread. */
  firings: number;
  firstAt: number;
  lastAt: number;
  /** The root is a watch incident's (one problem, one thread): the alert posts in it, never edits it. */
  shared?: boolean | undefined;
}

const threadSchema = z.strictObject({
  root: z.object({ channel: z.string().min(1), ts: z.string().min(1), link: z.string().optional() }),
  status: z.enum(['firing', 'resolved']),
  firings: z.number().int().nonnegative(),
  firstAt: z.number(),
  lastAt: z.number(),
  shared: z.boolean().optional(),
});

export interface AlertThreads {
  /** The group's thread, while its last notification is younger than the window. */
  get(cluster: string, groupKey: string): Promise<AlertThread | undefined>;
  save(cluster: string, groupKey: string, thread: AlertThread): Promise<void>;
}

/**
 * `<prefix>:alert-thread:<cluster>:<sha1(groupKey)>`, expiring `windowMs` after the group's last
 * notification: a group that fires again within the window reuses its thread, later ones start anew.
 */
export function createAlertThreads(redis: Redis, prefix: string, windowMs: number): AlertThreads {
  const key = (cluster: string, groupKey: string) =>
    `${prefix}:alert-thread:${cluster}:${createHash('sha1').update(groupKey).digest('hex')}`;
  return {
    async get(cluster, groupKey) {
      const raw = await redis.get(key(cluster, groupKey));
      if (raw === null) return undefined;
      const parsed = threadSchema.safeParse(JSON.parse(raw));
      if (!parsed.success) return undefined;
      const { root, ...rest } = parsed.data;
      return {
        ...rest,
        root: root.link
          ? { channel: root.channel, ts: root.ts, link: root.link }
          : { channel: root.channel, ts: root.ts },
      };
    },
    async save(cluster, groupKey, thread) {
      await redis.set(key(cluster, groupKey), JSON.stringify(thread), 'PX', windowMs);
    },
  };
}
