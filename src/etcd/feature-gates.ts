/*
 * etcd 3.6's feature gates (`--feature-gates=Name=bool,...`), as etcd reads them: the value is
 * comma-separated `Name=bool` pairs, each bool as Go's strconv.ParseBool takes it
 * (pkg/featuregate/feature_gate.go featureGate.Set at v3.6.0). Six `--experimental-*` flags of 3.5
 * became gates in 3.6, which still takes the old flag as the gate's value when the gate itself is
 * not set, and refuses to start when both are (server/features/etcd_features.go
 * ExperimentalFlagToFeatureMap, server/embed/config.go SetFeatureGatesFromExperimentalFlags at
 * v3.6.0). 3.7 drops the experimental flags (CHANGELOG-3.7, etcd-io/etcd#19959).
 */

/** ExperimentalFlagToFeatureMap at v3.6.0: the experimental flag, and the gate it became. */
export const EXPERIMENTAL_FLAG_GATES: Readonly<Record<string, string>> = {
  'experimental-stop-grpc-service-on-defrag': 'StopGRPCServiceOnDefrag',
  'experimental-initial-corrupt-check': 'InitialCorruptCheck',
  'experimental-compact-hash-check-enabled': 'CompactHashCheck',
  'experimental-txn-mode-write-with-shared-buffer': 'TxnModeWriteWithSharedBuffer',
  'experimental-enable-lease-checkpoint': 'LeaseCheckpoint',
  'experimental-enable-lease-checkpoint-persist': 'LeaseCheckpointPersist',
};

/** Go's strconv.ParseBool; undefined for anything else (etcd refuses to start on it). */
export function parseGoBool(text: string): boolean | undefined {
  if (['1', 't', 'T', 'TRUE', 'true', 'True'].includes(text)) return true;
  if (['0', 'f', 'F', 'FALSE', 'false', 'False'].includes(text)) return false;
  return undefined;
}

/** `--feature-gates` as featureGate.Set reads it: `Name=bool` pairs; a pair etcd would refuse is left out. */
export function parseFeatureGates(value: string): Map<string, boolean> {
  const gates = new Map<string, boolean>();
  for (const pair of value.split(',')) {
    if (!pair) continue;
    const eq = pair.indexOf('=');
    if (eq < 0) continue;
    const on = parseGoBool(pair.slice(eq + 1).trim());
    if (on !== undefined) gates.set(pair.slice(0, eq).trim(), on);
  }
  return gates;
}

/**
 * The gates a member's flags set, in either form: `--feature-gates` first, then each experimental
 * flag for a gate `--feature-gates` does not name (a bare boolean flag reads `true`).
 */
export function featureGatesOfFlags(flags: ReadonlyMap<string, string>): Record<string, boolean> {
  const gates = Object.fromEntries(parseFeatureGates(flags.get('feature-gates') ?? ''));
  for (const [flag, gate] of Object.entries(EXPERIMENTAL_FLAG_GATES)) {
    const value = flags.get(flag);
    if (value === undefined || gate in gates) continue;
    const on = parseGoBool(value === '' ? 'true' : value);
    if (on !== undefined) gates[gate] = on;
  }
  return gates;
}
