import type { ActionId } from '../../diagnosis/finding.js';
import type { RegisteredAction } from '../action.js';
import { defragment } from './defragment.js';
import { diskBenchmark } from './disk-benchmark.js';
import { openTicket } from './open-ticket.js';
import { promoteLearner } from './promote-learner.js';
import { recoverNospace } from './recover-nospace.js';
import { replaceMember } from './replace-member.js';
import { rerun } from './rerun.js';
import { restartStaticPod } from './restart-static-pod.js';
import { snooze } from './snooze.js';
import { whatFillsIt } from './space.js';

/** Every button's action. A Record over ActionId: a new id without an action does not compile. */
export const actions: Record<ActionId, RegisteredAction> = {
  'open-ticket': openTicket,
  defragment,
  'recover-nospace': recoverNospace,
  'restart-static-pod': restartStaticPod,
  'disk-benchmark': diskBenchmark,
  'replace-member': replaceMember,
  'promote-learner': promoteLearner,
  rerun,
  snooze,
  space: whatFillsIt,
};
