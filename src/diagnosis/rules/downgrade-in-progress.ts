import { formatList } from '../../format.js';
import type { Evidence, MemberEvidence } from '../../probes/evidence.js';
import type { Finding } from '../finding.js';
import { explainLines, type Rule } from '../rule.js';

/*
 * A cluster mid-downgrade (etcd 3.6+): `etcdctl downgrade enable <version>` was run and the cluster
 * version already dropped to the target, so the newer minor's features are off for every member,
 * until each member runs the target's binary (etcd then cancels the downgrade itself:
 * server/etcdserver/version/monitor.go CancelDowngradeIfNeeded at v3.6.0) or someone runs
 * `etcdctl downgrade cancel`. Status tells it (api/etcdserverpb/rpc.proto at v3.6.0 and v3.7.0:
 * downgradeInfo {enabled, targetVersion}, storageVersion); a 3.4 or 3.5 member sends neither. A member
 * is ready to have its binary replaced once its storageVersion equals the target (the db file has been
 * migrated: etcd commit "storage version ... delayed during downgrades", server/storage/schema).
 * An operation in progress, not a fault: info.
 */

/** etcd's guides, one per minor a downgrade leaves (etcd.io/docs/v3.6, v3.7 downgrades/). */
const DOWNGRADE_GUIDES: Record<string, string> = {
  '3.5': 'https://etcd.io/docs/v3.6/downgrades/downgrade_3_6/',
  '3.6': 'https://etcd.io/docs/v3.7/downgrades/downgrade_3_7/',
};
const DOWNGRADE_INDEX = 'https://etcd.io/docs/v3.6/downgrades/';

/** `3.5.0` → `3.5`. */
function minorOf(version: string): string {
  return /^v?(\d+\.\d+)/.exec(version)?.[1] ?? version;
}

export function downgradeGuide(target: string): string {
  return DOWNGRADE_GUIDES[minorOf(target)] ?? DOWNGRADE_INDEX;
}

interface Seen {
  member: MemberEvidence;
  version: string;
  storageVersion: string | undefined;
  target: string;
}

function downgrading(evidence: Evidence): Seen[] {
  return evidence.members.flatMap((m) => {
    const s = m.status.ok ? m.status.data : undefined;
    if (!s?.downgrade?.enabled) return [];
    return [
      { member: m, version: s.version, storageVersion: s.storageVersion, target: s.downgrade.targetVersion },
    ];
  });
}

export const downgradeInProgressRule: Rule = {
  name: 'downgrade-in-progress',
  cause: 'downgrade-in-progress',
  needs: ['status'],
  rank: 95,
  evaluate(evidence, ctx) {
    const seen = downgrading(evidence);
    const explain = explainLines(ctx, () =>
      evidence.members.map((m) => {
        const s = m.status.ok ? m.status.data : undefined;
        if (!s) return `${m.target.name}: no Status`;
        if (!s.downgrade) return `${m.target.name} (${s.version}): no downgrade fields (etcd before 3.6)`;
        return `${m.target.name} (${s.version}): downgrade ${s.downgrade.enabled ? `enabled to ${s.downgrade.targetVersion}` : 'not enabled'}, storage version ${s.storageVersion ?? 'unknown'}`;
      }),
    );
    if (seen.length === 0) return { explain };
    const target = seen[0]?.target ?? '';
    const targetMinor = minorOf(target);
    const answering = evidence.members.filter((m) => m.status.ok);
    const onTarget = answering.filter((m) => m.status.ok && minorOf(m.status.data.version) === targetMinor);
    const toReplace = answering.filter((m) => m.status.ok && minorOf(m.status.data.version) !== targetMinor);
    const ready = seen.filter((s) => s.storageVersion && minorOf(s.storageVersion) === targetMinor);
    const migrating = seen.filter((s) => !s.storageVersion || minorOf(s.storageVersion) !== targetMinor);
    const names = (ms: Array<MemberEvidence | Seen>) =>
      formatList(ms.map((m) => ('member' in m ? m.member.target.name : m.target.name)));
    const guide = downgradeGuide(target);
    const finding: Finding = {
      cause: 'downgrade-in-progress',
      severity: 'info',
      members: toReplace.map((m) => m.target.name),
      nodes: [],
      summary: `The cluster is being downgraded to etcd ${target}: ${onTarget.length} of ${answering.length} answering members run ${targetMinor}${toReplace.length ? `; ${names(toReplace)} still run${toReplace.length === 1 ? 's' : ''} a newer minor` : ''}. Until it finishes or is cancelled, the features of the newer minor are off`,
      evidence: [
        ...seen.map(
          (s) =>
            `${s.member.target.name} (${s.version}): Status downgradeInfo enabled, target ${s.target}, storage version ${s.storageVersion ?? 'not reported'}`,
        ),
        ...(onTarget.length ? [`already on ${targetMinor}: ${names(onTarget)}`] : []),
        `etcd's downgrade guide: ${guide}`,
      ],
      steps: [
        ...(ready.length
          ? [
              {
                text: `To finish: replace the binary of ${names(ready)} with etcd ${targetMinor} one member at a time (their storage version is ${targetMinor}, so their data is ready), checking etcd-doctor health between members; etcd ends the downgrade itself once every member runs ${targetMinor} (${guide})`,
              },
            ]
          : []),
        ...(migrating.length
          ? [
              {
                text: `Wait before replacing ${names(migrating)}: ${migrating.length === 1 ? 'its' : 'their'} storage version is not ${targetMinor} yet (the db file is still being migrated); replace a member only once its Status shows storage version ${targetMinor}`,
              },
            ]
          : []),
        {
          text: `To cancel instead: etcdctl downgrade cancel (etcdctl/ctlv3/command/downgrade_command.go), then give any member already on ${targetMinor} its newer binary back, one at a time; the cluster version rises again once every member runs the newer minor (version/monitor.go decideClusterVersion). Check etcd-doctor health after each member (${guide})`,
        },
      ],
      unknowns:
        answering.length < evidence.members.length
          ? [
              `${evidence.members.length - answering.length} member(s) did not answer Status: their version and storage version are unknown`,
            ]
          : [],
    };
    return { finding, explain: [...explain, `fired: downgrade to ${target} enabled on ${names(seen)}`] };
  },
};
