/**
 * Offline collections built from the Kubernetes scenarios (test/fixtures/kube/<scenario>/), in the
 * layouts people hand in: an `oc adm must-gather` tree (directory and .tar.gz) and a `kubectl
 * cluster-info dump` (its --output-directory tree and its stdout). Every address comes from the
 * scenarios, all in 127.0.0.0/8; the logs are the scenarios' etcd and control-plane logs.
 *
 * Paths follow openshift/oc pkg/cli/admin/inspect (namespace.go, pod.go, util.go) and
 * openshift/must-gather collection-scripts/gather_etcd; the dump follows kubectl
 * pkg/cmd/clusterinfo/clusterinfo_dump.go.
 */
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { createGzip } from 'node:zlib';
import tarStream from 'tar-stream';
import { stringify as toYaml } from 'yaml';
import { type KubeFixture, type KubeObject, loadKubeFixture } from '../kube/kube-fixtures.js';

export interface FixtureFile {
  path: string;
  content?: string | Buffer;
  /** Raw tar entries for the safety tests: links and odd names exactly as given. */
  type?: 'file' | 'directory' | 'symlink' | 'link';
  linkname?: string;
}

/** The image folder `oc adm must-gather` names after the gather image. */
export const MG_IMAGE_DIR = 'quay-io-openshift-release-dev-ocp-v4-0-art-dev-sha256-4f1c2a9e';
export const MG_ROOT = `must-gather.local.5012345678901234567/${MG_IMAGE_DIR}`;

interface ContainerLog {
  namespace: string;
  pod: string;
  container: string;
  previous: boolean;
  text: string;
}

/** Every container log a scenario has, for its pods' containers (init containers first). */
export function containerLogs(fixture: KubeFixture): ContainerLog[] {
  const out: ContainerLog[] = [];
  for (const pod of fixture.objects.pods) {
    const { namespace = 'default', name } = pod.metadata;
    for (const container of containerNames(pod)) {
      for (const previous of [false, true]) {
        const text = fixture.readText(
          `logs/${namespace}/${name}/${container}${previous ? '.previous' : ''}.log`,
        );
        if (text !== undefined) out.push({ namespace, pod: name, container, previous, text });
      }
    }
  }
  return out;
}

function containerNames(pod: KubeObject): string[] {
  const spec = (pod.spec ?? {}) as {
    initContainers?: Array<{ name: string }>;
    containers?: Array<{ name: string }>;
  };
  return [...(spec.initContainers ?? []), ...(spec.containers ?? [])].map((c) => c.name);
}

/** `oc adm inspect` gathers logs with `--timestamps`: each line gets the kubelet's RFC 3339 (ns) time. */
export function withTimestamps(text: string, fallbackMs: number): string {
  let last = fallbackMs;
  return text
    .split('\n')
    .map((line) => {
      if (line === '') return line;
      last = lineTimeMs(line) ?? last;
      return `${new Date(last).toISOString().replace(/\.(\d{3})Z$/, '.$1000000Z')} ${line}`;
    })
    .join('\n');
}

function lineTimeMs(line: string): number | undefined {
  const zap = /"ts":"([^"]+)"/.exec(line)?.[1];
  const capnslog = /^(\d{4}-\d\d-\d\d) (\d\d:\d\d:\d\d\.\d+)/.exec(line);
  const parsed = zap ? Date.parse(zap) : capnslog ? Date.parse(`${capnslog[1]}T${capnslog[2]}Z`) : Number.NaN;
  return Number.isNaN(parsed) ? undefined : parsed;
}

/** The files of a must-gather of the scenario, under MG_ROOT. */
export function mustGatherFiles(name: string): FixtureFile[] {
  const fixture = loadKubeFixture(name);
  const files: FixtureFile[] = [
    { path: 'timestamp', content: `${fixture.scenario.recordedAt} +0000 UTC\n` },
    { path: 'version', content: 'openshift/must-gather\n4.14.0\n' },
    ...namespaceFiles(fixture),
    ...fixture.objects.nodes.map((node) => ({
      path: `cluster-scoped-resources/core/nodes/${node.metadata.name}.yaml`,
      content: toYaml(node),
    })),
    ...etcdInfoFiles(fixture),
  ];
  const operator = fixture.readText('operator/etcds-cluster.json');
  if (operator) {
    files.push({
      path: 'cluster-scoped-resources/operator.openshift.io/etcds/cluster.yaml',
      content: toYaml(JSON.parse(operator)),
    });
  }
  for (const log of containerLogs(fixture)) {
    const dir = `namespaces/${log.namespace}/pods/${log.pod}/${log.container}/${log.container}/logs`;
    files.push({
      path: `${dir}/${log.previous ? 'previous' : 'current'}.log`,
      content: withTimestamps(log.text, fixture.recordedAtMs),
    });
  }
  return files.map((f) => ({ ...f, path: `${MG_ROOT}/${f.path}` }));
}

