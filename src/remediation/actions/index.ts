import type { RemediationActionId } from '../../contracts/action-id.js';
import type { RegisteredAction } from '../action.js';
import { defragment } from './defragment.js';
import { diskBenchmark } from './disk-benchmark.js';
import { openTicket } from './open-ticket.js';
import { promoteLearner } from './promote-learner.js';
import { recoverNospace } from './recover-nospace.js';
import { replaceMember } from './replace-member.js';
import { restartStaticPod } from './restart-static-pod.js';
import { snooze } from './snooze.js';

/**
 * Every remediation button's action. A Record over RemediationActionId: a new id without an action
 * does not compile. The chat side's own buttons (re-run, what fills it?) are not here: the bot
 * answers them (bot/handle-action.ts).
 */
export const actions: Record<RemediationActionId, RegisteredAction> = {
  'open-ticket': openTicket,
  defragment,
  'recover-nospace': recoverNospace,
  'restart-static-pod': restartStaticPod,
  'disk-benchmark': diskBenchmark,
  'replace-member': replaceMember,
  'promote-learner': promoteLearner,
  snooze,
};
