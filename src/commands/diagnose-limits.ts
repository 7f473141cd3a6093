import type { JobRequests } from '../queue/job-requests.js';
import { EtcdDoctorError } from '../errors.js';
import type { RateLimiter } from '../state/rate-limit.js';

export interface DiagnoseLimits {
  /** `/etcd diagnose` requests per user per window (joins count: they are requests). */
  perUser: number;
  /** New diagnoses per cluster per window (a request that joins a running one costs nothing). */
  perCluster: number;
  windowMs: number;
}

/**
 * A diagnosis probes every member, Kubernetes and /metrics twice: on a struggling cluster, a burst
 * of them from one person (or a script) adds load where it hurts. Five a minute per person and ten
 * new ones a minute per cluster are far above what an incident needs (inference).
 */
export const DEFAULT_DIAGNOSE_LIMITS: DiagnoseLimits = { perUser: 5, perCluster: 10, windowMs: 60_000 };

const seconds = (ms: number) => `${Math.ceil(ms / 1000)} s`;

/** `/etcd diagnose` through `jobs`, refused with when to retry past either limit (health checks are cheap: not limited). */
export function limitDiagnoses(jobs: JobRequests, limiter: RateLimiter, limits: DiagnoseLimits): JobRequests {
  return {
    ...jobs,
    async check(req) {
      if (req.depth !== 'diagnose') return jobs.check(req);
      // Both limits at once; one that cannot be read in time lets the request through
      // (state/rate-limit.ts), and the enqueue that follows says whether the queue answers.
      const clusterKey = `diagnose:cluster:${req.cluster}`;
      const [user, cluster] = await Promise.all([
        limiter.take(`diagnose:user:${req.user}`, limits.perUser, limits.windowMs),
        limiter.peek(clusterKey, limits.perCluster),
      ]);
      if (!user.ok)
        throw new EtcdDoctorError(
          'rate_limited',
          `You asked for ${limits.perUser} diagnoses in the last ${seconds(limits.windowMs)}; try again in ${seconds(user.retryAfterMs)}.`,
        );
      if (!cluster.ok)
        throw new EtcdDoctorError(
          'rate_limited',
          `*${req.cluster}* was diagnosed ${limits.perCluster} times in the last ${seconds(limits.windowMs)}; try again in ${seconds(cluster.retryAfterMs)}, or read the latest diagnosis in its thread.`,
        );
      const reply = await jobs.check(req);
      if (!reply.joined) await limiter.take(clusterKey, Number.MAX_SAFE_INTEGER, limits.windowMs);
      return reply;
    },
  };
}
