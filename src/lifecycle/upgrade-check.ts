import { EXPERIMENTAL_FLAG_GATES, parseGoBool } from '../etcd/feature-gates.js';
import { compareVersions, parseEtcdVersion } from '../etcd/known-bugs.js';
import { quorumOf } from '../etcd/quorum.js';
import { formatList } from '../format.js';
import {
  isKnownMinor,
  KUBEADM_MIN_ETCD,
  type KnownMinor,
  kubeadmEtcdMinor,
  kubernetesMinorOf,
  MINOR_UPGRADES,
  type MinorUpgradeRule,
} from './upgrade-rules.js';

/** One member as the check sees it. */
export interface UpgradeMember {
  name: string;
  /** From Status; null when it did not answer. */
  version: string | null;
  isLearner: boolean;
  /** The data dir its pod spec names, for the offline `etcdutl check v2store`. */
  dataDir?: string;
  /** etcd 3.6+ Status downgradeInfo; absent from 3.4 and 3.5, which do not report it. */
  downgrade?: { enabled: boolean; targetVersion: string };
}

/** What the v2 API answered on one member (`GET /v2/keys/`). */
export interface V2Answer {
  member: string;
  /** `keys`: the API answers and lists this many top-level nodes; `off`: 404, the API is off. */
  state: 'keys' | 'off' | 'error';
  keys?: number;
  error?: string;
}

export interface UpgradeInput {
  cluster: string;
  target: KnownMinor;
  members: UpgradeMember[];
  v2: V2Answer[];
  /** Each pod's etcd flags (Kubernetes); undefined: no pod spec was read. */
  podFlags?: Array<{ member: string; flags: ReadonlyMap<string, string> }>;
  /** The newest verified snapshot; undefined: the cluster has no `backups`. */
  backup?: { file: string | null; ageHours: number | null; maxAgeHours: number };
  kubernetes?: { distribution: string; gitVersion: string | undefined };
}

export interface UpgradeBlocker {
  check: string;
  members: string[];
  summary: string;
  fix: string;
}

/** The JSON of `etcd-doctor upgrade-check --json` (docs/cli.md). */
export interface UpgradeCheckJson {
  cluster: string;
  target: string;
  ready: boolean;
  blockers: UpgradeBlocker[];
  passed: Array<{ check: string; summary: string }>;
  /** Checks whose evidence etcd-doctor could not read: said, never counted as passed. */
  unchecked: Array<{ check: string; summary: string }>;
}

type Verdict =
  | { kind: 'blocker'; blocker: UpgradeBlocker }
  | { kind: 'passed'; check: string; summary: string }
  | { kind: 'unchecked'; check: string; summary: string };

const passed = (check: string, summary: string): Verdict => ({ kind: 'passed', check, summary });
const unchecked = (check: string, summary: string): Verdict => ({ kind: 'unchecked', check, summary });
const blocker = (check: string, members: string[], summary: string, fix: string): Verdict => ({
  kind: 'blocker',
  blocker: { check, members, summary, fix },
});

/** Judges every check; ready when nothing blocks (unchecked ones are listed, never passed). */
export function judgeUpgrade(input: UpgradeInput): UpgradeCheckJson {
  const rule = MINOR_UPGRADES[input.target];
  const verdicts: Verdict[] = [oneMinor(input), mixedVersions(input), ...downgrading(input)];
  if (rule) {
    verdicts.push(patchLevel(input, rule), ...v2Store(input, rule), removedFlags(input, rule));
  }
  verdicts.push(learners(input), failureMargin(input), backup(input), ...kubeadm(input));
  const out: UpgradeCheckJson = {
    cluster: input.cluster,
    target: input.target,
    ready: false,
    blockers: [],
    passed: [],
    unchecked: [],
  };
  for (const v of verdicts) {
    if (v.kind === 'blocker') out.blockers.push(v.blocker);
    else (v.kind === 'passed' ? out.passed : out.unchecked).push({ check: v.check, summary: v.summary });
  }
  out.ready = out.blockers.length === 0;
  return out;
}

function minorOfVersion(version: string | null): string | undefined {
  const v = version ? parseEtcdVersion(version) : undefined;
  return v ? `${v.major}.${v.minor}` : undefined;
}

