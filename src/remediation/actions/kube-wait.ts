import type { V1Pod } from '@kubernetes/client-node';
import { z } from 'zod';
import type { KubernetesClients } from '../../clients/kubernetes.js';
import type { ActionContext } from '../action.js';

/**
 * The node an action runs on, as its button names it: the node itself, or the etcd member on it.
 * Spread into an action's args schema, then `.refine(namesNode, NAMES_NO_NODE)`.
 */
export const nodeTargetArgs = {
  node: z
    .string()
    .regex(/^[a-z0-9][a-z0-9.-]{0,252}$/)
    .optional(),
  member: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,252}$/)
    .optional(),
};
export const namesNode = (a: { node?: string | undefined; member?: string | undefined }) =>
  a.node ?? a.member;
export const NAMES_NO_NODE = { error: 'names no node' };

/** Polls `read` every `settings.pollMs` until `done` holds or `timeoutMs` passes; bounded by both. */
export async function pollUntil<T>(
  ctx: Pick<ActionContext, 'now' | 'sleep' | 'settings'>,
  timeoutMs: number,
  read: () => Promise<T>,
  done: (value: T) => boolean,
): Promise<{ ok: boolean; last: T | undefined }> {
  const deadline = ctx.now() + timeoutMs;
  let last: T | undefined;
  const rounds = Math.ceil(timeoutMs / Math.max(1, ctx.settings.pollMs)) + 2;
  for (let i = 0; i < rounds; i += 1) {
    try {
      last = await read();
      if (done(last)) return { ok: true, last };
    } catch {
      // Not there yet (404) or a blip: keep polling until the deadline.
    }
    if (ctx.now() >= deadline) break;
    await ctx.sleep(ctx.settings.pollMs);
  }
  return { ok: false, last };
}

export function isReady(pod: V1Pod | undefined): boolean {
  return Boolean(pod?.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True'));
}

export async function readPod(kube: KubernetesClients, namespace: string, name: string): Promise<V1Pod> {
  return kube.core.readNamespacedPod({ name, namespace });
}

/** The last lines of a pod's log, for a failure message; empty when it cannot be read. */
export async function logTail(kube: KubernetesClients, namespace: string, name: string, container: string) {
  try {
    const log = await kube.core.readNamespacedPodLog({ name, namespace, container, limitBytes: 64 * 1024 });
    return String(log);
  } catch {
    return '';
  }
}

/** Labels on everything remediation creates, so an operator can find (and delete) leftovers. */
export function remediationLabels(planId: string): Record<string, string> {
  return {
    'app.kubernetes.io/name': 'etcd-doctor',
    'app.kubernetes.io/component': 'remediation',
    'etcd-doctor/plan': planId.replace(/[^A-Za-z0-9_.-]/g, '').slice(0, 63),
  };
}

/** Short, DNS-1123-safe suffix from a plan id. */
export function nameSuffix(planId: string): string {
  return (
    planId
      .toLowerCase()
      .replace(/[^a-z0-9]/g, '')
      .slice(0, 10) || 'x'
  );
}

/** No more privilege than moving a file in a root-owned directory needs: uid 0, every capability dropped. */
export const RESTRICTED_CONTAINER_SECURITY = {
  privileged: false,
  allowPrivilegeEscalation: false,
  readOnlyRootFilesystem: true,
  runAsUser: 0,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};
