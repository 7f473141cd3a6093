import type { V1Job } from '@kubernetes/client-node';
import { z } from 'zod';
import { done, failed, registerAction } from '../action.js';
import { fioVerdict, parseFioOutput } from '../fio-result.js';
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
  '--directory=/bench',
  '--size=22m',
  '--bs=2300',
  '--name=etcd-doctor',
  '--output-format=json',
  '--unlink=1',
];

const argsSchema = z.object(nodeTargetArgs).refine(namesNode, NAMES_NO_NODE);

export function fioJob(opts: {
  name: string;
  namespace: string;
  node: string;
  image: string;
  timeoutSeconds: number;
  planId: string;
}): V1Job {
  const labels = remediationLabels(opts.planId);
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
          tolerations: [{ operator: 'Exists' }],
          containers: [
            {
              name: 'fio',
              image: opts.image,
              command: ['fio', ...FIO_ARGS],
              securityContext: RESTRICTED_CONTAINER_SECURITY,
              resources: { requests: { cpu: '100m', memory: '64Mi' }, limits: { memory: '256Mi' } },
              volumeMounts: [{ name: 'bench', mountPath: '/bench' }],
            },
          ],
          volumes: [{ name: 'bench', hostPath: { path: BENCH_HOST_DIR, type: 'DirectoryOrCreate' } }],
        },
      },
    },
  };
}

export const diskBenchmark = registerAction({
  id: 'disk-benchmark',
  label: 'Benchmark the disk',
  access: 'responders',
  sideEffects: [
    `a Job pinned to the node (spec.nodeName) running fio in ${BENCH_HOST_DIR} (22 MiB of 2300-byte writes, each followed by fdatasync; the file is removed), deleted afterwards`,
    'load on the etcd disk for up to a minute or two',
  ],
  needsConfirmation: true,
  argsSchema,
  describe(args) {
    const node = args.node ?? args.member ?? '';
    return [
      `Run fio on ${node} in ${BENCH_HOST_DIR}, on etcd's disk: ${FIO_ARGS.slice(0, 7).join(' ')} (etcd's recommended test). It adds write load to that disk while it runs.`,
      'Then post the fdatasync p99 and IOPS against the thresholds (< 10 ms etcd FAQ, < 20 ms OpenShift etcd-perf) and delete the Job.',
    ];
  },
  async run(args, ctx) {
    const node = (args.node ?? args.member ?? '').toLowerCase();
    const namespace = ctx.settings.namespace;
    const name = `etcd-doctor-fio-${nameSuffix(ctx.planId)}`;
    const timeoutSeconds = Math.ceil(ctx.settings.benchmarkTimeoutMs / 1000);
    const job = fioJob({
      name,
      namespace,
      node,
      image: ctx.settings.diskBenchmarkImage,
      timeoutSeconds,
      planId: ctx.planId,
    });
    if (ctx.dryRun) return done(`would run Job ${namespace}/${name} (fio) on ${node}`);
    const kube = await ctx.clients.kubernetes();
    await ctx.progress(`running fio on ${node} (Job ${namespace}/${name})…`);
    ctx.safePoint(`creating Job ${namespace}/${name}`);
    await kube.batch.createNamespacedJob({ namespace, body: job });
    try {
      const pods = await pollUntil(
        ctx,
        ctx.settings.benchmarkTimeoutMs,
        () => kube.core.listNamespacedPod({ namespace, labelSelector: `job-name=${name}` }),
        (list) => list.items.some((p) => ['Succeeded', 'Failed'].includes(p.status?.phase ?? '')),
      );
      const pod = pods.last?.items.find((p) => ['Succeeded', 'Failed'].includes(p.status?.phase ?? ''));
      const podName = pod?.metadata?.name;
      if (!pods.ok || !podName)
        return failed(`fio on ${node} did not finish within ${timeoutSeconds} s; the Job was deleted`);
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
    } finally {
      await kube.batch
        .deleteNamespacedJob({ name, namespace, propagationPolicy: 'Background' })
        .catch(() => undefined);
    }
  },
});
