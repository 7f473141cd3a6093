import { formatList } from '../../format.js';
import type { Finding, RemediationStep } from '../finding.js';
import type { Rule } from '../rule.js';
import { assessVantage, type UnseenMember, type Vantage } from '../vantage.js';
import { plural } from '../support/kubernetes.js';

/**
 * Members refuse or time out *from etcd-doctor* while something else says etcd is up: the
 * apiserver still reaches it (`/readyz` `[+]etcd ok`, a read through it works, the member's pod
 * is Ready), or another member served a linearizable read, which needs a quorum. Then the path
 * from here is at fault (network, firewall, wrong URLs), not etcd. With nothing to ask, etcd-doctor
 * says plainly that it cannot tell quorum loss from a network problem (DESIGN.md; KB §4.2).
 * Quorum-lost and snapshot-restore advice need evidence that etcd itself lost quorum.
 */
export const unreachableFromHereRule: Rule = {
  name: 'unreachable-from-here',
  live: 'the network path from etcd-doctor, now',
  cause: 'unreachable-from-here',
  needs: [],
  rank: 91,
  scope: 'vantage',
  evaluate(evidence, ctx) {
    const vantage = ctx.vantage ?? assessVantage(evidence);
    const unseen = vantage.unseen.filter((u) => u.reason === 'unreachable-from-here');
    const explain = [
      `${unseen.length} members do not answer etcd-doctor while etcd is up by other evidence (or no evidence can tell)`,
      `apiserver reaches etcd: ${vantage.apiserver.reachesEtcd ?? 'cannot tell'}; quorum proven by a read: ${vantage.quorumProven}`,
    ];
    if (unseen.length === 0) return { explain };
    const names = unseen.map((u) => u.member.target.name);
    const finding: Finding = {
      cause: 'unreachable-from-here',
      severity: 'warning',
      members: names,
      nodes: [],
      summary: summaryOf(evidence.cluster, unseen, vantage),
      evidence: [
        ...unseen.map((u) => `${u.member.target.name}: ${failureText(u)}`),
        ...vantage.apiserver.evidence,
        ...(vantage.quorumProven && !vantage.apiserver.reachesEtcd ? [unseen[0]?.why ?? ''] : []),
      ].filter(Boolean),
      steps: stepsOf(unseen, vantage),
      unknowns: vantage.cannotTell
        ? [
            vantage.apiserver.available
              ? 'whether etcd has quorum: no member answered, and the apiserver could not tell either'
              : 'whether etcd has quorum: no member answered, and no second vantage point (kubernetes) is configured',
          ]
        : [],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)}`] };
  },
};

function summaryOf(cluster: string, unseen: UnseenMember[], vantage: Vantage): string {
  const names = unseen.map((u) => u.member.target.name);
  const how = howUnreachable(unseen);
  if (vantage.cannotTell && vantage.ownStall) {
    return `No etcd member of ${cluster} answered etcd-doctor in time, but ${vantage.ownStall}: no verdict on the cluster; run it again when etcd-doctor is less busy`;
  }
  if (vantage.cannotTell) {
    return `No etcd member of ${cluster} answers etcd-doctor (${how}). etcd-doctor cannot tell quorum loss from a network problem between itself and etcd`;
  }
  const who = vantage.blind
    ? `No etcd member of ${cluster} answers`
    : `${formatList(names)} ${names.length === 1 ? 'does' : 'do'} not answer`;
  const because = vantage.apiserver.reachesEtcd ? 'the apiserver still reaches etcd' : unseen[0]?.why;
  return `${who} etcd-doctor (${how}), but ${because}: the path from etcd-doctor to etcd fails (network, firewall or wrong URLs), not etcd`;
}

/** `connection refused on all 3`, `no answer from etcd-2`. */
function howUnreachable(unseen: UnseenMember[]): string {
  const kinds = new Set(unseen.map((u) => u.access?.kind ?? 'unknown'));
  const count = unseen.length === 1 ? 'its client URL' : `all ${plural(unseen.length, 'client URL')}`;
  if (kinds.size === 1 && kinds.has('refused')) return `connection refused on ${count}`;
  if (kinds.size === 1 && (kinds.has('no-answer') || kinds.has('connect-timeout')))
    return `no answer on ${count}`;
  return 'connections fail or time out';
}

function failureText(u: UnseenMember): string {
  if (u.access) return `${u.access.reason} (as seen from etcd-doctor)`;
  const status = u.member.status;
  return status.ok ? 'answers' : status.failure.message;
}

function stepsOf(unseen: UnseenMember[], vantage: Vantage): RemediationStep[] {
  const target = unseen[0]?.member.target.endpoint ?? '<client URL>';
  const host = (() => {
    try {
      const url = new URL(target);
      return `${url.hostname} ${url.port}`;
    } catch {
      return target;
    }
  })();
  const path = {
    text: `Check the path from etcd-doctor's host to the etcd client port: \`nc -zv ${host}\`, firewalls and security groups in between`,
  };
  if (vantage.cannotTell && vantage.ownStall) {
    return [
      { text: 'Run the check again when etcd-doctor is less busy', action: 'rerun' },
      {
        text: 'Give the worker more CPU, or more worker processes on the same Redis; a digest can also run fewer clusters at once (digest.concurrency)',
      },
    ];
  }
  if (vantage.cannotTell) {
    return [
      {
        text: `Ask etcd from a control-plane node: \`etcdctl endpoint health --endpoints=${unseen.map((u) => u.member.target.endpoint).join(',')}\` (with the etcd client certificate)`,
      },
      {
        text: "Give etcd-doctor this cluster's kubeconfig (`kubernetes` in its config) so it can ask the apiserver: a second vantage point",
      },
      path,
    ];
  }
  return [
    path,
    {
      text: "Compare the configured endpoints with the etcd pods' --advertise-client-urls (kubectl -n kube-system get pod -l component=etcd -o yaml)",
    },
    { text: 'Do not restore from a snapshot or remove members: etcd itself is serving' },
  ];
}
