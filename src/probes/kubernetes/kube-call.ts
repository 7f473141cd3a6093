import { ApiException, type ConfigurationOptions } from '@kubernetes/client-node';
import type { KubernetesClients } from '../../clients/kubernetes.js';
import { formatSeconds, ProbeError } from '../probe.js';

/** What a request does, in RBAC terms, so a 403 can name the missing permission. */
export interface KubeAction {
  verb: 'get' | 'list' | 'create';
  /** `pods`, `pods/log`, `leases.coordination.k8s.io`, or a non-resource URL such as `/metrics`. */
  resource: string;
  namespace?: string;
}

/** `list pods in kube-system`, `get /metrics`. */
export function describeAction(action: KubeAction): string {
  return `${action.verb} ${action.resource}${action.namespace ? ` in ${action.namespace}` : ''}`;
}

/** `etcd-doctor is forbidden to get pods/log in kube-system (needs RBAC: get pods/log)`. */
export function forbiddenMessage(action: KubeAction, who = 'etcd-doctor'): string {
  const rbac = action.resource.startsWith('/')
    ? `get on nonResourceURLs ${action.resource}`
    : `${action.verb} ${action.resource}`;
  return `${who} is forbidden to ${describeAction(action)} (needs RBAC: ${rbac})`;
}

/**
 * Runs one API call under its own deadline and the probe's signal, and turns the client's
 * errors into ProbeErrors: 403 names the permission, the deadline says how long we waited.
 */
export async function kubeCall<T>(
  clients: KubernetesClients,
  action: KubeAction,
  signal: AbortSignal,
  timeoutMs: number,
  call: (options: ConfigurationOptions) => Promise<T>,
): Promise<T> {
  const deadline = AbortSignal.timeout(timeoutMs);
  try {
    return await call(clients.bound(AbortSignal.any([signal, deadline])));
  } catch (err) {
    throw classifyKubeError(err, action, { deadline, signal, timeoutMs });
  }
}

/** Like kubeCall, but a 404 is an answer: `undefined`. */
export async function kubeGet<T>(
  clients: KubernetesClients,
  action: KubeAction,
  signal: AbortSignal,
  timeoutMs: number,
  call: (options: ConfigurationOptions) => Promise<T>,
): Promise<T | undefined> {
  try {
    return await kubeCall(clients, action, signal, timeoutMs, call);
  } catch (err) {
    if (err instanceof KubeStatusError && err.status === 404) return undefined;
    throw err;
  }
}

/** A ProbeError that keeps the HTTP status, for callers that treat 400/404 as answers. */
export class KubeStatusError extends ProbeError {
  readonly status: number;

  constructor(status: number, kind: ProbeError['kind'], message: string, options?: { cause?: unknown }) {
    super(kind, message, options);
    this.name = 'KubeStatusError';
    this.status = status;
  }
}

export function classifyKubeError(
  err: unknown,
  action: KubeAction,
  ctx: { deadline: AbortSignal; signal: AbortSignal; timeoutMs: number },
): unknown {
  if (ctx.deadline.aborted && !ctx.signal.aborted) {
    return new ProbeError(
      'timeout',
      `did not answer ${describeAction(action)} in ${formatSeconds(ctx.timeoutMs)}`,
      { cause: err },
    );
  }
  if (!(err instanceof ApiException)) return err;
  const status = err.code;
  const text = statusMessage(err.body);
  if (status === 403)
    return new KubeStatusError(403, 'forbidden', forbiddenMessage(action, requester(text)), { cause: err });
  if (status === 401) {
    return new KubeStatusError(
      401,
      'forbidden',
      `rejected our credentials (HTTP 401) on ${describeAction(action)}: check the kubeconfig user`,
      { cause: err },
    );
  }
  const detail = text ? `: ${text}` : '';
  return new KubeStatusError(
    status,
    'error',
    `answered ${describeAction(action)} with HTTP ${status}${detail}`,
    { cause: err },
  );
}

/** The `message` of a metav1.Status body (JSON text or already parsed), cut to one line. */
export function statusMessage(body: unknown): string | undefined {
  let parsed = body;
  if (typeof body === 'string') {
    try {
      parsed = JSON.parse(body);
    } catch {
      return body.split('\n')[0]?.slice(0, 200) || undefined;
    }
  }
  if (
    typeof parsed === 'object' &&
    parsed !== null &&
    'message' in parsed &&
    typeof parsed.message === 'string'
  ) {
    return parsed.message.split('\n')[0]?.slice(0, 300);
  }
  return undefined;
}

/** `User "system:serviceaccount:ops:etcd-doctor" cannot get ...` -> `user "system:serviceaccount:ops:etcd-doctor"`. */
function requester(message: string | undefined): string | undefined {
  const user = message ? /User "([^"]+)" cannot/.exec(message)?.[1] : undefined;
  return user ? `user "${user}"` : undefined;
}