function namespaceFiles(fixture: KubeFixture): FixtureFile[] {
  const files: FixtureFile[] = [];
  const byNamespace = (items: KubeObject[], ns: string) => items.filter((o) => o.metadata.namespace === ns);
  for (const ns of namespacesOf(fixture)) {
    const pods = byNamespace(fixture.objects.pods, ns);
    files.push(
      {
        path: `namespaces/${ns}/${ns}.yaml`,
        content: toYaml({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } }),
      },
      { path: `namespaces/${ns}/core/pods.yaml`, content: toYaml(list('PodList', pods, true)) },
      {
        path: `namespaces/${ns}/core/events.yaml`,
        content: toYaml(list('EventList', byNamespace(fixture.objects.events, ns), true)),
      },
      { path: `namespaces/${ns}/core/configmaps.yaml`, content: toYaml(list('ConfigMapList', [], true)) },
      ...pods.map((pod) => ({
        path: `namespaces/${ns}/pods/${pod.metadata.name}/${pod.metadata.name}.yaml`,
        content: toYaml(pod),
      })),
      ...byNamespace(fixture.objects.leases, ns).map((lease) => ({
        path: `namespaces/${ns}/coordination.k8s.io/leases/${lease.metadata.name}.yaml`,
        content: toYaml(lease),
      })),
    );
  }
  return files;
}

function namespacesOf(fixture: KubeFixture): string[] {
  const all = [...fixture.objects.pods, ...fixture.objects.events, ...fixture.objects.leases];
  return [...new Set(all.map((o) => o.metadata.namespace).filter((ns): ns is string => !!ns))].sort();
}

/** A List as kubectl prints it; `typed` Lists (the dump's) omit each item's kind and apiVersion. */
function list(kind: string, items: KubeObject[], keepItemKinds: boolean): Record<string, unknown> {
  const shown = keepItemKinds ? items : items.map(({ kind: _k, apiVersion: _a, ...rest }) => rest);
  return { kind, apiVersion: 'v1', metadata: { resourceVersion: '40581122' }, items: shown };
}

/**
 * A member's uint64 ID as its own log announces it (`"local-member-id":"8e9e05c52164694d"`, in
 * the scenario or its base), so etcd_info and the logs agree; a hash of the name otherwise. Real
 * IDs are above 2^53, and etcdctl -w json prints them as bare numbers.
 */
export function memberId(fixture: KubeFixture, node: string): bigint {
  for (
    let f: KubeFixture | undefined = fixture;
    f;
    f = f.scenario.base ? loadKubeFixture(f.scenario.base) : undefined
  ) {
    for (const pod of f.objects.pods.filter((p) => p.metadata.name === `etcd-${node}`)) {
      const log = f.readText(`logs/${pod.metadata.namespace}/${pod.metadata.name}/etcd.log`) ?? '';
      const hex = /"local-member-id":"([0-9a-f]{16})"/.exec(log)?.[1];
      if (hex) return BigInt(`0x${hex}`);
    }
  }
  return BigInt(`0x${createHash('sha256').update(node).digest('hex').slice(0, 16)}`) | (1n << 63n);
}

interface EtcdMember {
  name: string;
  ip: string;
}

/** The members etcd knows: from the base scenario's pods (a member whose static pod vanished is still one). */
function etcdMembers(fixture: KubeFixture): EtcdMember[] {
  let root = fixture;
  while (root.scenario.base) root = loadKubeFixture(root.scenario.base);
  return root.objects.pods
    .filter(
      (p) =>
        /^etcd-/.test(p.metadata.name) &&
        (p.metadata.labels as Record<string, string>)?.component !== 'guard',
    )
    .filter((p) => !p.metadata.name.includes('guard'))
    .map((p) => ({
      name: String((p.spec as { nodeName?: string }).nodeName ?? p.metadata.name.replace(/^etcd-/, '')),
      ip: String(
        (p.status as { hostIP?: string; podIP?: string }).hostIP ?? (p.status as { podIP?: string }).podIP,
      ),
    }));
}

/** `etcdctl ... -w json` as gather_etcd writes it; IDs as bare uint64 numbers (beyond JSON's safe range). */
export function etcdInfoFiles(fixture: KubeFixture): FixtureFile[] {
  const members = etcdMembers(fixture);
  const first = members[0];
  if (!first) return [];
  const id = (name: string) => memberId(fixture, name);
  const clusterId = 0xcdf818194e3a8c32n;
  const header = `{"cluster_id":${clusterId},"member_id":${id(first.name)},"raft_term":7}`;
  const memberList = members.map(
    (m) =>
      `{"ID":${id(m.name)},"name":"${m.name}","peerURLs":["https://${m.ip}:2380"],"clientURLs":["https://${m.ip}:2379"]}`,
  );
  const status = members.map(
    (m, i) =>
      `{"Endpoint":"https://${m.ip}:2379","Status":{"header":{"cluster_id":${clusterId},"member_id":${id(m.name)},"revision":40581522,"raft_term":7},"version":"3.5.9","dbSize":191234048,"leader":${id(first.name)},"raftIndex":${51234567 + i},"raftTerm":7,"raftAppliedIndex":${51234567 + i},"dbSizeInUse":181310464}}`,
  );
  const health = members.map((m) => `{"endpoint":"https://${m.ip}:2379","health":true,"took":"9.27ms"}`);
  return [
    {
      path: 'etcd_info/member_list.json',
      content: `{"header":${header},"members":[${memberList.join(',')}]}\n`,
    },
    { path: 'etcd_info/endpoint_status.json', content: `[${status.join(',')}]\n` },
    { path: 'etcd_info/endpoint_health.json', content: `[${health.join(',')}]\n` },
    { path: 'etcd_info/alarm_list.json', content: `{"header":${header}}\n` },
  ];
}

