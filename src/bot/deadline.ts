import { EtcdDoctorError } from '../errors.js';
import { QUEUE_UNAVAILABLE } from '../queue/job-queue.js';
import { CHAT_REDIS_DEADLINE_MS } from '../queue/job-requests.js';
import type { PlanStore } from '../state/plan-store.js';
import { withDeadline } from '../timing.js';

/**
 * The plan store as a button press reads it, while the user waits: a Redis that does not answer
 * within CHAT_REDIS_DEADLINE_MS is `queue_unavailable` (said in one line), not a hung click.
 */
export function chatPlans(plans: Pick<PlanStore, 'load'>): Pick<PlanStore, 'load'> {
  return {
    async load(planId) {
      const found = await withDeadline(
        plans.load(planId),
        CHAT_REDIS_DEADLINE_MS,
        () => 'unavailable' as const,
      );
      if (found === 'unavailable') throw new EtcdDoctorError('queue_unavailable', QUEUE_UNAVAILABLE);
      return found;
    },
  };
}
