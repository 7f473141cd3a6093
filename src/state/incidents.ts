import type { Redis } from '../clients/redis.js';
import { z } from 'zod';
import type { MessageRef } from '../chat/adapter.js';
import { createOwnedLocks } from './owned-lock.js';

/** An open incident of a watched cluster: one thread in its channel. */
export interface Incident {
  id: string;
  /** The root message; undefined only between the claim and the first post. */
  root?: MessageRef;
  cause: string;
  severity: 'critical' | 'warning';
  members: string[];
  openedAt: number;
  updatedAt: number;
  /** The root is an Alertmanager triage thread's: the incident posts in it and leaves the root to the alert. */
  shared?: boolean | undefined;
}

const incidentSchema = z.strictObject({
  id: z.string().min(1),
  root: z
    .object({ channel: z.string().min(1), ts: z.string().min(1), link: z.string().optional() })
    .optional(),
  cause: z.string().min(1),
  severity: z.enum(['critical', 'warning']),
  members: z.array(z.string()),
  openedAt: z.number(),
  updatedAt: z.number(),
  shared: z.boolean().optional(),
});

/** An incident nobody has touched for this long is gone (a cluster no longer watched). */
const INCIDENT_TTL_MS = 14 * 24 * 3600_000;

export interface Incidents {
  get(cluster: string): Promise<Incident | undefined>;
  /**
   * Claims the cluster's incident (owned-lock SET NX, owner = the incident id) and saves it. False
   * when another incident holds the claim: a retried or duplicated check opens no second thread.
   */
  open(cluster: string, incident: Incident): Promise<boolean>;
  save(cluster: string, incident: Incident): Promise<void>;
  /** Ends the incident, only while `id` still holds it. */
  close(cluster: string, id: string): Promise<void>;
  /**
   * One problem, one thread: the root of the cluster's latest Alertmanager triage thread, kept
   * while it may still fire (`ttlMs`), so an incident opened meanwhile posts in it.
   */
  noteAlertRoot(cluster: string, root: MessageRef, ttlMs: number): Promise<void>;
  alertRoot(cluster: string): Promise<MessageRef | undefined>;
  /** Ends the note when the alert resolves. */
  forgetAlertRoot(cluster: string): Promise<void>;
}

const refSchema = z.object({
  channel: z.string().min(1),
  ts: z.string().min(1),
  link: z.string().optional(),
});

/** `<prefix>:incident:<cluster>` (the claim, owned by the incident id) and `<prefix>:incident-data:<cluster>`. */
export function createIncidents(redis: Redis, prefix: string): Incidents {
  const locks = createOwnedLocks(redis);
  const claimKey = (cluster: string) => `${prefix}:incident:${cluster}`;
  const dataKey = (cluster: string) => `${prefix}:incident-data:${cluster}`;
  const alertKey = (cluster: string) => `${prefix}:alert-root:${cluster}`;
  const incidents: Incidents = {
    async get(cluster) {
      const [holder, raw] = await Promise.all([locks.holder(claimKey(cluster)), redis.get(dataKey(cluster))]);
      if (holder === undefined || raw === null) return undefined;
      const parsed = incidentSchema.safeParse(safeJson(raw));
      if (!parsed.success || parsed.data.id !== holder) return undefined;
      const { root, ...rest } = parsed.data;
      return root ? { ...rest, root: refOf(root) } : rest;
    },
    async open(cluster, incident) {
      const claimed = await locks.acquire(claimKey(cluster), incident.id, INCIDENT_TTL_MS);
      if (claimed !== 'acquired') return false;
      await incidents.save(cluster, incident);
      return true;
    },
    async save(cluster, incident) {
      if (!(await locks.renew(claimKey(cluster), incident.id, INCIDENT_TTL_MS))) return;
      await redis.set(dataKey(cluster), JSON.stringify(incident), 'PX', INCIDENT_TTL_MS);
    },
    async close(cluster, id) {
      if (await locks.release(claimKey(cluster), id)) await redis.del(dataKey(cluster));
    },
    async noteAlertRoot(cluster, root, ttlMs) {
      await redis.set(alertKey(cluster), JSON.stringify(root), 'PX', ttlMs);
    },
    async alertRoot(cluster) {
      const raw = await redis.get(alertKey(cluster));
      const parsed = raw === null ? undefined : refSchema.safeParse(safeJson(raw));
      return parsed?.success ? refOf(parsed.data) : undefined;
    },
    async forgetAlertRoot(cluster) {
      await redis.del(alertKey(cluster));
    },
  };
  return incidents;
}

function refOf(root: { channel: string; ts: string; link?: string | undefined }): MessageRef {
  return root.link
    ? { channel: root.channel, ts: root.ts, link: root.link }
    : { channel: root.channel, ts: root.ts };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