function previousMinor(target: KnownMinor): string {
  const [major, minor] = target.split('.').map(Number);
  return `${major}.${(minor ?? 0) - 1}`;
}

/** Upgrades go one minor at a time (etcd upgrade policy); 3.4 → 3.6 goes through 3.5. */
function oneMinor(input: UpgradeInput): Verdict {
  const from = previousMinor(input.target);
  const minors = [
    ...new Set(input.members.map((m) => minorOfVersion(m.version)).filter(Boolean)),
  ] as string[];
  if (minors.length === 0)
    return unchecked('one-minor', 'no member answered Status: the versions running are not known');
  const lowest = minors.sort((a, b) => compareMinor(a, b))[0] ?? from;
  if (lowest === from || minors.every((m) => m === input.target))
    return passed('one-minor', `${formatList(minors)} → ${input.target}: one minor at a time`);
  if (compareMinor(lowest, from) < 0) {
    const next = nextMinor(lowest);
    return blocker(
      'one-minor',
      input.members.filter((m) => minorOfVersion(m.version) === lowest).map((m) => m.name),
      `The cluster runs ${lowest}: etcd upgrades one minor at a time, and ${lowest} → ${input.target} skips ${from} (etcd upgrade policy: "upgrades that skip a minor version are not supported and will likely fail")`,
      `Upgrade to ${next} first (its newest patch), then to ${input.target}: etcd-doctor upgrade-check ${input.cluster} --to ${next}`,
    );
  }
  return blocker(
    'one-minor',
    input.members.map((m) => m.name),
    `The cluster already runs ${formatList(minors)}, newer than ${input.target}: this is a downgrade`,
    `A downgrade is its own procedure (etcdctl downgrade validate/enable ${input.target}; etcd downgrade guide), not an upgrade`,
  );
}

function compareMinor(a: string, b: string): number {
  const [am, an] = a.split('.').map(Number);
  const [bm, bn] = b.split('.').map(Number);
  return (am ?? 0) - (bm ?? 0) || (an ?? 0) - (bn ?? 0);
}

function nextMinor(minor: string): string {
  const [major, n] = minor.split('.').map(Number);
  const next = `${major}.${(n ?? 0) + 1}`;
  return isKnownMinor(next) ? next : minor;
}

/** Members on different minors: an upgrade left half-done, or one in progress. */
function mixedVersions(input: UpgradeInput): Verdict {
  const byVersion = new Map<string, string[]>();
  for (const m of input.members)
    if (m.version) byVersion.set(m.version, [...(byVersion.get(m.version) ?? []), m.name]);
  const minors = new Set(input.members.map((m) => minorOfVersion(m.version)).filter(Boolean));
  const list = [...byVersion].map(([v, names]) => `${formatList(names)} on ${v}`).join('; ');
  if (minors.size <= 1)
    return passed(
      'mixed-versions',
      byVersion.size <= 1
        ? `every member runs ${[...byVersion.keys()][0] ?? 'an unknown version'}`
        : `one minor, patches differ: ${list}`,
    );
  return blocker(
    'mixed-versions',
    input.members.map((m) => m.name),
    `Members run different minors (${list}): an upgrade is in progress or was left half-done`,
    'Finish or roll back that upgrade first, so that every member runs the same minor, then check again',
  );
}

/**
 * A downgrade enabled (etcd 3.6+ Status downgradeInfo, rules/downgrade-in-progress.ts) holds the
 * cluster version at its target: an upgrade cannot start until it is finished or cancelled. Only
 * members that report the field are judged (3.4 and 3.5 do not): no verdict without one.
 */
function downgrading(input: UpgradeInput): Verdict[] {
  const reporting = input.members.filter((m) => m.downgrade);
  if (reporting.length === 0) return [];
  const enabled = reporting.filter((m) => m.downgrade?.enabled);
  if (enabled.length === 0)
    return [
      passed(
        'downgrade-in-progress',
        `no downgrade enabled (${formatList(reporting.map((m) => m.name))} report none)`,
      ),
    ];
  const target = enabled[0]?.downgrade?.targetVersion ?? '';
  return [
    blocker(
      'downgrade-in-progress',
      enabled.map((m) => m.name),
      `A downgrade to ${target} is enabled (Status downgradeInfo on ${formatList(enabled.map((m) => m.name))}): the cluster version stays at ${target} until it is finished or cancelled`,
      'Finish the downgrade (every member on its target) or cancel it (etcdctl downgrade cancel), then check again; etcd-doctor diagnose shows where it stands',
    ),
  ];
}

