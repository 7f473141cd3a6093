/**
 * A local fake of the Kubernetes API (127.0.0.1, a free port) that serves a fixture folder to the
 * real @kubernetes/client-node: list/get of pods (label and field selectors), pods/log (container,
 * previous, tailLines, limitBytes), nodes, events, leases, batch/v1 cronjobs and jobs, namespaces, the OpenShift etcd operator
 * CR, API discovery, /readyz, /livez, /metrics (counters advancing with time where the fixture says:
 * growing-metrics.ts) and /version, ConfigMaps by name (from fixture files) and
 * SelfSubjectReview (answering `user`). It can answer 403 for a chosen
 * resource and hold answers back (for timeouts). Errors are metav1.Status bodies, as the
 * apiserver sends them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  type KubeFixture,
  type KubeObject,
  type ListKind,
  loadKubeFixture,
  type ScenarioDelay,
} from './kube-fixtures.js';
import { metricsPage } from './growing-metrics.js';
import { matchesFieldSelector, matchesLabelSelector } from './kube-selectors.js';

export interface ForbidRule {
  /** `pods`, `pods/log`, `nodes`, `events`, `leases`, `cronjobs`, `jobs`, `namespaces`, `etcds`, or a path such as `/metrics`. */
  resource: string;
  namespace?: string;
}

export type DelayRule = ScenarioDelay;

export interface FakeKubeApiOptions {
  /** A fixture folder name under test/fixtures/kube, or a loaded fixture. */
  fixture: string | KubeFixture;
  forbid?: ForbidRule[];
  /** Added to the scenario's own `delays`; resource `*` delays everything. */
  delays?: DelayRule[];
  token?: string;
  /** The identity named in 403 messages. */
  user?: string;
  /**
   * Called after a create, delete or patch is stored (remediation tests): play the kubelet or the
   * Job controller here, e.g. mark a created pod Succeeded or give a Job its pod and log.
   */
  onWrite?: (write: KubeWrite, api: FakeKubeApi) => void;
}

/** A create (POST), delete or patch the fake accepted, with its parsed JSON body. */
export interface KubeWrite {
  method: 'POST' | 'DELETE' | 'PATCH';
  resource: string;
  namespace: string | undefined;
  name: string | undefined;
  body: unknown;
  contentType: string;
}

export interface RecordedKubeRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  resource: string;
  namespace: string | undefined;
  name: string | undefined;
  status: number;
}

export interface FakeKubeApi {
  readonly url: string;
  readonly token: string;
  readonly fixture: KubeFixture;
  requests(resource?: string): RecordedKubeRequest[];
  /** Every create, delete and patch, in order. */
  writes(resource?: string): KubeWrite[];
  /** Serves `text` as the log of a pod's container (created pods have no fixture file). */
  setLog(namespace: string, pod: string, container: string, text: string): void;
  /**
   * What the apiserver sees of etcd. `failed`: /readyz says `[-]etcd failed: reason withheld`
   * (HTTP 500), and reads served from etcd (GET namespace) answer 500 `etcdserver: request timed
   * out`, as an apiserver whose etcd lost quorum does. Default `ok`.
   */
  setEtcd(state: 'ok' | 'failed'): void;
  close(): Promise<void>;
}

interface Route {
  resource: string;
  namespace: string | undefined;
  name: string | undefined;
  serve: (query: URLSearchParams) => Answer;
}

interface Answer {
  status: number;
  contentType: string;
  body: string;
}

const json = (status: number, value: unknown): Answer => ({
  status,
  contentType: 'application/json',
  body: JSON.stringify(value),
});
const text = (status: number, body: string): Answer => ({
  status,
  contentType: 'text/plain; charset=utf-8',
  body,
});

function statusBody(code: number, reason: string, message: string, details: Record<string, string> = {}) {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message,
    reason,
    details,
    code,
  };
}

