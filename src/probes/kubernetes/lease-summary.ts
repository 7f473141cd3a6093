import type { V1Lease } from '@kubernetes/client-node';
import { toEpochMs } from './epoch.js';
import type { LeaseInfo } from './evidence.js';
import type { LeaseRef } from './layout.js';

export function summarizeLease(ref: LeaseRef, lease: V1Lease | undefined): LeaseInfo {
  const spec = lease?.spec;
  const holder = spec?.holderIdentity || undefined;
  return {
    namespace: ref.namespace,
    name: ref.name,
    component: ref.component,
    found: lease !== undefined,
    holder,
    holderNode: holderNode(holder),
    renewTime: toEpochMs(spec?.renewTime),
    acquireTime: toEpochMs(spec?.acquireTime),
    leaseDurationSeconds: spec?.leaseDurationSeconds,
    leaseTransitions: spec?.leaseTransitions,
  };
}

/** KCM and scheduler identities are `<hostname>_<uuid>` (K8S controllermanager.go). */
function holderNode(holder: string | undefined): string | undefined {
  const match = holder
    ? /^(.+)_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.exec(holder)
    : null;
  return match?.[1];
}
