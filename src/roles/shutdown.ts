import { withDeadline } from '../timing.js';
import type { DigestFeature } from '../digest/install.js';
import type { JobWorker } from '../queue/job-worker.js';
import type { BotRole } from './bot.js';
import type { RoleBase } from './role-base.js';

const CLOSE_TIMEOUT_MS = 10_000;
const SHUTDOWN_TIMEOUT_MS = 25_000;
const DOWN_CLOSE_TIMEOUT_MS = 1000;

/**
 * The one shutdown sequence: the chat stops taking commands; running jobs finish and answer (past
 * `shutdownTimeoutMs` they are let go, to be recovered as stalled by another worker); then the
 * queue, the digest schedulers, the doctor's clients and Redis close. With Redis gone nothing can
 * finish cleanly, so every step then waits at most a second.
 */
export async function stopRoles(
  base: RoleBase,
  parts: { bot: BotRole | undefined; worker: JobWorker | undefined; digests: DigestFeature },
): Promise<void> {
  const { logger } = base.opts;
  await parts.bot?.stop().catch((err: unknown) => logger.warn({ err: String(err) }, 'chat stop failed'));
  const redisUp = await base.redisReady();
  const bound = redisUp ? CLOSE_TIMEOUT_MS : DOWN_CLOSE_TIMEOUT_MS;
  if (parts.worker) await drain(parts.worker, redisUp, base);
  if (parts.bot) await withDeadline(parts.bot.queue.close(), bound, () => undefined);
  await withDeadline(parts.digests.close(), bound, () => undefined);
  if (base.ownsDoctor) await base.doctor.close();
  await base.closeRedis(redisUp);
}

async function drain(worker: JobWorker, redisUp: boolean, base: RoleBase): Promise<void> {
  const drainMs = redisUp ? (base.tuning.shutdownTimeoutMs ?? SHUTDOWN_TIMEOUT_MS) : DOWN_CLOSE_TIMEOUT_MS;
  const drained = await withDeadline(
    worker.close(!redisUp).then(() => true),
    drainMs,
    () => false,
  );
  if (drained) return;
  base.opts.logger.warn(
    { waitedMs: drainMs },
    'jobs still running at shutdown; leaving them to another worker',
  );
  await withDeadline(worker.close(true), DOWN_CLOSE_TIMEOUT_MS, () => undefined);
}
