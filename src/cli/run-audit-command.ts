import { connectOneShot } from '../clients/redis.js';
import { EtcdDoctorError } from '../errors.js';
import { createAuditLog, formatAuditRecord, parseSince } from '../state/audit-log.js';
import { describeRedisTarget, type RedisTarget } from '../config/redis-target.js';

export interface AuditCommandOptions {
  redisUrl: RedisTarget;
  prefix: string;
  cluster?: string;
  /** `30m`, `1h`, `7d`; default 24h. */
  since?: string;
  json?: boolean;
  now?: () => number;
}

/** `etcd-doctor audit [--cluster C] [--since 1h]`: prints the trail, oldest first. Returns the line count. */
export async function runAuditCommand(
  opts: AuditCommandOptions,
  out: (line: string) => void,
): Promise<number> {
  const sinceMs = parseSince(opts.since ?? '24h');
  if (sinceMs === undefined)
    throw new EtcdDoctorError(
      'command_invalid',
      `--since "${opts.since}" is not a duration such as 30m, 1h or 7d`,
    );
  const redis = connectOneShot(opts.redisUrl);
  redis.on('error', () => undefined);
  try {
    await redis.connect().catch((err: unknown) => {
      throw new EtcdDoctorError(
        'config_invalid',
        `Redis at ${describeRedisTarget(opts.redisUrl)} does not answer; the audit trail lives there`,
        {
          cause: err,
        },
      );
    });
    const records = await createAuditLog(redis, opts.prefix).read({
      sinceMs: (opts.now ?? Date.now)() - sinceMs,
      ...(opts.cluster ? { cluster: opts.cluster } : {}),
      limit: 10_000,
    });
    for (const r of records) out(opts.json ? JSON.stringify(r) : formatAuditRecord(r));
    if (!records.length && !opts.json)
      out(`no audit entries${opts.cluster ? ` for ${opts.cluster}` : ''} in the last ${opts.since ?? '24h'}`);
    return records.length;
  } finally {
    redis.disconnect();
  }
}
