import http from 'node:http';
import https from 'node:https';
import { dirname } from 'node:path';
import {
  AuthenticationV1Api,
  BatchV1Api,
  type ConfigurationOptions,
  CoordinationV1Api,
  CoreV1Api,
  CustomObjectsApi,
  type HttpLibrary,
  IsomorphicFetchHttpLibrary,
  KubeConfig,
  type RequestContext,
} from '@kubernetes/client-node';
import type { ClusterConfig } from '../config/schema.js';
import { EtcdDoctorError } from '../errors.js';

export type KubernetesConfig = NonNullable<ClusterConfig['kubernetes']>;

export interface RawResponse {
  status: number;
  contentType: string;
  body: string;
}

export interface RawGetOptions {
  /** Stop reading (and fail) past this many bytes; apiserver /metrics can be tens of MB. */
  maxBytes?: number;
  /** Keep only the lines this accepts, while streaming: the body never sits whole in memory. */
  keepLine?: (line: string) => boolean;
}

/** The typed API clients for one cluster, plus a bounded GET for non-resource paths. */
export interface KubernetesClients {
  /** The apiserver URL from the kubeconfig, for messages. */
  readonly server: string;
  readonly context: string;
  readonly core: CoreV1Api;
  /** Jobs: only the opt-in remediation role may create them (disk-benchmark). */
  readonly batch: BatchV1Api;
  readonly coordination: CoordinationV1Api;
  readonly custom: CustomObjectsApi;
  /** SelfSubjectReview: who the credentials are, as the apiserver sees them (`etcd-doctor preflight`). */
  readonly authentication: AuthenticationV1Api;
  /** Per-call options that abort that one request when `signal` fires. */
  bound(signal: AbortSignal): ConfigurationOptions;
  /** GET `/readyz?verbose`, `/metrics`, `/apis/...` with the kubeconfig's credentials. */
  getRaw(path: string, signal: AbortSignal, opts?: RawGetOptions): Promise<RawResponse>;
}

export interface LoadKubernetesDeps {
  readFile: (path: string) => Promise<string>;
}

const DEFAULT_MAX_RAW_BYTES = 4 * 1024 * 1024;

/**
 * Builds clients from `kubernetes.kubeconfig` (+ `context`), the in-cluster service account
 * (`inCluster: true`), or the default kubeconfig. Throws `config_invalid` for a kubeconfig that
 * cannot work, naming the file and the context.
 */
export async function loadKubernetesClients(
  config: KubernetesConfig,
  deps: LoadKubernetesDeps,
): Promise<KubernetesClients> {
  const kc = await loadKubeConfig(config, deps);
  const cluster = kc.getCurrentCluster();
  if (!cluster)
    throw new EtcdDoctorError(
      'config_invalid',
      `kubernetes: context "${kc.getCurrentContext()}" names no cluster`,
    );
  // client-node 1.4 refuses plain http unless the cluster says insecure-skip-tls-verify.
  if (cluster.server.startsWith('http:') && !cluster.skipTLSVerify) {
    throw new EtcdDoctorError(
      'config_invalid',
      `kubernetes: cluster "${cluster.name}" uses ${cluster.server} over plain http; set insecure-skip-tls-verify: true for it or use https`,
    );
  }
  return createKubernetesClients(kc);
}

async function loadKubeConfig(config: KubernetesConfig, deps: LoadKubernetesDeps): Promise<KubeConfig> {
  const kc = new KubeConfig();
  const where =
    config.kubeconfig ?? (config.inCluster ? 'the in-cluster service account' : 'the default kubeconfig');
  try {
    if (config.kubeconfig) {
      kc.loadFromString(await deps.readFile(config.kubeconfig));
      kc.makePathsAbsolute(dirname(config.kubeconfig));
    } else if (config.inCluster) {
      kc.loadFromCluster();
    } else {
      kc.loadFromDefault();
    }
  } catch (err) {
    const reason = messageOf(err).split('\n')[0];
    throw new EtcdDoctorError('config_invalid', `kubernetes: cannot load ${where}: ${reason}`, {
      cause: err,
    });
  }
  if (config.context) {
    if (!kc.getContextObject(config.context)) {
      const known = kc.getContexts().map((c) => c.name);
      throw new EtcdDoctorError(
        'config_invalid',
        `kubernetes.context: "${config.context}" is not in ${where}; it has ${known.length > 0 ? known.join(', ') : 'no contexts'}`,
      );
    }
    kc.setCurrentContext(config.context);
  }
  return kc;
}

/** Wraps an already loaded KubeConfig (tests and callers that build their own). */
export function createKubernetesClients(kc: KubeConfig): KubernetesClients {
  const server = kc.getCurrentCluster()?.server ?? 'unknown apiserver';
  const fetchLibrary = new IsomorphicFetchHttpLibrary();
  return {
    server,
    context: kc.getCurrentContext(),
    core: kc.makeApiClient(CoreV1Api),
    batch: kc.makeApiClient(BatchV1Api),
    coordination: kc.makeApiClient(CoordinationV1Api),
    custom: kc.makeApiClient(CustomObjectsApi),
    authentication: kc.makeApiClient(AuthenticationV1Api),
    bound(signal) {
      // The generated clients take no signal argument; the request context does, so a per-call
      // http library sets it just before the request leaves.
      const httpApi: HttpLibrary = {
        send(request: RequestContext) {
          request.setSignal(signal);
          return fetchLibrary.send(request);
        },
      };
      return { httpApi };
    },
    getRaw: (path, signal, opts) => getRaw(kc, server, path, signal, opts ?? {}),
  };
}

async function getRaw(
  kc: KubeConfig,
  server: string,
  path: string,
  signal: AbortSignal,
  opts: RawGetOptions,
): Promise<RawResponse> {
  const url = new URL(`${server.replace(/\/+$/, '')}${path}`);
  const options: https.RequestOptions = {
    method: 'GET',
    headers: { Accept: 'text/plain, application/json, */*' },
  };
  await kc.applyToHTTPSOptions(options);
  const maxBytes = opts.maxBytes ?? DEFAULT_MAX_RAW_BYTES;
  const transport = url.protocol === 'http:' ? http : https;
  return new Promise<RawResponse>((resolve, reject) => {
    const req = transport.request(url, { ...options, signal }, (res) => {
      const lines = createLineCollector(opts.keepLine);
      let size = 0;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        size += Buffer.byteLength(chunk);
        if (size > maxBytes) {
          res.destroy(new Error(`GET ${path} sent more than ${maxBytes} bytes`));
          return;
        }
        lines.push(chunk);
      });
      res.on('error', reject);
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          contentType: String(res.headers['content-type'] ?? ''),
          body: lines.end(),
        }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

/** Accumulates a streamed body, keeping only accepted lines when a filter is given. */
function createLineCollector(keep: ((line: string) => boolean) | undefined) {
  let kept = '';
  let partial = '';
  return {
    push(chunk: string) {
      if (!keep) {
        kept += chunk;
        return;
      }
      const parts = (partial + chunk).split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) if (keep(line)) kept += `${line}\n`;
    },
    end(): string {
      if (keep && partial && keep(partial)) kept += partial;
      return kept;
    },
  };
}

/** An error's message; duck-typed, since fs errors from another realm (jest's VM) fail `instanceof Error`. */
function messageOf(err: unknown): string {
  if (typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string')
    return err.message;
  return String(err);
}