/** Every member at or above the patch the target's guide asks for. */
function patchLevel(input: UpgradeInput, rule: MinorUpgradeRule): Verdict {
  const unknown = input.members.filter((m) => !m.version).map((m) => m.name);
  if (unknown.length)
    return blocker(
      'patch-level',
      unknown,
      `${formatList(unknown)} did not answer Status: ${unknown.length > 1 ? 'their versions are' : 'its version is'} not known`,
      'Bring every member back (etcd-doctor diagnose) before any upgrade: a rolling upgrade restarts each in turn',
    );
  const required = rule.requiredPatch ? parseEtcdVersion(rule.requiredPatch) : undefined;
  if (!required)
    return passed(
      'patch-level',
      `the ${previousMinor(input.target)} → ${input.target} guide names no minimum patch; etcd's upgrade policy asks for the newest ${previousMinor(input.target)} patch first (${rule.guide})`,
    );
  const below = input.members.filter((m) => {
    const v = parseEtcdVersion(m.version ?? '');
    return v && minorOfVersion(m.version) === previousMinor(input.target) && compareVersions(v, required) < 0;
  });
  if (below.length === 0)
    return passed('patch-level', `every member is at ${rule.requiredPatch} or later (${rule.guide})`);
  return blocker(
    'patch-level',
    below.map((m) => m.name),
    `${below.map((m) => `${m.name} runs ${m.version}`).join(', ')}: the ${input.target} upgrade guide asks every ${previousMinor(input.target)} member to run ${rule.requiredPatch} or later first (${rule.guide})`,
    `Upgrade ${formatList(below.map((m) => m.name))} to ${rule.requiredPatch} or later, one member at a time`,
  );
}

/** The v2 store holds no custom data: from the v2 API, the pod flags, and the offline command. */
function v2Store(input: UpgradeInput, rule: MinorUpgradeRule): Verdict[] {
  if (!rule.v2StoreMustBeEmpty) return [];
  const withKeys = input.v2.filter((a) => a.state === 'keys' && (a.keys ?? 0) > 0);
  const enabled = (input.podFlags ?? []).filter((p) => p.flags.get('enable-v2') === 'true');
  const offline = input.members
    .map((m) => `on ${m.name}: etcdutl check v2store --data-dir ${m.dataDir ?? '<its data dir>'}`)
    .join('; ');
  const guide = `${input.target} stops loading the v2 store (CHANGELOG-${input.target}; ${rule.guide}, "V2 Store")`;
  if (withKeys.length)
    return [
      blocker(
        'v2-store',
        withKeys.map((a) => a.member),
        `The v2 API answers with data: ${withKeys.map((a) => `${a.member} lists ${a.keys} top-level v2 key${a.keys === 1 ? '' : 's'}`).join(', ')}; ${guide}`,
        `Migrate or delete the v2 keys (etcd's v2 migration guide), remove --enable-v2, then confirm with the member stopped, ${offline} (it must report no custom content)`,
      ),
    ];
  if (enabled.length)
    return [
      blocker(
        'v2-store',
        enabled.map((p) => p.member),
        `${formatList(enabled.map((p) => p.member))} run${enabled.length === 1 ? 's' : ''} with --enable-v2=true: the v2 store may hold data; ${guide}`,
        `Remove --enable-v2, then with each member stopped: ${offline}`,
      ),
    ];
  const answered = input.v2.filter((a) => a.state !== 'error');
  if (answered.length === 0)
    return [
      unchecked(
        'v2-store',
        `the v2 API could not be asked (${input.v2.map((a) => `${a.member}: ${a.error}`).join('; ') || 'no member'}); run, with each member stopped: ${offline}`,
      ),
    ];
  return [
    passed(
      'v2-store',
      `the v2 API is off or empty on ${formatList(answered.map((a) => a.member))}${input.podFlags ? ' and no pod sets --enable-v2' : ''}${writeOnlyEverywhere(input) ? '; every pod runs --v2-deprecation at write-only or later, and etcd 3.5 refuses to load a v2 snapshot with custom content at that stage (server.go assertNoV2StoreContent)' : ''} (to be sure offline: ${offline})`,
    ),
  ];
}

