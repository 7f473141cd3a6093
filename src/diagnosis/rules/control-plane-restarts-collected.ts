import { formatList } from '../../format.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule } from '../rule.js';
import { RENEW_DEADLINE_S, RESTARTS_MIN } from './control-plane-restarts.js';
import { countIn, kubernetesOf, scansOf } from '../support/kubernetes.js';
import { formatSpan } from '../support/logs.js';

const LEASE_HOLDERS = ['kube-controller-manager', 'kube-scheduler'] as const;

/**
 * F6 from the logs alone, for collected evidence without Pod objects (a pasted controller-manager
 * or scheduler log): each `leaderelection lost` is one exit, by design (K8S controllermanager.go
 * OnStoppedLeading). With Pod objects, control-plane-restarts counts the restarts instead.
 */
export const controlPlaneRestartsCollectedRule: Rule = {
  name: 'control-plane-restarts-logs',
  cause: 'control-plane-restarts',
  needs: ['kubernetes'],
  rank: 60,
  evaluate(evidence) {
    const k = kubernetesOf(evidence);
    const lost = LEASE_HOLDERS.map((component) => {
      const scans = scansOf(k, component);
      const stat = countIn(scans, (s) => s.leaderElectionLost);
      const first = scans
        .map((s) => s.signals.leaderElectionLost.firstSeenAt)
        .filter(Boolean)
        .sort()[0];
      const last = scans
        .map((s) => s.signals.leaderElectionLost.lastSeenAt)
        .filter(Boolean)
        .sort()
        .at(-1);
      const renew = countIn(scans, (s) => s.leaseRenewFailed).count;
      const timedOut = countIn(scans, (s) => s.requestTimedOut).count;
      return { component, count: stat.count, example: stat.example, first, last, renew, timedOut };
    }).filter((l) => l.count > 0);
    const explain = [
      `leaderelection lost: ${lost.map((l) => `${l.component} ${l.count}`).join(', ') || 'none'}`,
    ];
    if (k?.pods.ok)
      return { explain: [...explain, 'Pod objects were collected: control-plane-restarts decides'] };
    if (lost.length === 0) return { explain };
    const total = lost.reduce((n, l) => n + l.count, 0);
    const severity: Severity = total >= RESTARTS_MIN ? 'critical' : 'warning';
    const names = lost.map((l) => l.component);
    const finding: Finding = {
      cause: 'control-plane-restarts',
      severity,
      members: [],
      nodes: [],
      summary: `${formatList(names)} lost ${names.length === 1 ? 'its' : 'their'} leader-election lease ${total} ${total === 1 ? 'time' : 'times'} (logs: leaderelection lost) and exit${names.length === 1 ? 's' : ''} each time: ${names.length === 1 ? 'it' : 'they'} could not renew within ${RENEW_DEADLINE_S} s`,
      evidence: lost.flatMap((l) => [
        `${l.component}: ${l.count} × leaderelection lost${l.first ? `, ${formatSpan(l.first, l.last)}` : ''}${l.renew ? `; ${l.renew} × failed to renew lease` : ''}${l.timedOut ? `; ${l.timedOut} × etcdserver: request timed out` : ''}`,
        ...(l.example ? [`e.g. ${l.example}`] : []),
      ]),
      steps: [
        {
          text: `Do not restart ${formatList(names)}: exiting on a lost lease is the designed response; fix what slows etcd and the apiserver first (KB R10)`,
        },
      ],
      unknowns: ['only logs: no Pod objects were collected, so restart counts are those the logs show'],
    };
    return { finding, explain: [...explain, `fired: ${total} exits`] };
  },
};
