import type { AlarmData, HealthData, MemberInfo, StatusData } from '../probes/evidence.js';
import { parseGoDuration } from '../etcd/scan-logs.js';

/**
 * The must-gather's `etcd_info/*.json`: `etcdctl ... -w json` output. etcdctl prints member ids
 * as uint64 numbers, which JSON.parse rounds above 2^53: ids read here are matched by URL where
 * the logs know the exact hex id (see offline-evidence.ts).
 */

type Json = Record<string, unknown>;
const obj = (v: unknown): Json =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : {};
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : []);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number => (typeof v === 'number' ? v : typeof v === 'string' ? Number(v) : 0);
const strings = (v: unknown): string[] => list(v).filter((s): s is string => typeof s === 'string');

/** A uint64 id as hex, as etcd prints it elsewhere (`8e9e05c52164694d`). */
export function hexId(v: unknown): string {
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v).toString(16);
  if (typeof v === 'string') return v;
  return typeof v === 'number' ? BigInt(Math.trunc(v)).toString(16) : '0';
}

/** `etcdctl member list -w json`. */
export function parseMemberList(json: unknown): MemberInfo[] {
  return list(obj(json).members).map((m) => {
    const member = obj(m);
    return {
      id: hexId(member.ID),
      name: str(member.name) ?? '',
      peerUrls: strings(member.peerURLs),
      clientUrls: strings(member.clientURLs),
      isLearner: member.isLearner === true,
    };
  });
}

/** `etcdctl endpoint status -w json`: one entry per endpoint that answered. */
export function parseEndpointStatus(json: unknown): Array<{ endpoint: string; status: StatusData }> {
  return list(json).flatMap((e) => {
    const entry = obj(e);
    const s = obj(entry.Status);
    const header = obj(s.header);
    const endpoint = str(entry.Endpoint);
    if (!endpoint || Object.keys(s).length === 0) return [];
    const status: StatusData = {
      memberId: hexId(header.member_id),
      clusterId: hexId(header.cluster_id),
      version: str(s.version) ?? '',
      dbSizeBytes: num(s.dbSize),
      dbSizeInUseBytes: num(s.dbSizeInUse ?? s.dbSize),
      leaderId: hexId(s.leader),
      raftTerm: num(s.raftTerm),
      raftIndex: num(s.raftIndex),
      raftAppliedIndex: num(s.raftAppliedIndex),
      revision: num(header.revision),
      isLearner: s.isLearner === true,
      errors: strings(s.errors),
      // etcd 3.6+ (rpc.pb.go json tags, omitempty): `downgradeInfo: {}` when no downgrade is enabled.
      ...(typeof s.storageVersion === 'string' && s.storageVersion
        ? { storageVersion: s.storageVersion }
        : {}),
      ...(num(s.dbSizeQuota) > 0 ? { dbSizeQuotaBytes: num(s.dbSizeQuota) } : {}),
      ...(s.downgradeInfo && typeof s.downgradeInfo === 'object'
        ? {
            downgrade: {
              enabled: obj(s.downgradeInfo).enabled === true,
              targetVersion: str(obj(s.downgradeInfo).targetVersion) ?? '',
            },
          }
        : {}),
    };
    return [{ endpoint, status }];
  });
}

/** `etcdctl endpoint health -w json`: healthy endpoints with their `took`. */
export function parseEndpointHealth(
  json: unknown,
): Array<{ endpoint: string; health: HealthData | undefined }> {
  return list(json).flatMap((e) => {
    const entry = obj(e);
    const endpoint = str(entry.endpoint);
    if (!endpoint) return [];
    const took = parseGoDuration(str(entry.took) ?? '');
    return [{ endpoint, health: entry.health === true ? { tookMs: (took ?? 0) * 1000 } : undefined }];
  });
}

/** etcdserverpb.AlarmType: 1 NOSPACE, 2 CORRUPT (etcdctl prints the number, or its name). */
export function parseAlarmList(json: unknown): AlarmData[] {
  return list(obj(json).alarms).flatMap((a) => {
    const alarm = obj(a);
    const type =
      alarm.alarm === 1 || alarm.alarm === 'NOSPACE'
        ? 'NOSPACE'
        : alarm.alarm === 2 || alarm.alarm === 'CORRUPT'
          ? 'CORRUPT'
          : undefined;
    return type ? [{ memberId: hexId(alarm.memberID), alarm: type }] : [];
  });
}
