import { noKubernetes } from '../../clients/cluster-reach.js';
import type { V1Pod } from '@kubernetes/client-node';
import { z } from 'zod';
import type { KubernetesClients } from '../../clients/kubernetes.js';
import { ETCD_CAUSES } from '../../diagnosis/finding.js';
import { CONTROL_PLANE_COMPONENTS, type ControlPlaneComponent } from '../../probes/kubernetes/evidence.js';
import { detectDistribution } from '../../probes/kubernetes/layout.js';
import { type ActionContext, type ActionOutcome, defineAction, done, failed, refused } from '../action.js';
import { type ClusterState, isHealthy, readClusterState } from './cluster-state.js';
import {
  isReady,
  logTail,
  NAMES_NO_NODE,
  nameSuffix,
  namesNode,
  nodeTargetArgs,
  pollUntil,
  RESTRICTED_CONTAINER_SECURITY,
  readPod,
  remediationLabels,
} from './kube-wait.js';

type Component = ControlPlaneComponent;

/** The only host path the helper pod mounts (kubeadm's static pod directory). */
export const MANIFESTS_DIR = '/etc/kubernetes/manifests';

/** The OpenShift operator resource (operator.openshift.io/v1, name `cluster`) per component. */
const OPERATOR_PLURAL: Record<Component, string> = {
  etcd: 'etcds',
  'kube-apiserver': 'kubeapiservers',
  'kube-controller-manager': 'kubecontrollermanagers',
  'kube-scheduler': 'kubeschedulers',
};

const argsSchema = z
  .object({ component: z.enum(CONTROL_PLANE_COMPONENTS), ...nodeTargetArgs })
  .refine(namesNode, NAMES_NO_NODE);
type Args = z.infer<typeof argsSchema>;

/** kubeadm names the etcd member after its node. */
const nodeOf = (a: Args): string => (a.node ?? a.member ?? '').toLowerCase();

export const restartStaticPod = defineAction({
  id: 'restart-static-pod',
  label: 'Restart',
  access: 'responders',
  sideEffects: [
    `kubeadm: a short-lived pod pinned to the node (spec.nodeName) with one hostPath, ${MANIFESTS_DIR}, that moves the component's manifest out and back; deleted afterwards`,
    'OpenShift: a merge patch of spec.forceRedeploymentReason on the operator resource (etcds, kubeapiservers, kubecontrollermanagers or kubeschedulers named cluster)',
    'one node at a time per cluster; for etcd only while the other members keep quorum',
  ],
  needsConfirmation: true,
  argsSchema,
  unavailable: (cluster) => (cluster.kubernetes ? undefined : noKubernetes(cluster.name)),
  describe(args, s) {
    const node = nodeOf(args);
    const lines = [
      `Restart ${args.component} on ${node}: move ${MANIFESTS_DIR}/${args.component}.yaml out for about 30 s so the kubelet stops the pod, move it back, and wait until the pod is Ready again (kubeadm). On OpenShift: ask the operator to roll it out (forceRedeploymentReason), one node at a time.`,
    ];
    if (args.component === 'etcd') {
      const up = s.members.filter((m) => m.reachable).length;
      lines.push(
        `etcd member ${node} is out while it restarts; ${up} of ${s.members.length} members answered at the diagnosis. It refuses if the others would not keep quorum.`,
      );
    }
    if (
      (args.component === 'kube-scheduler' || args.component === 'kube-controller-manager') &&
      s.rootCause &&
      (ETCD_CAUSES as ReadonlySet<string>).has(s.rootCause)
    ) {
      lines.push(
        `:warning: The root cause is etcd (\`${s.rootCause}\`): restarting ${args.component} does not help; it loses its lease because etcd is slow, and a restart adds load (KB R10). Fix etcd first.`,
      );
    }
    return lines;
  },
  async run(args, ctx) {
    const node = nodeOf(args);
    if (args.component === 'etcd') {
      const guard = await etcdRestartGuard(node, ctx);
      if (guard) return refused(guard);
    }
    const kube = await ctx.clients.kubernetes();
    const configured = ctx.cluster.kubernetes?.distribution;
    const distribution =
      configured && configured !== 'auto' ? configured : await detectDistribution(kube, 5000);
    // Checked again right before acting: detection and the helper's start take seconds.
    const recheck = async () => {
      if (args.component !== 'etcd') return undefined;
      await ctx.progress(`checking etcd's quorum again right before restarting it on ${node}…`);
      return etcdRestartGuard(node, ctx);
    };
    if (distribution === 'openshift') return patchOperator(kube, args.component, ctx, recheck);
    return restartKubeadm(kube, args.component, node, ctx, recheck);
  },
});

