import type { ClusterProbeContext } from './cluster-context.js';
import { firstAnswer } from './cluster-context.js';
import type { AlarmData } from './evidence.js';
import { deadline } from './member-context.js';
import { toHexId } from '../etcd/member-ids.js';
import type { Probe } from './probe.js';

/** Maintenance.Alarm(GET): NOSPACE means the cluster only accepts reads and deletes (KB §1.5). */
export function createAlarmsProbe(timeoutMs: number): Probe<ClusterProbeContext, AlarmData[]> {
  return {
    kind: 'alarms',
    asks: 'Alarm',
    timeoutMs,
    async collect(ctx) {
      const endpoints = ctx.clients.members.map((m) => m.endpoint);
      const res = await firstAnswer(endpoints, (endpoint) =>
        ctx.clients
          .forEndpoint(endpoint)
          .admin.maintenance.alarm({ action: 'Get', memberID: '0', alarm: 'None' }, deadline(timeoutMs)),
      );
      return res.alarms.flatMap((a) => {
        const alarm = alarmName(a.alarm as unknown);
        return alarm ? [{ memberId: toHexId(a.memberID), alarm }] : [];
      });
    },
  };
}

/** grpc may hand the enum over as a name (`NOSPACE`, `Nospace`) or a number (1). */
function alarmName(value: unknown): AlarmData['alarm'] | undefined {
  const text = String(value).toUpperCase();
  if (text === 'NOSPACE' || text === '1') return 'NOSPACE';
  if (text === 'CORRUPT' || text === '2') return 'CORRUPT';
  return undefined;
}