/** The Lists the dump prints per namespace, in kubectl's order (pods last, then the logs). */
const DUMP_LISTS = [
  ['events', 'EventList'],
  ['replication-controllers', 'ReplicationControllerList'],
  ['services', 'ServiceList'],
  ['daemonsets', 'DaemonSetList'],
  ['deployments', 'DeploymentList'],
  ['replicasets', 'ReplicaSetList'],
  ['pods', 'PodList'],
] as const;

/** kubectl's JSON printer: Go's MarshalIndent with four spaces. */
const printJson = (value: unknown) => `${JSON.stringify(value, null, 4)}\n`;

/** One pod's `logs.txt`: each container between START and END markers, the log as kubectl got it. */
export function podLogSections(fixture: KubeFixture, pod: KubeObject): string {
  const { namespace = 'default', name } = pod.metadata;
  return containerNames(pod)
    .map((c) => {
      const text = fixture.readText(`logs/${namespace}/${name}/${c}.log`) ?? '';
      return `==== START logs for container ${c} of pod ${namespace}/${name} ====\n${text}==== END logs for container ${c} of pod ${namespace}/${name} ====\n`;
    })
    .join('');
}

/** The `--output-directory` tree of the scenario, at the top of the given folder. */
export function clusterInfoDumpFiles(name: string): FixtureFile[] {
  const fixture = loadKubeFixture(name);
  const files: FixtureFile[] = [
    { path: 'nodes.json', content: printJson(list('NodeList', fixture.objects.nodes, false)) },
  ];
  for (const ns of namespacesOf(fixture)) {
    for (const [file, kind] of DUMP_LISTS)
      files.push({ path: `${ns}/${file}.json`, content: printJson(dumpList(fixture, ns, kind)) });
    for (const pod of fixture.objects.pods.filter((p) => p.metadata.namespace === ns)) {
      files.push({ path: `${ns}/${pod.metadata.name}/logs.txt`, content: podLogSections(fixture, pod) });
    }
  }
  return files;
}

function dumpList(fixture: KubeFixture, ns: string, kind: string): Record<string, unknown> {
  const items =
    kind === 'PodList' ? fixture.objects.pods : kind === 'EventList' ? fixture.objects.events : [];
  return list(
    kind,
    items.filter((o) => o.metadata.namespace === ns),
    false,
  );
}

/** `kubectl cluster-info dump` with no --output-directory: the same, as one stream on stdout. */
export function clusterInfoDumpStdout(name: string): string {
  const fixture = loadKubeFixture(name);
  const parts = [printJson(list('NodeList', fixture.objects.nodes, false))];
  for (const ns of namespacesOf(fixture)) {
    for (const [, kind] of DUMP_LISTS) parts.push(printJson(dumpList(fixture, ns, kind)));
    for (const pod of fixture.objects.pods.filter((p) => p.metadata.namespace === ns))
      parts.push(podLogSections(fixture, pod));
  }
  return parts.join('');
}

export async function writeTree(dir: string, files: FixtureFile[]): Promise<string> {
  for (const file of files) {
    const path = join(dir, file.path);
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, file.content ?? '');
  }
  return dir;
}

/** A tarball of the files, entry names exactly as given (so a test can write `../../x` or `/etc/x`). */
export async function writeTarball(
  path: string,
  files: FixtureFile[],
  opts: { gzip?: boolean } = {},
): Promise<string> {
  const pack = tarStream.pack();
  const out = createWriteStream(path);
  const done = opts.gzip === false ? pipeline(pack, out) : pipeline(pack, createGzip(), out);
  for (const file of files) {
    const type = file.type ?? 'file';
    const header = {
      name: file.path,
      type,
      mode: type === 'directory' ? 0o755 : 0o644,
      mtime: new Date(1715679000000),
      ...(file.linkname ? { linkname: file.linkname } : {}),
    };
    await new Promise<void>((resolve, reject) =>
      type === 'file'
        ? pack.entry(header, file.content ?? '', (err) => (err ? reject(err) : resolve()))
        : pack.entry(header, (err) => (err ? reject(err) : resolve())),
    );
  }
  pack.finalize();
  await done;
  return path;
}
