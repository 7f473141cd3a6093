import type { Redis } from '../clients/redis.js';
import type { JobData } from '../queue/job-schemas.js';
import type { RemediationOptions } from '../remediation/install.js';
import type { RoleBase } from './role-base.js';

/** Remediation's options from the role's: the same on the bot (clicks) and the worker (jobs). */
export function remediationOptions(
  base: RoleBase,
  redis: Redis,
  enqueue: (data: JobData) => Promise<unknown>,
): RemediationOptions {
  const { opts, tuning } = base;
  return {
    redis,
    prefix: opts.queuePrefix,
    config: opts.config,
    chat: opts.chat,
    logger: opts.logger,
    enqueue,
    signer: base.signer,
    ...(opts.processEnv ? { processEnv: opts.processEnv } : {}),
    ...(tuning.remediation ? { settings: tuning.remediation } : {}),
    ...(opts.readFileBuffer ? { readFileBuffer: opts.readFileBuffer } : {}),
    now: base.now,
    ...(tuning.maintenanceEveryMs ? { maintenanceEveryMs: tuning.maintenanceEveryMs } : {}),
  };
}
