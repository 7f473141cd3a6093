import { noKubernetes } from '../../clients/cluster-reach.js';
import type { V1Job, V1Pod } from '@kubernetes/client-node';
import { z } from 'zod';
import type { KubernetesClients } from '../../clients/kubernetes.js';
import { type ActionContext, type ActionOutcome, defineAction, done, failed, refused } from '../action.js';
import { fioVerdict, parseFioOutput } from '../fio-result.js';
import { quorumGuard, readClusterState } from './cluster-state.js';
import {
  logTail,
  NAMES_NO_NODE,
  nameSuffix,
  namesNode,
  nodeTargetArgs,
  pollUntil,
  RESTRICTED_CONTAINER_SECURITY,
  remediationLabels,
} from './kube-wait.js';

/** A directory of its own on the etcd disk (kubeadm and OpenShift keep etcd's data in /var/lib/etcd). */
export const BENCH_HOST_DIR = '/var/lib/etcd/etcd-doctor-fio';

/** KB R7 (IBMFIO): the fio run etcd's docs recommend; pass if fdatasync p99 < 10 ms. */
export const FIO_ARGS = [
  '--rw=write',
  '--ioengine=sync',
  '--fdatasync=1',
  '--size=22m',
  '--bs=2300',
  '--name=etcd-doctor',
  '--output-format=json',
  '--unlink=1',
];

/** Exit code of the space check when the filesystem is too full (the worker reports it). */
export const LOW_SPACE_EXIT = 6;

/**
 * The init container (busybox sh): clears what an earlier run left in our directory (a run killed
 * hard), then refuses when the filesystem has less than MIN_FREE_KB free. BENCH_DIR is /bench in
 * the pod; tests run it on a temp dir.
 */
export const SPACE_CHECK_SCRIPT = [
  'set -eu',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
  'dir="${BENCH_DIR:-/bench}"',
  'find "$dir" -mindepth 1 -maxdepth 1 -exec rm -rf {} +',
  'free_kb=$(df -Pk "$dir" | awk \'NR==2 {print $4}\')',
  `if [ "$free_kb" -lt "$MIN_FREE_KB" ]; then echo "only $((free_kb / 1024)) MiB free on the etcd filesystem (at least $((MIN_FREE_KB / 1024)) MiB needed); not running fio"; exit ${LOW_SPACE_EXIT}; fi`,
  'echo "$((free_kb / 1024)) MiB free"',
].join('\n');

/**
 * fio's wrapper (sh in the fio image): its test file lives in a run directory that a trap removes
 * on any exit, SIGTERM included, which is what the kubelet sends when the Job's deadline passes or
 * the worker deletes the Job. fio's own --unlink covers the normal end.
 */
export const FIO_WRAPPER_SCRIPT = [
  'set -u',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
  'run="${BENCH_DIR:-/bench}/run-$$"',
  'cleanup() { rm -rf "$run"; }',
  'trap cleanup EXIT',
  'pid=',
  'trap \'[ -n "$pid" ] && kill "$pid" 2>/dev/null; wait; cleanup; exit 143\' TERM INT',
  'mkdir -p "$run"',
  'fio --directory="$run" "$@" & pid=$!',
  'wait "$pid"',
].join('\n');

const argsSchema = z
  .object({ ...nodeTargetArgs, onLeader: z.literal('1').optional() })
  .refine(namesNode, NAMES_NO_NODE);

export function fioJob(opts: {
  name: string;
  namespace: string;
  node: string;
  image: string;
  helperImage: string;
  minFreeBytes: number;
  timeoutSeconds: number;
  planId: string;
}): V1Job {
  const labels = remediationLabels(opts.planId);
  const bench = [{ name: 'bench', mountPath: '/bench' }];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: opts.name, namespace: opts.namespace, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: opts.timeoutSeconds,
      ttlSecondsAfterFinished: 600,
      template: {
        metadata: { labels },
        spec: {
          nodeName: opts.node,
          restartPolicy: 'Never',
          automountServiceAccountToken: false,
          enableServiceLinks: false,
          terminationGracePeriodSeconds: 30,
          tolerations: [{ operator: 'Exists' }],
          initContainers: [
            {
              name: 'check-space',
              image: opts.helperImage,
              command: ['/bin/sh', '-c', SPACE_CHECK_SCRIPT],
              env: [{ name: 'MIN_FREE_KB', value: String(Math.ceil(opts.minFreeBytes / 1024)) }],
              securityContext: RESTRICTED_CONTAINER_SECURITY,
              resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
              volumeMounts: bench,
            },
          ],
          containers: [
            {
              name: 'fio',
              image: opts.image,
              command: ['/bin/sh', '-c', FIO_WRAPPER_SCRIPT, 'fio-wrapper', ...FIO_ARGS],
              securityContext: RESTRICTED_CONTAINER_SECURITY,
              resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '256Mi' } },
              volumeMounts: bench,
            },
          ],
          volumes: [{ name: 'bench', hostPath: { path: BENCH_HOST_DIR, type: 'DirectoryOrCreate' } }],
        },
      },
    },
  };
}

const NO_BENCHMARK_IMAGE =
  'no benchmark image: set remediation.diskBenchmarkImage to an image with fio and sh, pinned by digest (name@sha256:…)';