export async function startFakeKubeApi(opts: FakeKubeApiOptions): Promise<FakeKubeApi> {
  const fixture = typeof opts.fixture === 'string' ? loadKubeFixture(opts.fixture) : opts.fixture;
  const token = opts.token ?? 'fake-etcd-doctor-token';
  const user = opts.user ?? 'system:serviceaccount:monitoring:etcd-doctor';
  const delays = [...(fixture.scenario.delays ?? []), ...(opts.delays ?? [])];
  const recorded: RecordedKubeRequest[] = [];
  const writes: KubeWrite[] = [];
  const jobs: KubeObject[] = [];
  const logs = new Map<string, string>();
  const etcd = { state: 'ok' as 'ok' | 'failed' };
  let api: FakeKubeApi | undefined;
  // The fixture's counters advance from here (growing-metrics.ts).
  const startedAtMs = Date.now();

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    if (req.method === 'POST' || req.method === 'DELETE' || req.method === 'PATCH') {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const write = handleWrite(req, Buffer.concat(chunks).toString('utf8'));
        if (write.stored && api) opts.onWrite?.(write.stored, api);
        res.writeHead(write.answer.status, { 'Content-Type': write.answer.contentType });
        res.end(write.answer.body);
      });
      return;
    }
    const url = new URL(req.url ?? '/', 'http://fake');
    const query = Object.fromEntries(url.searchParams);
    const route = etcdAware(routeOf(fixture, url.pathname, startedAtMs), etcd.state);
    const record = (status: number) =>
      recorded.push({
        method: req.method ?? 'GET',
        path: url.pathname,
        query,
        resource: route.resource,
        namespace: route.namespace,
        name: route.name,
        status,
      });
    const answer = authorize(req, route, token, user, opts.forbid ?? []) ?? route.serve(url.searchParams);
    const delayMs = delays.filter((d) => applies(d, route)).reduce((ms, d) => Math.max(ms, d.ms), 0);
    const send = () => {
      record(answer.status);
      if (res.destroyed) return;
      res.writeHead(answer.status, {
        'Content-Type': answer.contentType,
        'Content-Length': Buffer.byteLength(answer.body),
      });
      res.end(answer.body);
    };
    if (delayMs === 0) return send();
    const timer = setTimeout(send, delayMs);
    res.on('close', () => clearTimeout(timer));
  };

  /** Creates, deletes and patches of what remediation touches: pods, batch/v1 Jobs, operator resources. */
  const handleWrite = (req: IncomingMessage, raw: string): { answer: Answer; stored?: KubeWrite } => {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method as KubeWrite['method'];
    let body: unknown;
    try {
      body = raw ? JSON.parse(raw) : undefined;
    } catch {
      return { answer: json(400, statusBody(400, 'BadRequest', 'body is not JSON')) };
    }
    const parts = url.pathname.split('/').filter(Boolean);
    const record = (
      resource: string,
      namespace: string | undefined,
      name: string | undefined,
      status: number,
    ) =>
      recorded.push({
        method,
        path: url.pathname,
        query: Object.fromEntries(url.searchParams),
        resource,
        namespace,
        name,
        status,
      });
    if (req.headers.authorization !== `Bearer ${token}`)
      return { answer: json(401, statusBody(401, 'Unauthorized', 'Unauthorized')) };
    const contentType = String(req.headers['content-type'] ?? '');
    // /api/v1/namespaces/{ns}/pods[/{name}] and /apis/batch/v1/namespaces/{ns}/jobs[/{name}]
    const core = parts[0] === 'api' && parts[2] === 'namespaces' && parts[4] === 'pods';
    const batch =
      parts[0] === 'apis' && parts[1] === 'batch' && parts[3] === 'namespaces' && parts[5] === 'jobs';
    if (core || batch) {
      const resource = core ? 'pods' : 'jobs';
      const namespace = core ? parts[3] : parts[4];
      const name = core ? parts[5] : parts[6];
      const list = core ? fixture.objects.pods : jobs;
      if (method === 'POST') {
        const obj = body as KubeObject;
        if (namespace) obj.metadata.namespace = namespace;
        obj.metadata.uid = `uid-${obj.metadata.name}-${recorded.length}`;
        obj.metadata.creationTimestamp = new Date().toISOString();
        list.push(obj);
        const stored: KubeWrite = { method, resource, namespace, name: obj.metadata.name, body, contentType };
        writes.push(stored);
        record(resource, namespace, obj.metadata.name, 201);
        return { answer: json(201, obj), stored };
      }
      if (method === 'DELETE' && name) {
        const i = list.findIndex((o) => o.metadata.name === name && o.metadata.namespace === namespace);
        if (i < 0) {
          record(resource, namespace, name, 404);
          return { answer: json(404, statusBody(404, 'NotFound', `${resource} "${name}" not found`)) };
        }
        const [gone] = list.splice(i, 1);
        const stored: KubeWrite = {
          method,
          resource,
          namespace,
          name,
          body: { ...(body as object), query: Object.fromEntries(url.searchParams) },
          contentType,
        };
        writes.push(stored);
        record(resource, namespace, name, 200);
        return { answer: json(200, gone), stored };
      }
    }
    // /apis/operator.openshift.io/v1/{plural}/cluster
    if (method === 'PATCH' && parts[1] === 'operator.openshift.io' && parts[3] && parts[4]) {
      const stored: KubeWrite = {
        method,
        resource: parts[3],
        namespace: undefined,
        name: parts[4],
        body,
        contentType,
      };
      writes.push(stored);
      record(parts[3], undefined, parts[4], 200);
      return {
        answer: json(200, {
          apiVersion: 'operator.openshift.io/v1',
          kind: 'Etcd',
          metadata: { name: parts[4] },
          ...(body as object),
        }),
        stored,
      };
    }
    // SelfSubjectReview (authentication.k8s.io/v1, GA in 1.28): who the token is.
    if (method === 'POST' && url.pathname === '/apis/authentication.k8s.io/v1/selfsubjectreviews') {
      record('selfsubjectreviews', undefined, undefined, 201);
      return {
        answer: json(201, {
          apiVersion: 'authentication.k8s.io/v1',
          kind: 'SelfSubjectReview',
          metadata: { creationTimestamp: null },
          status: {
            userInfo: { username: user, groups: ['system:serviceaccounts', 'system:authenticated'] },
          },
        }),
      };
    }
    record(url.pathname, undefined, undefined, 404);
    return { answer: notFoundPath() };
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  api = {
    url: `http://127.0.0.1:${port}`,
    token,
    fixture,
    requests: (resource) => recorded.filter((r) => resource === undefined || r.resource === resource),
    writes: (resource) => writes.filter((w) => resource === undefined || w.resource === resource),
    setLog(namespace, pod, container, text) {
      logs.set(`${namespace}/${pod}/${container}`, text);
      fixture.logOverrides = logs;
    },
    setEtcd(state) {
      etcd.state = state;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  return api;
}

/** With etcd failed: readyz fails its etcd checks, and a read served from etcd fails (K8Sidx healthz.go). */
function etcdAware(route: Route, state: 'ok' | 'failed'): Route {
  if (state === 'ok') return route;
  if (route.resource === '/readyz' || route.resource === '/livez' || route.resource === '/healthz') {
    return {
      ...route,
      serve: (q) => {
        const answer = route.serve(q);
        const body = answer.body
          .replace(/^\[\+\](etcd(?:-readiness)?) ok$/gm, '[-]$1 failed: reason withheld')
          .replace(/check passed/, 'check failed');
        return text(500, q.has('verbose') ? body : `${body}`);
      },
    };
  }
  if (route.resource === 'namespaces') {
    return {
      ...route,
      serve: () => json(500, statusBody(500, 'InternalError', 'etcdserver: request timed out')),
    };
  }
  return route;
}

function applies(rule: { resource: string; namespace?: string | undefined }, route: Route): boolean {
  return (
    (rule.resource === '*' || rule.resource === route.resource) &&
    (rule.namespace === undefined || rule.namespace === route.namespace)
  );
}

function authorize(
  req: IncomingMessage,
  route: Route,
  token: string,
  user: string,
  forbid: ForbidRule[],
): Answer | undefined {
  if (req.headers.authorization !== `Bearer ${token}`)
    return json(401, statusBody(401, 'Unauthorized', 'Unauthorized'));
  if (!forbid.some((rule) => applies(rule, route))) return undefined;
  if (route.resource.startsWith('/'))
    return json(
      403,
      statusBody(403, 'Forbidden', `forbidden: User "${user}" cannot get path "${route.resource}"`),
    );
  const [resource = '', sub] = route.resource.split('/');
  const what = route.name ? `${resource} "${route.name}" is forbidden` : `${resource} is forbidden`;
  const verb = route.name ? 'get' : 'list';
  const where = route.namespace ? ` in the namespace "${route.namespace}"` : ' at the cluster scope';
  const group =
    resource === 'leases'
      ? 'coordination.k8s.io'
      : resource === 'etcds'
        ? 'operator.openshift.io'
        : resource === 'cronjobs' || resource === 'jobs'
          ? 'batch'
          : '';
  const message = `${what}: User "${user}" cannot ${verb} resource "${sub ? `${resource}/${sub}` : resource}" in API group "${group}"${where}`;
  return json(
    403,
    statusBody(403, 'Forbidden', message, { ...(route.name ? { name: route.name } : {}), kind: resource }),
  );
}

const LIST_TYPES: Record<ListKind, { kind: string; apiVersion: string }> = {
  pods: { kind: 'PodList', apiVersion: 'v1' },
  nodes: { kind: 'NodeList', apiVersion: 'v1' },
  events: { kind: 'EventList', apiVersion: 'v1' },
  leases: { kind: 'LeaseList', apiVersion: 'coordination.k8s.io/v1' },
  cronjobs: { kind: 'CronJobList', apiVersion: 'batch/v1' },
  jobs: { kind: 'JobList', apiVersion: 'batch/v1' },
};

function routeOf(fixture: KubeFixture, pathname: string, startedAtMs: number): Route {
  const path = pathname.replace(/\/+$/, '') || '/';
  const parts = path.split('/').filter(Boolean);
  const route = (resource: string, serve: Route['serve'], namespace?: string, name?: string): Route => ({
    resource,
    namespace,
    name,
    serve,
  });
  if (path === '/version')
    return route('/version', () => fileAnswer(fixture, 'version.json', 'application/json'));
  if (path === '/readyz' || path === '/livez' || path === '/healthz')
    return route(path, (q) => health(fixture, path, q));
  if (path === '/metrics')
    return route('/metrics', () => {
      const body = metricsPage(fixture, Date.now() - startedAtMs);
      return body === undefined
        ? notFoundPath()
        : { status: 200, contentType: 'text/plain; version=0.0.4; charset=utf-8', body };
    });
  if (path === '/apis/operator.openshift.io') return route('/apis', () => discovery(fixture));
  if (path === '/apis/operator.openshift.io/v1/etcds/cluster')
    return route('etcds', () => etcdOperator(fixture), undefined, 'cluster');
  // /apis/batch/v1/{cronjobs,jobs} (every namespace) and /apis/batch/v1/namespaces/{ns}/{cronjobs,jobs}
  if (parts[0] === 'apis' && parts[1] === 'batch' && parts[2] === 'v1') {
    const [first, ns, kind] = parts.slice(3);
    if ((first === 'cronjobs' || first === 'jobs') && !ns)
      return objects(fixture, first, undefined, undefined);
    if (first === 'namespaces' && ns && (kind === 'cronjobs' || kind === 'jobs'))
      return objects(fixture, kind, ns, parts[6]);
  }
  // /api/v1/... and /apis/coordination.k8s.io/v1/...
  const rest =
    parts[0] === 'api'
      ? parts.slice(2)
      : parts[0] === 'apis' && parts[1] === 'coordination.k8s.io'
        ? parts.slice(3)
        : undefined;
  if (!rest) return route(path, () => notFoundPath());
  if (rest[0] === 'nodes') return objects(fixture, 'nodes', undefined, rest[1]);
  if (rest[0] !== 'namespaces' || !rest[1]) return route(path, () => notFoundPath());
  const namespace = rest[1];
  if (rest.length === 2)
    return route('namespaces', () => namespaceObject(fixture, namespace), undefined, namespace);
  const kind = rest[2];
  if (kind === 'pods' && rest[3] && rest[4] === 'log')
    return route('pods/log', (q) => podLog(fixture, namespace, rest[3] ?? '', q), namespace, rest[3]);
  if (kind === 'pods' || kind === 'events' || kind === 'leases')
    return objects(fixture, kind, namespace, rest[3]);
  if (kind === 'configmaps' && rest[3] && parts[0] === 'api')
    return route('configmaps', () => configMap(fixture, namespace, rest[3] ?? ''), namespace, rest[3]);
  return route(path, () => notFoundPath());
}

function objects(
  fixture: KubeFixture,
  kind: ListKind,
  namespace: string | undefined,
  name: string | undefined,
): Route {
  const inScope = fixture.objects[kind].filter(
    (o) => namespace === undefined || o.metadata.namespace === namespace,
  );
  const serve = (q: URLSearchParams): Answer => {
    if (name) {
      const found = inScope.find((o) => o.metadata.name === name);
      return found
        ? json(200, found)
        : json(404, statusBody(404, 'NotFound', `${kind} "${name}" not found`, { name, kind }));
    }
    const items = inScope
      .filter((o) => matchesLabelSelector(labelsOf(o), q.get('labelSelector') ?? ''))
      .filter((o) => matchesFieldSelector(o, q.get('fieldSelector') ?? ''));
    const limit = Number(q.get('limit') ?? '0');
    return json(200, {
      ...LIST_TYPES[kind],
      metadata: { resourceVersion: '48211' },
      items: limit > 0 ? items.slice(0, limit) : items,
    });
  };
  return { resource: kind, namespace, name, serve };
}

function labelsOf(o: KubeObject): Record<string, string> {
  const labels = o.metadata.labels;
  return typeof labels === 'object' && labels !== null ? (labels as Record<string, string>) : {};
}

/** kubelet's log endpoint: tail first, then cut to limitBytes; 400 when the container or its previous run is unknown. */
function podLog(fixture: KubeFixture, namespace: string, pod: string, q: URLSearchParams): Answer {
  const found = fixture.objects.pods.find(
    (o) => o.metadata.namespace === namespace && o.metadata.name === pod,
  );
  if (!found)
    return json(404, statusBody(404, 'NotFound', `pods "${pod}" not found`, { name: pod, kind: 'pods' }));
  const containers = (
    (found.spec as { containers?: Array<{ name: string }> } | undefined)?.containers ?? []
  ).map((c) => c.name);
  const container = q.get('container') ?? (containers.length === 1 ? containers[0] : undefined);
  if (!container) {
    return json(
      400,
      statusBody(
        400,
        'BadRequest',
        `a container name must be specified for pod ${pod}, choose one of: [${containers.join(' ')}]`,
      ),
    );
  }
  if (!containers.includes(container)) {
    return json(400, statusBody(400, 'BadRequest', `container ${container} is not valid for pod ${pod}`));
  }
  const previous = q.get('previous') === 'true';
  const override = previous ? undefined : fixture.logOverrides?.get(`${namespace}/${pod}/${container}`);
  const body =
    override ?? fixture.readText(`logs/${namespace}/${pod}/${container}${previous ? '.previous' : ''}.log`);
  if (body === undefined) {
    const message = previous ? `previous terminated container "${container}" in pod "${pod}" not found` : '';
    if (previous) return json(400, statusBody(400, 'BadRequest', message));
    return text(200, '');
  }
  let out = body;
  const tail = Number(q.get('tailLines') ?? '-1');
  if (tail >= 0) {
    const lines = out.split('\n');
    if (lines.at(-1) === '') lines.pop();
    out = lines
      .slice(Math.max(0, lines.length - tail))
      .map((l) => `${l}\n`)
      .join('');
  }
  const limit = Number(q.get('limitBytes') ?? '0');
  if (limit > 0) out = Buffer.from(out).subarray(0, limit).toString('utf8');
  return text(200, out);
}

function health(fixture: KubeFixture, path: string, q: URLSearchParams): Answer {
  const verbose = fixture.readText(`${path.slice(1)}.txt`) ?? `[+]ping ok\n${path.slice(1)} check passed\n`;
  const failed = verbose.split('\n').some((l) => l.startsWith('[-]'));
  if (q.has('verbose')) return text(failed ? 500 : 200, verbose);
  return text(failed ? 500 : 200, failed ? verbose : 'ok');
}

function discovery(fixture: KubeFixture): Answer {
  if (fixture.scenario.distribution !== 'openshift') return notFoundPath();
  const version = { groupVersion: 'operator.openshift.io/v1', version: 'v1' };
  return json(200, {
    kind: 'APIGroup',
    apiVersion: 'v1',
    name: 'operator.openshift.io',
    versions: [version],
    preferredVersion: version,
  });
}

function etcdOperator(fixture: KubeFixture): Answer {
  const body = fixture.readText('operator/etcds-cluster.json');
  if (body === undefined) return notFoundPath();
  return { status: 200, contentType: 'application/json', body };
}

function namespaceObject(fixture: KubeFixture, name: string): Answer {
  const known = new Set(
    [...fixture.objects.pods, ...fixture.objects.events, ...fixture.objects.leases].flatMap(
      (o) => o.metadata.namespace ?? [],
    ),
  );
  for (const ns of ['default', 'kube-system', 'kube-public', 'kube-node-lease']) known.add(ns);
  if (!known.has(name))
    return json(
      404,
      statusBody(404, 'NotFound', `namespaces "${name}" not found`, { name, kind: 'namespaces' }),
    );
  return json(200, {
    kind: 'Namespace',
    apiVersion: 'v1',
    metadata: {
      name,
      uid: `ns-${name}`,
      resourceVersion: '11',
      labels: { 'kubernetes.io/metadata.name': name },
    },
    spec: { finalizers: ['kubernetes'] },
    status: { phase: 'Active' },
  });
}

/** A ConfigMap from the fixture file configmaps/<namespace>/<name>.json; 404 without one. */
function configMap(fixture: KubeFixture, namespace: string, name: string): Answer {
  const body = fixture.readText(`configmaps/${namespace}/${name}.json`);
  if (body !== undefined) return { status: 200, contentType: 'application/json', body };
  return json(
    404,
    statusBody(404, 'NotFound', `configmaps "${name}" not found`, { name, kind: 'configmaps' }),
  );
}

function fileAnswer(fixture: KubeFixture, file: string, contentType: string): Answer {
  const body = fixture.readText(file);
  return body === undefined ? notFoundPath() : { status: 200, contentType, body };
}

function notFoundPath(): Answer {
  return json(404, statusBody(404, 'NotFound', 'the server could not find the requested resource'));
}
