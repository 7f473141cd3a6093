import type { Redis } from '../clients/redis.js';
import { z } from 'zod';

/**
 * The self-hosted audit trail: an append-only Redis stream. Every button press writes here: who,
 * what, when, the plan, and the outcome with timings. Each append trims entries older than the
 * retention (XADD MINID, default 90 days), and refusals are recorded at most
 * MAX_REFUSALS_PER_USER_PER_HOUR per user per hour, so pressing buttons one may not press cannot
 * grow Redis without bound.
 */
export type AuditEvent =
  | 'refused'
  | 'confirm-shown'
  | 'confirmed'
  | 'queued'
  | 'started'
  | 'finished'
  | 'failed'
  | 'dry-run';

/** Who the audit trail and the chat name for a maintenance window's run, which no one pressed. */
export const MAINTENANCE_ACTOR = 'maintenance-window';

export interface AuditEntry {
  event: AuditEvent;
  cluster: string;
  /** The Slack user id of whoever pressed the button. */
  user: string;
  action: string;
  /** The plan id the button referenced. */
  plan: string;
  /** One line for humans: the plan, the refusal reason or the outcome. */
  detail: string;
  durationMs?: number;
}

export interface AuditRecord extends AuditEntry {
  /** The stream id, `<ms>-<seq>`. */
  id: string;
  at: Date;
}

export interface AuditLog {
  append(entry: AuditEntry): Promise<string>;
  /** Oldest first; at most `limit` (default 1000) entries at or after `sinceMs`. */
  read(query: { cluster?: string; sinceMs?: number; limit?: number }): Promise<AuditRecord[]>;
}

const entrySchema = z.object({
  event: z.enum([
    'refused',
    'confirm-shown',
    'confirmed',
    'queued',
    'started',
    'finished',
    'failed',
    'dry-run',
  ]),
  cluster: z.string(),
  user: z.string(),
  action: z.string(),
  plan: z.string(),
  detail: z.string(),
  durationMs: z.coerce.number().optional(),
});

export function auditStreamKey(prefix: string): string {
  return `${prefix}:audit`;
}

/** How long the trail keeps an entry (docs/remediation.md, "Audit trail"). */
export const AUDIT_RETENTION_DAYS = 90;
/** Refusals recorded per user per hour; past it one entry says the rest were not. */
export const MAX_REFUSALS_PER_USER_PER_HOUR = 20;
const HOUR_MS = 3_600_000;

export interface AuditLogOptions {
  retentionDays?: number;
  now?: () => number;
}

export function createAuditLog(redis: Redis, prefix: string, opts: AuditLogOptions = {}): AuditLog {
  const key = auditStreamKey(prefix);
  const now = opts.now ?? Date.now;
  const retentionMs = (opts.retentionDays ?? AUDIT_RETENTION_DAYS) * 86_400_000;
  const xadd = async (entry: AuditEntry) => {
    const fields: string[] = [];
    for (const [name, value] of Object.entries(entry)) {
      if (value !== undefined) fields.push(name, String(value));
    }
    // Exact MINID: the trail is small, and a promised retention should hold to the entry.
    return (await redis.xadd(key, 'MINID', String(Math.max(0, now() - retentionMs)), '*', ...fields)) ?? '';
  };
  /** The refusals this user has left in this hour's budget (1 means: this is the last one kept). */
  const refusalBudget = async (user: string): Promise<number> => {
    const window = `${prefix}:audit-refusals:${user}:${Math.floor(now() / HOUR_MS)}`;
    const [[, count] = [null, 0]] = (await redis.multi().incr(window).pexpire(window, HOUR_MS).exec()) ?? [];
    return MAX_REFUSALS_PER_USER_PER_HOUR + 1 - Number(count);
  };
  return {
    async append(entry) {
      if (entry.event !== 'refused') return xadd(entry);
      const left = await refusalBudget(entry.user);
      if (left < 0) return '';
      if (left === 0)
        return xadd({
          ...entry,
          detail: `${entry.detail} (${MAX_REFUSALS_PER_USER_PER_HOUR} refusals of ${entry.user} this hour: further ones are not recorded until the hour ends)`,
        });
      return xadd(entry);
    },
    async read(query) {
      const start = query.sinceMs === undefined ? '-' : String(Math.max(0, Math.floor(query.sinceMs)));
      const limit = query.limit ?? 1000;
      const out: AuditRecord[] = [];
      let from = start;
      // Pages of 500 until enough entries matched or the stream ends; bounded by the limit.
      for (let page = 0; page < 1000 && out.length < limit; page += 1) {
        const rows = await redis.xrange(key, from, '+', 'COUNT', 500);
        for (const [id, flat] of rows) {
          const record = toRecord(id, flat);
          if (record && (query.cluster === undefined || record.cluster === query.cluster)) out.push(record);
          if (out.length >= limit) break;
        }
        const last = rows.at(-1);
        if (!last || rows.length < 500) break;
        from = `(${last[0]}`;
      }
      return out;
    },
  };
}

function toRecord(id: string, flat: string[]): AuditRecord | undefined {
  const raw: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) raw[flat[i] ?? ''] = flat[i + 1] ?? '';
  const parsed = entrySchema.safeParse(raw);
  if (!parsed.success) return undefined;
  const { durationMs, ...rest } = parsed.data;
  const record: AuditRecord = { id, at: new Date(Number(id.split('-')[0])), ...rest };
  if (durationMs !== undefined) record.durationMs = durationMs;
  return record;
}

/** `2024-05-01T10:02:03Z  prod  U123  defragment  finished  (31 s)  plan abc: …` */
export function formatAuditRecord(r: AuditRecord): string {
  const took = r.durationMs === undefined ? '' : `  (${(r.durationMs / 1000).toFixed(1)} s)`;
  return `${r.at.toISOString()}  ${r.cluster}  ${r.user}  ${r.action}  ${r.event}${took}  plan ${r.plan}: ${r.detail}`;
}

/** `30m`, `1h`, `2d` → milliseconds; undefined when not a duration. */
export function parseSince(text: string): number | undefined {
  const m = /^(\d+)\s*(s|m|h|d)$/.exec(text.trim());
  if (!m) return undefined;
  const unit = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }[m[2] as 's' | 'm' | 'h' | 'd'];
  return Number(m[1]) * unit;
}