/** KB R2: the restart takes one member out; the rest must still be quorum. Read fresh each time. */
async function etcdRestartGuard(node: string, ctx: ActionContext): Promise<string | undefined> {
  return etcdRestartRefusal(await readClusterState(await ctx.clients.etcd()), node);
}

/**
 * Why restarting etcd on `node` is refused, or undefined. kubeadm names each member after its node
 * (case aside: node names are lowercase, member names are the hostname as etcd was started). The
 * target must be exactly one member: with none (a wrong node, or a member list nobody answered, when
 * members are named by URL) the guard cannot know what the restart takes out, so it refuses. A
 * learner does not vote, so restarting it costs no quorum; voters count as in the diagnosis.
 */
export function etcdRestartRefusal(state: ClusterState, node: string): string | undefined {
  const wanted = node.toLowerCase();
  const matches = state.members.filter((m) => m.name.toLowerCase() === wanted);
  const [target] = matches;
  if (matches.length !== 1 || !target) {
    const names = state.members.map((m) => m.name).join(', ') || 'none answered';
    return `refusing to restart etcd on ${node}: it matches ${matches.length ? `${matches.length} members` : 'no member'} of the member list (${names}), so the quorum guard cannot tell what the restart takes out (KB R2)`;
  }
  const healthyAfter = state.healthyVoting - (!target.isLearner && isHealthy(target) ? 1 : 0);
  if (healthyAfter >= state.quorum) return undefined;
  const down = state.members.filter((m) => !isHealthy(m)).map((m) => m.name);
  return `refusing to restart etcd on ${node}: quorum is ${state.quorum} and only ${healthyAfter} other healthy voting member(s) would remain${down.length ? ` (${down.join(', ')} unhealthy)` : ''}; restarting it would lose quorum (KB R2)`;
}

async function patchOperator(
  kube: KubernetesClients,
  component: Component,
  ctx: ActionContext,
  recheck: () => Promise<string | undefined>,
): Promise<ActionOutcome> {
  const plural = OPERATOR_PLURAL[component];
  const reason = `etcd-doctor ${ctx.planId} ${new Date(ctx.now()).toISOString()}`;
  if (ctx.dryRun) return done(`would patch ${plural}/cluster spec.forceRedeploymentReason="${reason}"`);
  await ctx.safePoint(`patching ${plural}/cluster`);
  const problem = await recheck();
  if (problem) return refused(problem);
  // Loaded here, not with the worker: a static import put the whole Kubernetes client (~60 MiB
  // RSS) into every worker's start-up, clusters with Kubernetes or not. `kube` has loaded it already.
  const { PatchStrategy, setHeaderOptions } = await import('@kubernetes/client-node');
  await kube.custom.patchClusterCustomObject(
    {
      group: 'operator.openshift.io',
      version: 'v1',
      plural,
      name: 'cluster',
      body: { spec: { forceRedeploymentReason: reason } },
    },
    setHeaderOptions('Content-Type', PatchStrategy.MergePatch),
  );
  return done(`asked the OpenShift operator to redeploy ${component} (${plural}/cluster)`, [
    `patched spec.forceRedeploymentReason="${reason}"; the operator rolls it out one node at a time and keeps etcd's quorum guard`,
  ]);
}

/**
 * How long after the worker's last quorum check the helper may still move the manifest. The helper
 * cannot ask etcd itself: it has no service-account token, no etcd client certificate and no host
 * network (the admission policy forbids all three), and etcd's client port requires a certificate.
 * So the worker checks right before creating it, and the helper refuses to act once this deadline
 * (epoch seconds, from the worker's clock; a node clock ahead of it refuses early, never late by more
 * than its skew) has passed: a pod that waited for its image or a busy kubelet moves nothing.
 */
export const HELPER_START_DEADLINE_SECONDS = 60;

/**
 * The helper's script (busybox sh). The kubelet ignores files whose name starts with a dot, so the
 * manifest stays in the same directory (the one hostPath) while the kubelet sees it gone. The trap
 * puts it back on any exit. MANIFESTS_DIR is /manifests in the pod; tests run it on a temp dir.
 */
export const MANIFEST_MOVER_SCRIPT = [
  'set -eu',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: shell parameter expansion
  'dir="${MANIFESTS_DIR:-/manifests}"',
  'src="$dir/$MANIFEST"; held="$dir/.etcd-doctor-$MANIFEST"',
  'now=$(date +%s)',
  'if [ "$now" -gt "$NOT_AFTER" ]; then echo "started $((now - NOT_AFTER)) s after the deadline of the quorum check; not moving $MANIFEST"; exit 5; fi',
  'test -f "$src" || { echo "no $src on this node"; exit 3; }',
  'test ! -e "$held" || { echo "$held exists: an earlier restart did not finish"; exit 4; }',
  'restore() { if [ -e "$held" ]; then mv "$held" "$src"; echo "moved $MANIFEST back"; fi; }',
  'trap restore EXIT',
  "trap 'exit 143' TERM INT",
  'mv "$src" "$held"; echo "moved $MANIFEST out"',
  'sleep "$HOLD_SECONDS"',
].join('\n');