export const diskBenchmark = defineAction({
  id: 'disk-benchmark',
  label: 'Benchmark the disk',
  access: 'responders',
  sideEffects: [
    `a Job pinned to the node (spec.nodeName) running fio in ${BENCH_HOST_DIR} (22 MiB of 2300-byte writes, each followed by fdatasync; the file is removed, also when the Job times out), deleted afterwards`,
    "load on the etcd disk for up to a minute or two; never on the leader's node unless asked, never on a cluster without failure margin or with little free space",
  ],
  needsConfirmation: true,
  argsSchema,
  unavailable(cluster, settings) {
    if (!cluster.kubernetes) return noKubernetes(cluster.name);
    if (!settings.diskBenchmarkImage) return NO_BENCHMARK_IMAGE;
    return undefined;
  },
  describe(args) {
    const node = args.node ?? args.member ?? '';
    return [
      `Run fio on ${node} in ${BENCH_HOST_DIR}, on etcd's disk: fio ${FIO_ARGS.slice(0, 5).join(' ')} (etcd's recommended test). It adds write load to that disk while it runs.`,
      `It refuses if etcd has no failure margin, if ${node} runs the leader${args.onLeader ? ' (you asked for the leader: it goes ahead there)' : ''}, or if the filesystem has less than 1 GiB free. Then it posts fdatasync p99 and IOPS against the thresholds (< 10 ms etcd FAQ, < 20 ms OpenShift etcd-perf) and deletes the Job.`,
    ];
  },
  async run(args, ctx) {
    const node = (args.node ?? args.member ?? '').toLowerCase();
    const image = ctx.settings.diskBenchmarkImage;
    if (!image) return refused(NO_BENCHMARK_IMAGE);
    const problem = await benchmarkRefusal(node, args.onLeader === '1', ctx);
    if (problem) return problem;
    const namespace = ctx.settings.namespace;
    const name = `etcd-doctor-fio-${nameSuffix(ctx.planId)}`;
    const job = fioJob({
      name,
      namespace,
      node,
      image,
      helperImage: ctx.settings.helperImage,
      minFreeBytes: ctx.settings.benchmarkMinFreeBytes,
      timeoutSeconds: Math.ceil(ctx.settings.benchmarkTimeoutMs / 1000),
      planId: ctx.planId,
    });
    if (ctx.dryRun) return done(`would run Job ${namespace}/${name} (fio) on ${node}`);
    const kube = await ctx.clients.kubernetes();
    await ctx.progress(`running fio on ${node} (Job ${namespace}/${name})…`);
    await ctx.safePoint(`creating Job ${namespace}/${name}`);
    await kube.batch.createNamespacedJob({ namespace, body: job });
    try {
      return await benchmarkResult(kube, namespace, name, node, ctx);
    } finally {
      await kube.batch
        .deleteNamespacedJob({ name, namespace, propagationPolicy: 'Background' })
        .catch(() => undefined);
    }
  },
});

/**
 * KB R2 and R7: the benchmark loads the disk etcd already finds slow, so it runs only where a slow
 * member more costs no quorum, and not under the leader (whose fsyncs every write waits for) unless
 * the responder asked for exactly that.
 */
async function benchmarkRefusal(
  node: string,
  onLeader: boolean,
  ctx: ActionContext,
): Promise<ActionOutcome | undefined> {
  const state = await readClusterState(await ctx.clients.etcd());
  const problem = quorumGuard(state, `benchmark the disk of ${node}`);
  if (problem) return refused(problem);
  if (onLeader) return undefined;
  const target = state.members.filter((m) => m.name.toLowerCase() === node);
  if (target.length === 1 && !target[0]?.isLeader) return undefined;
  const why =
    target.length === 1
      ? `${node} runs the etcd leader, whose fdatasync every write of the cluster waits for`
      : `${node} matches ${target.length ? 'several' : 'no'} etcd member, so it may be the leader's`;
  const anyway = await ctx.followUp('disk-benchmark', { node, onLeader: '1' }, `Benchmark ${node} anyway`);
  return {
    status: 'refused',
    summary: `not benchmarking ${node}: ${why}; press the button to run it there anyway`,
    lines: [],
    buttons: [anyway],
  };
}

async function benchmarkResult(
  kube: KubernetesClients,
  namespace: string,
  name: string,
  node: string,
  ctx: ActionContext,
): Promise<ActionOutcome> {
  const ended = (p: V1Pod) => ['Succeeded', 'Failed'].includes(p.status?.phase ?? '');
  const pods = await pollUntil(
    ctx,
    ctx.settings.benchmarkTimeoutMs,
    () => kube.core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` }),
    (list) => list.items.some(ended),
  );
  const pod = pods.last?.items.find(ended);
  const podName = pod?.metadata?.name;
  const timeoutSeconds = Math.ceil(ctx.settings.benchmarkTimeoutMs / 1000);
  if (!pods.ok || !podName)
    return failed(
      `fio on ${node} did not finish within ${timeoutSeconds} s; the Job was deleted (its directory is removed on termination)`,
    );
  const space = pod.status?.initContainerStatuses?.find((c) => c.name === 'check-space');
  if (space?.state?.terminated?.exitCode === LOW_SPACE_EXIT)
    return refused(
      `not benchmarking ${node}: ${(await logTail(kube, namespace, podName, 'check-space')).trim()}`,
    );
  const log = await logTail(kube, namespace, podName, 'fio');
  const parsed = parseFioOutput(log);
  if (!parsed.ok)
    return failed(
      `fio on ${node} ${pod.status?.phase === 'Failed' ? 'failed' : 'finished'} but ${parsed.error}`,
      log ? [log.trim().slice(-500)] : [],
    );
  const verdict = fioVerdict(parsed.result);
  return done(
    `disk of ${node}: ${verdict.pass ? 'fast enough for etcd' : 'too slow for etcd'}`,
    verdict.lines,
  );
}
