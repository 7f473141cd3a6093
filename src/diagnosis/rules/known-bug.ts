import {
  compareVersions,
  KNOWN_BUGS_DATE,
  kubeadmEtcdFloor,
  parseEtcdVersion,
  type KnownBugHit,
  type KnownBugKind,
  knownBugsOf,
  patchToReach,
} from '../../etcd/known-bugs.js';
import { formatList } from '../../format.js';
import type { Evidence } from '../../probes/evidence.js';
import type { Finding, Severity } from '../finding.js';
import type { Rule, RuleResult } from '../rule.js';
import { clusterSize } from '../support/members.js';

/*
 * The release a member runs has a bug etcd's maintainers fixed in a later patch: data loss,
 * corruption or a security hole (src/etcd/known-bugs.ts, from etcd's CHANGELOGs and advisories).
 * It is a risk of the software, not a fault now: info for security fixes, warning when writes can
 * be lost or members can disagree; never critical, and it never sets the status (LATENT_CAUSES).
 * The step is a rolling patch upgrade within the minor, one member at a time.
 */

interface VersionGroup {
  version: string;
  members: string[];
  hits: KnownBugHit[];
}

export const knownBugRule: Rule = {
  name: 'known-bug',
  cause: 'known-bug',
  needs: ['status'],
  rank: 99,
  evaluate(evidence): RuleResult {
    const groups = versionGroups(evidence);
    const explain = groups.length
      ? groups.map((g) => `${g.version} on ${formatList(g.members)}: ${g.hits.length} known bug(s)`)
      : [`no member runs a release with a known bug (table of ${KNOWN_BUGS_DATE})`];
    const affected = groups.filter((g) => g.hits.length > 0);
    const unsupported = unsupportedByKubeadm(evidence, groups);
    if (affected.length === 0 && !unsupported) return { explain };
    const finding = affected.length ? findingOf(affected) : emptyFinding();
    if (unsupported) addUnsupported(finding, unsupported);
    return { finding, explain };
  },
};

interface Unsupported {
  members: string[];
  versions: string[];
  kubernetesMinor: number;
  floor: string;
  source: string;
}

/** kubeadm whose Kubernetes no longer supports the etcd some members run (kubeadm 1.36: below 3.6.0). */
function unsupportedByKubeadm(evidence: Evidence, groups: VersionGroup[]): Unsupported | undefined {
  const k = evidence.kubernetes?.ok ? evidence.kubernetes.data : undefined;
  if (k?.distribution !== 'kubeadm') return undefined;
  const api = k.apiserver.ok && k.apiserver.data.latency.ok ? k.apiserver.data.latency.data : undefined;
  const floor = kubeadmEtcdFloor(api?.gitVersion);
  const min = floor ? parseEtcdVersion(floor.etcd) : undefined;
  if (!floor || !min) return undefined;
  const below = groups.filter((g) => {
    const v = parseEtcdVersion(g.version);
    return v && compareVersions(v, min) < 0;
  });
  if (below.length === 0) return undefined;
  return {
    members: below.flatMap((g) => g.members),
    versions: below.map((g) => g.version),
    kubernetesMinor: floor.kubernetesMinor,
    floor: floor.etcd,
    source: floor.source,
  };
}

function emptyFinding(): Finding {
  return {
    cause: 'known-bug',
    severity: 'info',
    members: [],
    nodes: [],
    summary: '',
    evidence: [],
    steps: [],
    unknowns: [],
  };
}

/** A version its Kubernetes no longer supports: a warning, named first. */
function addUnsupported(finding: Finding, u: Unsupported): void {
  const line = `${formatList(u.members)} run${u.members.length === 1 ? 's' : ''} etcd ${formatList(u.versions)}, which Kubernetes 1.${u.kubernetesMinor} (kubeadm) no longer supports (below ${u.floor})`;
  finding.severity = 'warning';
  finding.members = [...new Set([...u.members, ...finding.members])];
  finding.summary = finding.summary ? `${line}; ${finding.summary}` : line;
  finding.evidence.unshift(`kubeadm 1.${u.kubernetesMinor} supports etcd ${u.floor} or later: ${u.source}`);
  finding.steps.unshift({
    text: `Upgrade etcd to ${u.floor.split('.').slice(0, 2).join('.')}: etcd-doctor upgrade-check <cluster> --to ${u.floor.split('.').slice(0, 2).join('.')} says what blocks it`,
  });
}

/** Members grouped by the version their Status reports. */
function versionGroups(evidence: Evidence): VersionGroup[] {
  const memberCount = clusterSize(evidence);
  const byVersion = new Map<string, string[]>();
  for (const m of evidence.members) {
    if (!m.status.ok) continue;
    const list = byVersion.get(m.status.data.version) ?? [];
    list.push(m.target.name);
    byVersion.set(m.status.data.version, list);
  }
  return [...byVersion].map(([version, members]) => ({
    version,
    members,
    hits: knownBugsOf(version, { memberCount }),
  }));
}

function severityOf(hits: readonly KnownBugHit[]): Severity {
  return hits.some((h) => h.bug.kind !== 'security') ? 'warning' : 'info';
}

/** `1 corruption bug and 4 security fixes`: what the release lacks, worst first. */
function countWords(hits: readonly KnownBugHit[]): string {
  const count = (kind: KnownBugKind) => hits.filter((h) => h.bug.kind === kind).length;
  const parts: string[] = [];
  for (const kind of ['data-loss', 'corruption'] as const) {
    const n = count(kind);
    if (n) parts.push(`${n} known ${kind} bug${n > 1 ? 's' : ''}`);
  }
  const s = count('security');
  if (s) parts.push(`${s} security fix${s > 1 ? 'es' : ''}`);
  return formatList(parts);
}

function groupSummary(g: VersionGroup): string {
  const reach = patchToReach(g.hits) ?? 'the newest patch';
  return `${formatList(g.members)} run${g.members.length === 1 ? 's' : ''} etcd ${g.version}, missing ${countWords(g.hits)}: upgrade to ${reach} or later`;
}

function findingOf(groups: VersionGroup[]): Finding {
  const all = groups.flatMap((g) => g.hits);
  return {
    cause: 'known-bug',
    severity: severityOf(all),
    members: groups.flatMap((g) => g.members),
    nodes: [],
    summary: `${groups.map(groupSummary).join('; ')} (etcd CHANGELOGs and advisories as of ${KNOWN_BUGS_DATE})`,
    evidence: groups.flatMap((g) =>
      g.hits.map(
        (h) =>
          `${formatList(g.members)} (${g.version}): ${h.bug.id} [${h.bug.kind}] ${h.bug.title}; fixed in ${h.range.fixed}: ${h.bug.link}`,
      ),
    ),
    steps: groups.map((g) => ({
      text: `Upgrade ${formatList(g.members)} to etcd ${patchToReach(g.hits)} or later, one member at a time, checking etcd-doctor health between members (a patch upgrade within ${minorWord(g.version)})`,
    })),
    unknowns: [],
  };
}

function minorWord(version: string): string {
  const m = /^v?(\d+\.\d+)/.exec(version);
  return m?.[1] ?? 'a minor';
}