/** Every pod sets `--v2-deprecation` to `write-only`, `write-only-drop-data` or `gone` (etcd's stages). */
function writeOnlyEverywhere(input: UpgradeInput): boolean {
  const stages = new Set(['write-only', 'write-only-drop-data', 'gone']);
  const pods = input.podFlags ?? [];
  return pods.length > 0 && pods.every((p) => stages.has(p.flags.get('v2-deprecation') ?? ''));
}

/** Flags the target no longer accepts, read from the pod specs. */
function removedFlags(input: UpgradeInput, rule: MinorUpgradeRule): Verdict {
  const names = Object.keys(rule.removedFlags);
  if (names.length === 0)
    return passed('removed-flags', `${input.target} removes no flag etcd-doctor checks`);
  if (!input.podFlags?.length)
    return unchecked(
      'removed-flags',
      `no etcd pod spec was read (no kubernetes: section, or not kubeadm/OpenShift): look in etcd's flags, environment (ETCD_*) and config file for ${names
        .map((n) => `--${n}`)
        .slice(0, 6)
        .join(', ')}${names.length > 6 ? ` and ${names.length - 6} more` : ''}`,
    );
  const hits = input.podFlags.flatMap((p) =>
    [...p.flags.keys()].filter((f) => f in rule.removedFlags).map((flag) => ({ member: p.member, flag })),
  );
  if (hits.length === 0)
    return passed('removed-flags', `no pod sets a flag ${input.target} removes (${names.length} checked)`);
  const flags = [...new Set(hits.map((h) => h.flag))];
  return blocker(
    'removed-flags',
    [...new Set(hits.map((h) => h.member))],
    `${flags.map((f) => `--${f}`).join(', ')} ${flags.length === 1 ? 'is' : 'are'} set and ${input.target} no longer accepts ${flags.length === 1 ? 'it' : 'them'}: etcd ${input.target} would not start`,
    flags.map((f) => replacementOf(f, rule, input.podFlags ?? [])).join('; '),
  );
}

/**
 * What to write instead of a removed flag. An experimental flag 3.6 turned into a feature gate keeps
 * the value the pod gives it (`--experimental-initial-corrupt-check=false` is
 * `--feature-gates=InitialCorruptCheck=false`), merged into a `--feature-gates` the pod already has
 * (etcd/feature-gates.ts, ExperimentalFlagToFeatureMap at v3.6.0).
 */
function replacementOf(
  flag: string,
  rule: MinorUpgradeRule,
  pods: NonNullable<UpgradeInput['podFlags']>,
): string {
  const instead = rule.removedFlags[flag];
  if (!instead) return `remove --${flag}`;
  const gate = EXPERIMENTAL_FLAG_GATES[flag];
  const pod = pods.find((p) => p.flags.has(flag));
  if (!gate || !pod) return `replace --${flag} with ${instead}`;
  const value = parseGoBool(pod.flags.get(flag) || 'true') ?? true;
  const existing = pod.flags.get('feature-gates');
  return existing
    ? `replace --${flag} with ${gate}=${value} added to the pod's --feature-gates: --feature-gates=${existing},${gate}=${value}`
    : `replace --${flag} with --feature-gates=${gate}=${value}`;
}

