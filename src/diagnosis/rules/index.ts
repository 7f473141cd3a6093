import type { Rule } from '../rule.js';
import { apiserverLatencyRule } from './apiserver-latency.js';
import { clockSkewRule } from './clock-skew.js';
import { clockSkewLogsRule } from './clock-skew-logs.js';
import { controlPlaneRestartsRule } from './control-plane-restarts.js';
import { corruptionRule } from './corruption.js';
import { cpuStarvationRule } from './cpu-starvation.js';
import { dbFragmentationRule } from './db-fragmentation.js';
import { dbQuotaRule } from './db-quota.js';
import { leaderChurnRule } from './leader-churn.js';
import { memberDownRule } from './member-down.js';
import { noAccessRule } from './no-access.js';
import { observerLoadRule } from './observer-load.js';
import { nonDurableStorageRule } from './non-durable-storage.js';
import { peerNetworkRule } from './peer-network.js';
import { peerNetworkLogsRule } from './peer-network-logs.js';
import { quorumLostRule } from './quorum-lost.js';
import { slowDiskRule } from './slow-disk.js';
import { slowReadsRule } from './slow-reads.js';
import { staticPodMissingRule } from './static-pod-missing.js';
import { unreachableFromHereRule } from './unreachable-from-here.js';

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
  staticPodMissingRule,
  nonDurableStorageRule,
  peerNetworkLogsRule,
  clockSkewLogsRule,
  apiserverLatencyRule,
  controlPlaneRestartsRule,
  noAccessRule,
  unreachableFromHereRule,
  observerLoadRule,
];
