import { createHttpGet } from '../clients/http.js';
import { loadEtcdTls } from '../clients/etcd-clients.js';
import type { ConfigFile } from '../config/schema.js';
import type { DiagnosisReport } from '../contracts/report-json.js';
import { type Doctor, diagnoseWithEvidence } from '../doctor.js';
import { mapConcurrent } from '../map-concurrent.js';
import type { Evidence } from '../probes/evidence.js';
import { cutText } from '../untrusted-text.js';
import { judgeUpgrade, type UpgradeCheckJson, type UpgradeInput, type V2Answer } from './upgrade-check.js';
import { parseTarget } from './upgrade-rules.js';

export { parseTarget };

/** A v2 GET is a local read of the member's store: 3 s is long. */
const V2_TIMEOUT_MS = 3000;

export interface UpgradeCheckDeps {
  doctor: Pick<Doctor, 'run' | 'cluster'>;
  config: ConfigFile;
  readFileBuffer: (path: string) => Promise<Buffer>;
  now?: () => number;
}

/**
 * Runs a diagnosis of the cluster (versions, learners, pod specs, Kubernetes' version, the
 * backups), asks each member's v2 API what it holds, and judges the upgrade. Undefined when no
 * member answered: nothing to judge (exit 3).
 */
export async function checkUpgrade(
  deps: UpgradeCheckDeps,
  clusterName: string,
  targetText: string,
  signal?: AbortSignal,
): Promise<
  { result: UpgradeCheckJson; report: DiagnosisReport } | { report: DiagnosisReport; result?: undefined }
> {
  const target = parseTarget(targetText);
  const { cluster, report, evidence } = await diagnoseWithEvidence(deps.doctor, clusterName, signal);
  if (!report.members.some((m) => m.version)) return { report };
  const tls = await loadEtcdTls(cluster, { readFileBuffer: deps.readFileBuffer });
  const v2 = await askV2(
    report.members.filter((m) => m.reachable).map((m) => ({ name: m.name, endpoint: m.endpoint })),
    tls,
  );
  const input = inputOf(clusterName, target, report, evidence, v2, deps.now?.() ?? Date.now());
  return { result: judgeUpgrade(input), report };
}

function inputOf(
  cluster: string,
  target: UpgradeInput['target'],
  report: DiagnosisReport,
  evidence: Evidence | undefined,
  v2: V2Answer[],
  now: number,
): UpgradeInput {
  const k = evidence?.kubernetes?.ok ? evidence.kubernetes.data : undefined;
  const pods = k?.etcdPods.ok ? k.etcdPods.data : undefined;
  const podOf = (name: string) => pods?.find((p) => p.memberName === name || p.node === name);
  const input: UpgradeInput = {
    cluster,
    target,
    members: report.members.map((m) => {
      const dataDir = podOf(m.name)?.dataDir;
      return {
        name: m.name,
        version: m.version,
        isLearner: m.isLearner,
        ...(dataDir ? { dataDir } : {}),
        ...(m.downgrade ? { downgrade: m.downgrade } : {}),
      };
    }),
    v2,
  };
  if (pods?.length)
    input.podFlags = pods.map((p) => ({
      member: p.memberName ?? p.node ?? p.pod,
      flags: new Map(Object.entries(p.upgradeFlags ?? {})),
    }));
  const b = report.backups;
  if (b) {
    const good = b.newestGood;
    input.backup = {
      file: good?.file ?? null,
      ageHours: good ? (now - Date.parse(good.modifiedAt)) / 3_600_000 : null,
      maxAgeHours: b.maxAgeHours,
    };
  }
  if (k) {
    const latency = k.apiserver.ok && k.apiserver.data.latency.ok ? k.apiserver.data.latency.data : undefined;
    input.kubernetes = { distribution: k.distribution, gitVersion: latency?.gitVersion };
  }
  return input;
}

/**
 * `GET /v2/keys/` on each member: 404 means the v2 API is off (3.4 and 3.5 without --enable-v2);
 * 200 lists the v2 store's top-level nodes (membership lives outside the keys space, so any node is
 * custom content).
 */
async function askV2(
  members: Array<{ name: string; endpoint: string }>,
  tls: Awaited<ReturnType<typeof loadEtcdTls>>,
): Promise<V2Answer[]> {
  const http = createHttpGet(tls);
  try {
    return await mapConcurrent(members, 4, async (m): Promise<V2Answer> => {
      try {
        const res = await http.get(
          `${m.endpoint.replace(/\/$/, '')}/v2/keys/`,
          AbortSignal.timeout(V2_TIMEOUT_MS),
        );
        if (res.status === 404) return { member: m.name, state: 'off' };
        if (res.status !== 200) return { member: m.name, state: 'error', error: `HTTP ${res.status}` };
        return { member: m.name, state: 'keys', keys: topLevelNodes(res.body) };
      } catch (err) {
        return { member: m.name, state: 'error', error: cutText(String((err as Error).message ?? err), 120) };
      }
    });
  } finally {
    await http.close();
  }
}

function topLevelNodes(body: string): number {
  try {
    const parsed = JSON.parse(body) as { node?: { nodes?: unknown[] } };
    return Array.isArray(parsed.node?.nodes) ? parsed.node.nodes.length : 0;
  } catch {
    return 0;
  }
}
