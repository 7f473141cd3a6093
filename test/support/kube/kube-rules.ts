import type { Rule } from '../../../src/diagnosis/rule.js';
import { apiserverLatencyRule } from '../../../src/diagnosis/rules/apiserver-latency.js';
import { clockSkewLogsRule } from '../../../src/diagnosis/rules/clock-skew-logs.js';
import { controlPlaneRestartsRule } from '../../../src/diagnosis/rules/control-plane-restarts.js';
import { nonDurableStorageRule } from '../../../src/diagnosis/rules/non-durable-storage.js';
import { peerNetworkLogsRule } from '../../../src/diagnosis/rules/peer-network-logs.js';
import { staticPodMissingRule } from '../../../src/diagnosis/rules/static-pod-missing.js';

/** The Kubernetes rules, for tests that run them beside the engine's list. */
export const kubernetesRules: readonly Rule[] = [
  staticPodMissingRule,
  nonDurableStorageRule,
  peerNetworkLogsRule,
  clockSkewLogsRule,
  apiserverLatencyRule,
  controlPlaneRestartsRule,
];