/** The helper pod: pinned to the node, the manifests directory its only volume, every capability dropped. */
export function manifestMoverPod(opts: {
  name: string;
  namespace: string;
  node: string;
  component: Component;
  image: string;
  holdSeconds: number;
  planId: string;
  /** Epoch seconds after which the helper refuses to move anything (HELPER_START_DEADLINE_SECONDS). */
  notAfterSeconds: number;
}): V1Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: opts.name, namespace: opts.namespace, labels: remediationLabels(opts.planId) },
    spec: {
      nodeName: opts.node,
      restartPolicy: 'Never',
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      activeDeadlineSeconds: opts.holdSeconds + 120,
      terminationGracePeriodSeconds: 30,
      tolerations: [{ operator: 'Exists' }],
      containers: [
        {
          name: 'move-manifest',
          image: opts.image,
          command: ['/bin/sh', '-c', MANIFEST_MOVER_SCRIPT],
          env: [
            { name: 'MANIFEST', value: `${opts.component}.yaml` },
            { name: 'HOLD_SECONDS', value: String(opts.holdSeconds) },
            { name: 'NOT_AFTER', value: String(opts.notAfterSeconds) },
          ],
          securityContext: RESTRICTED_CONTAINER_SECURITY,
          resources: { requests: { cpu: '10m', memory: '16Mi' }, limits: { memory: '32Mi' } },
          volumeMounts: [{ name: 'manifests', mountPath: '/manifests' }],
        },
      ],
      volumes: [{ name: 'manifests', hostPath: { path: MANIFESTS_DIR, type: 'Directory' } }],
    },
  };
}

async function restartKubeadm(
  kube: KubernetesClients,
  component: Component,
  node: string,
  ctx: ActionContext,
  recheck: () => Promise<string | undefined>,
): Promise<ActionOutcome> {
  const mirrorName = `${component}-${node}`;
  const namespace = ctx.settings.namespace;
  const before = await readPod(kube, 'kube-system', mirrorName).catch(() => undefined);
  const name = `etcd-doctor-restart-${nameSuffix(ctx.planId)}`;
  if (ctx.dryRun)
    return done(`would run pod ${namespace}/${name} on ${node} to move ${component}.yaml out and back`);
  await ctx.safePoint(`creating pod ${namespace}/${name}`);
  const problem = await recheck();
  if (problem) return refused(problem);
  const pod = manifestMoverPod({
    name,
    namespace,
    node,
    component,
    image: ctx.settings.helperImage,
    holdSeconds: ctx.settings.manifestHoldSeconds,
    planId: ctx.planId,
    // The node compares it with its own clock (`date +%s`): the wall clock, never the role's `now`.
    notAfterSeconds: Math.floor(Date.now() / 1000) + HELPER_START_DEADLINE_SECONDS,
  });
  await ctx.progress(
    `moving ${component}.yaml out of ${MANIFESTS_DIR} on ${node} (pod ${namespace}/${name}; it must start within ${HELPER_START_DEADLINE_SECONDS} s of the quorum check)…`,
  );
  await kube.core.createNamespacedPod({ namespace, body: pod });
  try {
    const holdMs = ctx.settings.manifestHoldSeconds * 1000;
    const helper = await pollUntil(
      ctx,
      holdMs + ctx.settings.restartWaitMs,
      () => readPod(kube, namespace, name),
      (p) => ['Succeeded', 'Failed'].includes(p.status?.phase ?? ''),
    );
    if (helper.last?.status?.phase !== 'Succeeded') {
      const log = await logTail(kube, namespace, name, 'move-manifest');
      return failed(
        `the helper pod on ${node} did not succeed (${helper.last?.status?.phase ?? 'no status'})`,
        log ? [log.trim()] : [],
      );
    }
    await ctx.progress(`${component}.yaml is back; waiting for ${mirrorName} to be Ready…`);
    const ready = await pollUntil(
      ctx,
      ctx.settings.restartWaitMs,
      () => readPod(kube, 'kube-system', mirrorName),
      (p) => isReady(p) && p.metadata?.uid !== before?.metadata?.uid,
    );
    if (!ready.ok)
      return failed(
        `${mirrorName} was not Ready again within ${Math.round(ctx.settings.restartWaitMs / 1000)} s`,
      );
    return done(`restarted ${component} on ${node}: ${mirrorName} is Ready again`);
  } finally {
    await kube.core.deleteNamespacedPod({ name, namespace }).catch(() => undefined);
  }
}
