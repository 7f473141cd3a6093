import type { CoreV1Event } from '@kubernetes/client-node';
import { toEpochMs } from './epoch.js';
import type { WarningEvent } from './evidence.js';

export function summarizeEvent(e: CoreV1Event): WarningEvent {
  const lastSeen =
    toEpochMs(e.lastTimestamp) ??
    toEpochMs(e.series?.lastObservedTime) ??
    toEpochMs(e.eventTime) ??
    toEpochMs(e.firstTimestamp);
  return {
    namespace: e.metadata?.namespace ?? '',
    reason: e.reason ?? '',
    message: (e.message ?? '').split('\n')[0]?.slice(0, 300) ?? '',
    count: e.series?.count ?? e.count ?? 1,
    lastSeen,
    object: {
      kind: e.involvedObject?.kind,
      name: e.involvedObject?.name,
      namespace: e.involvedObject?.namespace,
    },
    host: e.reportingInstance || e.source?.host || undefined,
  };
}
