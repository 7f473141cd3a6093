import type { Rule } from '../rule.js';
import { apiserverLatencyRule } from './apiserver-latency.js';
import { backupStaleRule } from './backup-stale.js';
import { certExpiryRule } from './cert-expiry.js';
import { certExpiryLogsRule } from './cert-expiry-logs.js';
import { corruptionLogsRule } from './corruption-logs.js';
import { cpuStarvationLogsRule } from './cpu-starvation-logs.js';
import { defragInProgressRule } from './defrag-in-progress.js';
import { diskFullRule } from './disk-full.js';
import { expensiveRequestsRule } from './expensive-requests.js';
import { fdExhaustionLiveRule } from './fd-exhaustion-live.js';
import { outOfMemoryLiveRule } from './out-of-memory-live.js';
import { requestTooLargeRule } from './request-too-large.js';
import { slowWatchersRule } from './slow-watchers.js';
import { dnsResolutionRule } from './dns-resolution.js';
import { etcdCrashRule } from './etcd-crash.js';
import { fdExhaustionRule } from './fd-exhaustion.js';
import { followerBehindRule } from './follower-behind.js';
import { outOfMemoryRule } from './out-of-memory.js';
import { quorumLostLogsRule } from './quorum-lost-logs.js';
import { clusterNeverFormedRule } from './cluster-never-formed.js';
import { clockSkewRule } from './clock-skew.js';
import { clockSkewLogsRule } from './clock-skew-logs.js';
import { clusterMismatchRule } from './cluster-mismatch.js';
import { controlPlaneRestartsRule } from './control-plane-restarts.js';
import { controlPlaneRestartsCollectedRule } from './control-plane-restarts-collected.js';
import { compactionStalledRule } from './compaction-stalled.js';
import { compactionStalledCollectedRule } from './compaction-stalled-collected.js';
import { corruptionRule } from './corruption.js';
import { cpuStarvationRule } from './cpu-starvation.js';
import { dbFragmentationRule } from './db-fragmentation.js';
import { dbQuotaRule } from './db-quota.js';
import { dbQuotaCollectedRule } from './db-quota-collected.js';
import { leaderChurnRule } from './leader-churn.js';
import { leaderChurnCollectedRule } from './leader-churn-collected.js';
import { knownBugRule } from './known-bug.js';
import { downgradeInProgressRule } from './downgrade-in-progress.js';
import { learnerNotPromotedRule } from './learner-not-promoted.js';
import { memberDownRule } from './member-down.js';
import { memberDownCollectedRule } from './member-down-collected.js';
import { noAccessRule } from './no-access.js';
import { observerLoadRule } from './observer-load.js';
import { nonDurableStorageRule } from './non-durable-storage.js';
import { peerNetworkRule } from './peer-network.js';
import { peerNetworkLogsRule } from './peer-network-logs.js';
import { peerTlsRule } from './peer-tls.js';
import { quorumLostRule } from './quorum-lost.js';
import { slowDiskRule } from './slow-disk.js';
import { slowDiskCollectedRule } from './slow-disk-collected.js';
import { slowReadsRule } from './slow-reads.js';
import { staticPodMissingRule } from './static-pod-missing.js';
import { unexplainedErrorsRule } from './unexplained-errors.js';
import { unreachableFromHereRule } from './unreachable-from-here.js';

/** Every rule the engine runs. Adding a rule: one file here, one line below, one test. */
export const rules: readonly Rule[] = [
  quorumLostRule,
  corruptionRule,
  clusterMismatchRule,
  memberDownRule,
  dbFragmentationRule,
  dbQuotaRule,
  compactionStalledRule,
  slowDiskRule,
  peerNetworkRule,
  cpuStarvationRule,
  clockSkewRule,
  learnerNotPromotedRule,
  leaderChurnRule,
  slowReadsRule,
  staticPodMissingRule,
  nonDurableStorageRule,
  peerNetworkLogsRule,
  peerTlsRule,
  clockSkewLogsRule,
  apiserverLatencyRule,
  controlPlaneRestartsRule,
  certExpiryRule,
  backupStaleRule,
  // Overload and exhaustion, from each member's /metrics (issue 39).
  expensiveRequestsRule,
  requestTooLargeRule,
  slowWatchersRule,
  defragInProgressRule,
  fdExhaustionLiveRule,
  outOfMemoryLiveRule,
  knownBugRule,
  downgradeInProgressRule,
  // Read from the etcd logs, live (the pods' logs) and offline alike (issue 37).
  quorumLostLogsRule,
  clusterNeverFormedRule,
  corruptionLogsRule,
  diskFullRule,
  outOfMemoryRule,
  fdExhaustionRule,
  dnsResolutionRule,
  etcdCrashRule,
  certExpiryLogsRule,
  cpuStarvationLogsRule,
  followerBehindRule,
  unexplainedErrorsRule,
  noAccessRule,
  unreachableFromHereRule,
  observerLoadRule,
];

/**
 * Rules for collected evidence only (`etcd-doctor analyze`): they read the logs where a live rule
 * reads members, /metrics windows and alarms, and stand in for those rules (marked `live`), which
 * are then not evaluated. Live, the live rules decide. Their files end in `-collected.ts`; a file
 * ending in `-logs.ts` is a rule that reads the logs live and offline alike. (Their `name`s, in
 * the report's `explain[]` and `notEvaluated[]`, keep `-logs` for both.)
 */
export const collectedRules: readonly Rule[] = [
  memberDownCollectedRule,
  dbQuotaCollectedRule,
  slowDiskCollectedRule,
  leaderChurnCollectedRule,
  controlPlaneRestartsCollectedRule,
  compactionStalledCollectedRule,
];
