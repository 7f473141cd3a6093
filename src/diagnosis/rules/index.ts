import type { Rule } from '../rule.js';
import { clockSkewRule } from './clock-skew.js';
import { corruptionRule } from './corruption.js';
import { cpuStarvationRule } from './cpu-starvation.js';
import { dbFragmentationRule } from './db-fragmentation.js';
import { dbQuotaRule } from './db-quota.js';
import { leaderChurnRule } from './leader-churn.js';
import { memberDownRule } from './member-down.js';
import { peerNetworkRule } from './peer-network.js';
import { quorumLostRule } from './quorum-lost.js';
import { slowDiskRule } from './slow-disk.js';
import { slowReadsRule } from './slow-reads.js';

/** Every rule the engine runs. Adding a rule: one file here, one line below, one test. */
export const rules: readonly Rule[] = [
  quorumLostRule,
  corruptionRule,
  memberDownRule,
  dbFragmentationRule,
  dbQuotaRule,
  slowDiskRule,
  peerNetworkRule,
  cpuStarvationRule,
  clockSkewRule,
  leaderChurnRule,
  slowReadsRule,
];
