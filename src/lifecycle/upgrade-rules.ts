/**
 * What etcd's upgrade guides and release notes ask before a minor upgrade, as data. Sources:
 * - the upgrade policy (etcd.io/docs/v3.8/upgrades/upgrading-etcd/): one minor at a time, from the
 *   most recent patch of the current minor;
 * - "Upgrade etcd from v3.5 to v3.6" (etcd.io/docs/latest/upgrades/upgrade_3_6): every 3.5 member
 *   at a minimum patch first (3.5.20, raised to 3.5.26, then 3.5.32: k3s-io/k3s discussion 14908
 *   quotes the guide's current 3.5.32); `--enable-v2` and v2 store content checked with
 *   `etcdutl check v2store`; CHANGELOG-3.6 removes `--enable-v2` and `--experimental-enable-v2v3`;
 * - "Upgrade etcd from v3.6 to v3.7" (etcd.io/docs/v3.7/upgrades/upgrade_3_7/): every 3.6 member at
 *   3.6.11 or later; CHANGELOG-3.7 "Removed all deprecated experimental flags" (etcd-io/etcd#19959),
 *   whose replacements v3.6.0's server/etcdmain/config.go deprecatedFlags and
 *   server/features/etcd_features.go ExperimentalFlagToFeatureMap name;
 * - kubeadm's etcd per Kubernetes minor (cmd/kubeadm/app/constants SupportedEtcdVersion): 3.4 up to
 *   1.21, 3.5 from 1.22 to 1.33, 3.6 from 1.34 (kubernetes#138392, #138746); kubeadm 1.36 refuses
 *   etcd below 3.6.0 (kubernetes#135701).
 */

import { EtcdDoctorError } from '../errors.js';
import { cutText } from '../untrusted-text.js';

/** The minors etcd-doctor knows how to check an upgrade to. */
export const KNOWN_MINORS = ['3.4', '3.5', '3.6', '3.7'] as const;
export type KnownMinor = (typeof KNOWN_MINORS)[number];

export function isKnownMinor(text: string): text is KnownMinor {
  return (KNOWN_MINORS as readonly string[]).includes(text);
}

export interface MinorUpgradeRule {
  /** The guide's page. */
  guide: string;
  /** The lowest patch of the previous minor every member must run first; undefined: none named. */
  requiredPatch?: string;
  /** Flags the target no longer accepts, with what to use instead (`''`: nothing, drop it). */
  removedFlags: Readonly<Record<string, string>>;
  /** The v2 store must hold no custom data (3.6 stops loading it). */
  v2StoreMustBeEmpty: boolean;
}

/** 3.6 → 3.7: every `--experimental-*` flag of 3.6 goes; their 3.6 replacements. */
const EXPERIMENTAL_FLAGS_3_7: Readonly<Record<string, string>> = {
  'experimental-compact-hash-check-enabled': '--feature-gates=CompactHashCheck=true',
  'experimental-compact-hash-check-time': '--compact-hash-check-time',
  'experimental-txn-mode-write-with-shared-buffer': '--feature-gates=TxnModeWriteWithSharedBuffer=true',
  'experimental-corrupt-check-time': '--corrupt-check-time',
  'experimental-compaction-batch-limit': '--compaction-batch-limit',
  'experimental-watch-progress-notify-interval': '--watch-progress-notify-interval',
  'experimental-warning-apply-duration': '--warning-apply-duration',
  'experimental-bootstrap-defrag-threshold-megabytes': '--bootstrap-defrag-threshold-megabytes',
  'experimental-memory-mlock': '--memory-mlock',
  'experimental-snapshot-catchup-entries': '--snapshot-catchup-entries',
  'experimental-snapshot-catch-up-entries': '--snapshot-catchup-entries',
  'experimental-compaction-sleep-interval': '--compaction-sleep-interval',
  'experimental-downgrade-check-time': '--downgrade-check-time',
  'experimental-enable-distributed-tracing': '--enable-distributed-tracing',
  'experimental-distributed-tracing-address': '--distributed-tracing-address',
  'experimental-distributed-tracing-service-name': '--distributed-tracing-service-name',
  'experimental-distributed-tracing-instance-id': '--distributed-tracing-instance-id',
  'experimental-distributed-tracing-sampling-rate': '--distributed-tracing-sampling-rate',
  'experimental-initial-corrupt-check': '--feature-gates=InitialCorruptCheck=true',
  'experimental-enable-lease-checkpoint': '--feature-gates=LeaseCheckpoint=true',
  'experimental-enable-lease-checkpoint-persist': '--feature-gates=LeaseCheckpointPersist=true',
  'experimental-stop-grpc-service-on-defrag': '--feature-gates=StopGRPCServiceOnDefrag=true',
  'experimental-peer-skip-client-san-verification': '--peer-skip-client-san-verification',
  'experimental-warning-unary-request-duration': '--warning-unary-request-duration',
  'experimental-max-learners': '--max-learners',
  // Deprecated in 3.6 with "will be decommissioned in 3.7" beside the experimental ones.
  'snapshot-count': '',
  'max-snapshots': '',
};

export const MINOR_UPGRADES: Readonly<Record<KnownMinor, MinorUpgradeRule | undefined>> = {
  '3.4': undefined,
  '3.5': {
    guide: 'https://etcd.io/docs/v3.5/upgrades/upgrade_3_5/',
    removedFlags: {},
    v2StoreMustBeEmpty: false,
  },
  '3.6': {
    guide: 'https://etcd.io/docs/v3.6/upgrades/upgrade_3_6/',
    requiredPatch: '3.5.32',
    removedFlags: { 'enable-v2': '', 'experimental-enable-v2v3': '' },
    v2StoreMustBeEmpty: true,
  },
  '3.7': {
    guide: 'https://etcd.io/docs/v3.7/upgrades/upgrade_3_7/',
    requiredPatch: '3.6.11',
    removedFlags: EXPERIMENTAL_FLAGS_3_7,
    v2StoreMustBeEmpty: true,
  },
};

/** The etcd minor kubeadm of a Kubernetes minor installs and upgrades to. */
export function kubeadmEtcdMinor(kubernetesMinor: number): KnownMinor | undefined {
  if (kubernetesMinor < 17) return undefined;
  if (kubernetesMinor <= 21) return '3.4';
  if (kubernetesMinor <= 33) return '3.5';
  if (kubernetesMinor <= 36) return '3.6';
  return undefined;
}

export { KUBEADM_MIN_ETCD, kubernetesMinorOf } from '../etcd/known-bugs.js';

/** `--to 4.0`: one line saying which minors are known. */
export function parseTarget(text: string): KnownMinor {
  const minor = text.trim().replace(/^v/, '').split('.').slice(0, 2).join('.');
  if (isKnownMinor(minor)) return minor;
  throw new EtcdDoctorError(
    'command_invalid',
    `"${cutText(text, 20)}" is not an etcd minor etcd-doctor knows: use --to with one of ${KNOWN_MINORS.join(', ')}, the minor after the one the cluster runs`,
  );
}
