import { formatList } from '../../format.js';
import type { Finding } from '../finding.js';
import type { Rule } from '../rule.js';
import { assessVantage, type UnseenMember } from '../vantage.js';

/**
 * etcd-doctor's own configuration or credentials stop it from checking members: a TLS handshake
 * refused for want of a client certificate, a CA we do not trust, a certificate for another name,
 * http:// against a TLS port (or the reverse), a host name that does not resolve. The members
 * are unknown, not down; the fix is on our side, in one line per member (probes/access-problem.ts).
 */
export const noAccessRule: Rule = {
  name: 'no-access',
  live: 'an access check from etcd-doctor',
  cause: 'no-access',
  needs: [],
  rank: 90,
  scope: 'vantage',
  evaluate(evidence, ctx) {
    const vantage = ctx.vantage ?? assessVantage(evidence);
    const blocked = vantage.unseen.filter((u) => u.reason === 'no-access');
    const explain = [`${blocked.length} members refused etcd-doctor's own access (TLS, URL or DNS)`];
    if (blocked.length === 0) return { explain };
    const names = blocked.map((u) => u.member.target.name);
    const lines = groupedLines(blocked);
    const all = vantage.blind;
    const finding: Finding = {
      cause: 'no-access',
      severity: 'warning',
      members: names,
      nodes: [],
      summary: all
        ? `etcd-doctor could not check ${evidence.cluster}: ${lines[0]}${lines.length > 1 ? ` (and ${lines.length - 1} more)` : ''}`
        : `etcd-doctor could not check ${formatList(names)}, so ${names.length === 1 ? 'it is' : 'they are'} left out of the verdict: ${lines[0]}`,
      evidence: [
        ...lines,
        ...(all
          ? ['this is about our access, not the cluster: no member is known to be down']
          : [`the verdict covers only the members etcd-doctor could check`]),
      ],
      steps: [...new Set(blocked.map((u) => u.access?.fix ?? ''))]
        .filter(Boolean)
        .map((text) => ({ text: capitalise(text) })),
      unknowns: [`health, leader, db size and latency of ${formatList(names)}`],
    };
    return { finding, explain: [...explain, `fired: ${formatList(names)}`] };
  },
};

/**
 * One line per distinct problem, naming its members: `etcd-1: the server requires a client
 * certificate: set clusters[0].etcd.tls.certFile and keyFile` (`etcd-1, etcd-2 and etcd-3: ...`).
 */
export function groupedLines(unseen: UnseenMember[]): string[] {
  const groups = new Map<string, string[]>();
  for (const u of unseen) {
    const text = `${u.access?.reason ?? u.why}${u.access ? `: ${u.access.fix}` : ''}`;
    groups.set(text, [...(groups.get(text) ?? []), u.member.target.name]);
  }
  return [...groups.entries()].map(([text, names]) => `${formatList(names)}: ${text}`);
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