/** Learners against --max-learners (3.6 refuses to start with more: "too many learner members"). */
function learners(input: UpgradeInput): Verdict {
  const names = input.members.filter((m) => m.isLearner).map((m) => m.name);
  const flag = input.podFlags
    ?.map((p) => p.flags.get('max-learners') ?? p.flags.get('experimental-max-learners'))
    .find((v) => v !== undefined);
  const max = flag !== undefined && /^\d+$/.test(flag) ? Number(flag) : 1;
  if (names.length <= max)
    return passed(
      'learners',
      `${names.length} learner${names.length === 1 ? '' : 's'} (--max-learners ${max})`,
    );
  return blocker(
    'learners',
    names,
    `${names.length} learners and --max-learners is ${max}: ${input.target} refuses to start a member whose membership holds more learners than that`,
    `Promote (etcdctl member promote) or remove learners until at most ${max} remain${flag === undefined ? ', or set --max-learners' : ''}`,
  );
}

/** A rolling upgrade stops one voter at a time: quorum must survive one more member down. */
function failureMargin(input: UpgradeInput): Verdict {
  const voters = input.members.filter((m) => !m.isLearner);
  const up = voters.filter((m) => m.version !== null);
  const quorum = quorumOf(voters.length);
  if (voters.length === 1)
    return passed('failure-margin', 'one voting member: the cluster is unavailable while it restarts');
  if (up.length - 1 >= quorum)
    return passed(
      'failure-margin',
      `${up.length} of ${voters.length} voters answer; quorum ${quorum} survives one restart`,
    );
  const down = voters.filter((m) => m.version === null).map((m) => m.name);
  return blocker(
    'failure-margin',
    down,
    `${up.length} of ${voters.length} voters answer and quorum is ${quorum}: stopping one more for its upgrade loses quorum`,
    `Bring ${formatList(down)} back first (etcd-doctor diagnose ${input.cluster})`,
  );
}

/** A verified snapshot younger than backups.maxAgeHours (the guides: back up before upgrading). */
function backup(input: UpgradeInput): Verdict {
  const b = input.backup;
  if (!b)
    return blocker(
      'backup',
      [],
      'No backup etcd-doctor can verify: the cluster has no backups in its config',
      'Take one (etcdctl snapshot save <file>; etcdutl snapshot status <file>) and add backups: { dir } to the cluster in the config so that it is verified',
    );
  if (b.ageHours !== null && b.ageHours <= b.maxAgeHours)
    return passed('backup', `${b.file} verified, ${b.ageHours.toFixed(1)} h old (limit ${b.maxAgeHours} h)`);
  return blocker(
    'backup',
    [],
    b.ageHours === null
      ? 'No verified snapshot in the backup directory'
      : `The newest verified snapshot, ${b.file}, is ${b.ageHours.toFixed(1)} h old (limit ${b.maxAgeHours} h)`,
    'Take a snapshot now (etcdctl snapshot save) and check it (etcdutl snapshot status) before upgrading',
  );
}

/** With kubeadm: the etcd minor its Kubernetes installs, and the floor kubeadm 1.36 sets. */
function kubeadm(input: UpgradeInput): Verdict[] {
  const k = input.kubernetes;
  if (k?.distribution !== 'kubeadm') return [];
  const minor = kubernetesMinorOf(k.gitVersion);
  if (minor === undefined)
    return [
      unchecked('kubeadm', `kubeadm detected, Kubernetes version unknown (${k.gitVersion ?? 'no /version'})`),
    ];
  const ships = kubeadmEtcdMinor(minor);
  if (!ships) return [unchecked('kubeadm', `Kubernetes 1.${minor}: not in etcd-doctor's kubeadm map`)];
  if (ships === input.target)
    return [
      passed(
        'kubeadm',
        `kubeadm 1.${minor} installs etcd ${ships}: kubeadm upgrade apply moves etcd with Kubernetes`,
      ),
    ];
  const floor = KUBEADM_MIN_ETCD.find((f) => minor >= f.fromKubernetesMinor);
  return [
    blocker(
      'kubeadm',
      [],
      `kubeadm 1.${minor} installs etcd ${ships}, not ${input.target}${floor ? ` (and refuses etcd below ${floor.etcd})` : ''}: an etcd upgraded by hand is put back by the next kubeadm upgrade`,
      compareMinor(ships, input.target) < 0
        ? `Upgrade Kubernetes to a release whose kubeadm installs etcd ${input.target} (kubeadm upgrade apply), which upgrades etcd with it`
        : `Stay on etcd ${ships}, the one kubeadm 1.${minor} installs`,
    ),
  ];
}
