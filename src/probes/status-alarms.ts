import type { AlarmData, MemberEvidence } from './evidence.js';
import { toHexId } from '../etcd/member-ids.js';
import type { Outcome } from './outcome.js';

/** `memberID:8e9e05c52164694d alarm:NOSPACE` strings in Status.errors, as alarm evidence. */
export function alarmsFromStatus(members: MemberEvidence[]): Outcome<AlarmData[]> {
  const answered = members.filter((m) => m.status.ok);
  if (answered.length === 0)
    return { ok: false, failure: { kind: 'skipped', message: 'no member answered Status' }, durationMs: 0 };
  const alarms = new Map<string, AlarmData>();
  for (const m of answered) {
    for (const error of m.status.ok ? m.status.data.errors : []) {
      const match = /memberID:(\w+) alarm:(NOSPACE|CORRUPT)/.exec(error);
      if (match?.[1] && (match[2] === 'NOSPACE' || match[2] === 'CORRUPT')) {
        const memberId = /^\d+$/.test(match[1]) ? toHexId(match[1]) : match[1];
        alarms.set(`${memberId}/${match[2]}`, { memberId, alarm: match[2] });
      }
    }
  }
  return { ok: true, data: [...alarms.values()], durationMs: 0 };
}
