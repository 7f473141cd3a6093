import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { connectOneShot, type Redis } from '../clients/redis.js';
import { type AuditRecord, createAuditLog, formatAuditRecord, parseSince } from '../state/audit-log.js';
import { describeError, EtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import { READ_ONLY } from './cluster-tools.js';
import { auditInput, auditOutput } from './schemas.js';
import { runTool, structuredResult } from './tool-result.js';
import { describeRedisTarget, type RedisTarget } from '../config/redis-target.js';

/** Reads the remediation audit trail (a Redis stream written by every button press). */
export interface AuditReader {
  read(query: { cluster?: string; sinceMs: number; limit: number }): Promise<AuditRecord[]>;
}

/** Connecting and reading the trail together take at most this long; then the tool says Redis is down. */
export const AUDIT_DEADLINE_MS = 3000;
const CONNECT_TIMEOUT_MS = 2000;

/** `redis://user:secret@host:6379/0` -> `redis://host:6379`: a tool error must not carry the password. */
export function redisLabel(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}`;
  } catch {
    return 'the configured Redis';
  }
}

/**
 * One short-lived connection per read (the trail is read rarely; a long-lived one would retry
 * forever while Redis is down). Fails fast: no reconnects, no offline queue, one deadline overall.
 */
export function createRedisAuditReader(opts: { redisUrl: RedisTarget; prefix: string }): AuditReader {
  const unavailable = (reason: string, cause?: unknown) =>
    new EtcdDoctorError(
      'queue_unavailable',
      `Redis at ${describeRedisTarget(opts.redisUrl)} ${reason}, and the audit trail lives there; etcd-doctor's cluster tools work without it.`,
      { cause },
    );
  return {
    async read(query) {
      const redis = connectOneShot(opts.redisUrl, CONNECT_TIMEOUT_MS);
      // ioredis rejects connect() with "Connection is closed."; the error event has the reason.
      let lastError: unknown;
      redis.on('error', (err: unknown) => {
        lastError = err;
      });
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), AUDIT_DEADLINE_MS);
      });
      try {
        const work = redis.connect().then(() => createAuditLog(redis, opts.prefix).read(query));
        const result = await Promise.race([work, late]).catch((err: unknown) => {
          const reason = describeError(lastError ?? err).replace(/^unexpected error: /, '');
          throw unavailable(`does not answer (${reason})`, err);
        });
        if (result === 'late') throw unavailable(`did not answer within ${AUDIT_DEADLINE_MS / 1000} s`);
        return result;
      } finally {
        clearTimeout(timer);
        redis.disconnect();
      }
    },
  };
}

/**
 * The trail read over a connection the role already holds (/mcp in the serve, bot and worker
 * roles): that connection reconnects on its own, so a read while Redis is down waits in its queue
 * and the tool says so after AUDIT_DEADLINE_MS, naming the connection's last error.
 */
export function createConnectionAuditReader(opts: {
  redis: Redis;
  redisUrl: RedisTarget;
  prefix: string;
}): AuditReader {
  let lastError: unknown;
  opts.redis.on('error', (err: unknown) => {
    lastError = err;
  });
  opts.redis.on('ready', () => {
    lastError = undefined;
  });
  const unavailable = (reason: string, cause?: unknown) =>
    new EtcdDoctorError(
      'queue_unavailable',
      `Redis at ${describeRedisTarget(opts.redisUrl)} ${reason}, and the audit trail lives there; etcd-doctor's cluster tools work without it.`,
      { cause },
    );
  const log = createAuditLog(opts.redis, opts.prefix);
  return {
    async read(query) {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<'late'>((resolve) => {
        timer = setTimeout(() => resolve('late'), AUDIT_DEADLINE_MS);
      });
      try {
        const result = await Promise.race([log.read(query), late]).catch((err: unknown) => {
          throw unavailable(
            `does not answer (${describeError(err).replace(/^unexpected error: /, '')})`,
            err,
          );
        });
        if (result !== 'late') return result;
        const why = lastError ? ` (${describeError(lastError).replace(/^unexpected error: /, '')})` : '';
        throw unavailable(`did not answer within ${AUDIT_DEADLINE_MS / 1000} s${why}`);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export function registerAuditTool(
  server: McpServer,
  deps: { audit: AuditReader; knownClusters: readonly string[]; logger: Logger; now: () => number },
): void {
  server.registerTool(
    'etcd_audit_trail',
    {
      title: 'Remediation audit trail',
      description: [
        "Read etcd-doctor's remediation audit trail: who pressed which remediation button in Slack (defragment, restart a static pod, disarm an alarm, open a ticket, ...), when, the plan, and the outcome with its duration.",
        'Use it to learn what was already tried during an incident. Entries come oldest first. The trail is stored in Redis; when Redis is unreachable the tool says so. Read-only.',
      ].join(' '),
      inputSchema: auditInput,
      outputSchema: auditOutput,
      annotations: { ...READ_ONLY, title: 'Remediation audit trail' },
    },
    (args, extra) =>
      runTool('etcd_audit_trail', extra, deps.logger, async () => {
        // The schema's pattern guarantees a duration; parseSince reads it.
        const sinceMs = deps.now() - (parseSince(args.since) ?? 0);
        const records = await deps.audit.read({
          sinceMs,
          limit: args.limit,
          ...(args.cluster ? { cluster: args.cluster } : {}),
        });
        const entries = records.map((r) => ({ ...r, at: r.at.toISOString() }));
        return structuredResult(auditSummary(records, args, deps.knownClusters), { entries });
      }),
  );
}

function auditSummary(
  records: AuditRecord[],
  args: { cluster?: string | undefined; since: string; limit: number },
  known: readonly string[],
): string {
  if (records.length) {
    const more = records.length === args.limit ? ` (the first ${args.limit}; ask with a larger limit)` : '';
    return [
      `${records.length} audit entries in the last ${args.since}${more}:`,
      ...records.map(formatAuditRecord),
    ].join('\n');
  }
  const scope = args.cluster ? ` for ${args.cluster}` : '';
  const unknown =
    args.cluster && !known.includes(args.cluster)
      ? ` (${args.cluster} is not a configured cluster; configured: ${known.join(', ')})`
      : '';
  return `No audit entries${scope} in the last ${args.since}: nobody pressed a remediation button${unknown}.`;
}
