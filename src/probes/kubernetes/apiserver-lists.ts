/**
 * What the apiserver lists, from the /metrics page it already reads (issue 39): by resource, the
 * LIST requests it served (`apiserver_request_total{verb="LIST"}`, by scope: `cluster` is every
 * namespace), those it served from etcd rather than its watch cache
 * (`apiserver_storage_list_total`), the objects it fetched from etcd for them
 * (`apiserver_storage_list_fetched_objects_total`), and the mean size of a LIST response
 * (`apiserver_response_sizes_sum` / `_count`, verb LIST). Counters since the apiserver started
 * (`process_start_time_seconds`): one scrape says what it lists on average, not this second; two
 * scrapes around the probe window (apiserver.ts) say what it lists now (apiserver-lists-window.ts).
 * K8S staging/src/k8s.io/apiserver/pkg/storage/etcd3/metrics/metrics.go and endpoints/metrics.
 * From the same page, API Priority and Fairness by flow schema and priority level: requests
 * dispatched (`apiserver_flowcontrol_dispatched_requests_total{flow_schema,priority_level}`),
 * rejected with 429 (`apiserver_flowcontrol_rejected_requests_total{flow_schema,priority_level,reason}`,
 * reason `queue-full`, `concurrency-limit`, `time-out` or `cancelled`), and waiting in its queues now
 * (`apiserver_flowcontrol_current_inqueue_requests{flow_schema,priority_level}`, a gauge): K8S
 * staging/src/k8s.io/apiserver/pkg/util/flowcontrol/metrics/metrics.go.
 */
export interface ApiserverLists {
  /** Unix seconds the apiserver started, when its page says. */
  startedAtSeconds: number | undefined;
  resources: ResourceLists[];
  /** API Priority and Fairness by flow schema and priority level; absent when the page has none. */
  flows?: FlowDispatch[];
  /** The two scrapes of the probe window compared; absent with one scrape (a watch check, a digest). */
  window?: ListsWindow;
}

/** One flow schema at one priority level (apiserver_flowcontrol_*). */
export interface FlowDispatch {
  flowSchema: string;
  priorityLevel: string;
  /** Requests dispatched (executed). */
  dispatched: number;
  /** Requests rejected with HTTP 429, by reason (`queue-full`, `concurrency-limit`, `time-out`, `cancelled`). */
  rejected: Record<string, number>;
  /** Requests waiting in its queues (a gauge: in a window, the later scrape's). */
  inQueue: number | undefined;
}

/** What the apiserver did between two scrapes of its /metrics (apiserver-lists-window.ts). */
export interface ListsWindow {
  /** Time between the two scrapes. */
  seconds: number;
  /**
   * The two pages have different start times, or a counter went back: the apiserver restarted, or
   * another apiserver behind the same address answered. No increase is meaningful then: empty lists.
   */
  reset: boolean;
  /** Each resource's increases inside the window (same fields as the since-start reading). */
  resources: ResourceLists[];
  /** Each flow's increases inside the window; `inQueue` is the later scrape's. */
  flows: FlowDispatch[];
}

export interface ResourceLists {
  resource: string;
  /** LIST requests by scope (`cluster`, `namespace`, `resource`). */
  listsByScope: Record<string, number>;
  /** LISTs served from etcd (apiserver_storage_list_total). */
  fromStorage: number | undefined;
  /** Objects fetched from etcd for those LISTs. */
  fetchedObjects: number | undefined;
  /** Bytes of LIST responses and their count (apiserver_response_sizes, verb LIST). */
  responseBytes: number | undefined;
  responses: number | undefined;
}

const PREFIXES = [
  'apiserver_request_total{',
  'apiserver_storage_list_total{',
  'apiserver_storage_list_fetched_objects_total{',
  'apiserver_response_sizes_sum{',
  'apiserver_response_sizes_count{',
  'process_start_time_seconds ',
  'apiserver_flowcontrol_dispatched_requests_total{',
  'apiserver_flowcontrol_rejected_requests_total{',
  'apiserver_flowcontrol_current_inqueue_requests{',
];

const FLOW_METRICS = new Set([
  'apiserver_flowcontrol_dispatched_requests_total',
  'apiserver_flowcontrol_rejected_requests_total',
  'apiserver_flowcontrol_current_inqueue_requests',
]);

/** The /metrics lines apiserverLists reads (LIST rows only, where the metric has a verb). */
export function keepListLine(line: string): boolean {
  if (!PREFIXES.some((p) => line.startsWith(p))) return false;
  return !line.includes('verb="') || line.includes('verb="LIST"');
}

/** The LIST reading of the kept lines; undefined when the page has none. */
export function apiserverLists(lines: readonly string[]): ApiserverLists | undefined {
  const byResource = new Map<string, ResourceLists>();
  const flows = new Map<string, FlowDispatch>();
  let startedAtSeconds: number | undefined;
  const of = (resource: string): ResourceLists => {
    let r = byResource.get(resource);
    if (!r) {
      r = {
        resource,
        listsByScope: {},
        fromStorage: undefined,
        fetchedObjects: undefined,
        responseBytes: undefined,
        responses: undefined,
      };
      byResource.set(resource, r);
    }
    return r;
  };
  for (const line of lines) {
    const sample = sampleOf(line);
    if (!sample) continue;
    const { name, labels, value } = sample;
    if (name === 'process_start_time_seconds') {
      startedAtSeconds = value;
      continue;
    }
    if (FLOW_METRICS.has(name)) {
      addFlow(flows, name, labels, value);
      continue;
    }
    const resource = labels.get('resource');
    if (!resource) continue;
    const r = of(resource);
    if (name === 'apiserver_request_total') {
      const scope = labels.get('scope') || 'unknown';
      r.listsByScope[scope] = (r.listsByScope[scope] ?? 0) + value;
    } else if (name === 'apiserver_storage_list_total') r.fromStorage = (r.fromStorage ?? 0) + value;
    else if (name === 'apiserver_storage_list_fetched_objects_total')
      r.fetchedObjects = (r.fetchedObjects ?? 0) + value;
    else if (name === 'apiserver_response_sizes_sum') r.responseBytes = (r.responseBytes ?? 0) + value;
    else if (name === 'apiserver_response_sizes_count') r.responses = (r.responses ?? 0) + value;
  }
  if (byResource.size === 0) return undefined;
  return {
    startedAtSeconds,
    resources: [...byResource.values()],
    ...(flows.size > 0 ? { flows: [...flows.values()] } : {}),
  };
}

function addFlow(flows: Map<string, FlowDispatch>, name: string, labels: Map<string, string>, value: number) {
  const flowSchema = labels.get('flow_schema');
  const priorityLevel = labels.get('priority_level');
  if (flowSchema === undefined || priorityLevel === undefined) return;
  const key = `${flowSchema}\u0000${priorityLevel}`;
  let f = flows.get(key);
  if (!f) {
    f = { flowSchema, priorityLevel, dispatched: 0, rejected: {}, inQueue: undefined };
    flows.set(key, f);
  }
  if (name === 'apiserver_flowcontrol_dispatched_requests_total') f.dispatched += value;
  else if (name === 'apiserver_flowcontrol_current_inqueue_requests') f.inQueue = (f.inQueue ?? 0) + value;
  else {
    const reason = labels.get('reason') || 'unknown';
    f.rejected[reason] = (f.rejected[reason] ?? 0) + value;
  }
}

/** `name{labels} value`, labels as a map; undefined for a line of another shape. */
function sampleOf(line: string): { name: string; labels: Map<string, string>; value: number } | undefined {
  const open = line.indexOf('{');
  const close = line.lastIndexOf('}');
  const space = line.lastIndexOf(' ');
  if (space < 0) return undefined;
  const name = open >= 0 ? line.slice(0, open) : line.slice(0, space);
  const labels = new Map<string, string>();
  if (open >= 0 && close > open)
    for (const m of line.slice(open + 1, close).matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g))
      if (m[1] !== undefined && m[2] !== undefined) labels.set(m[1], m[2]);
  const value = Number(line.slice(space + 1));
  return Number.isFinite(value) ? { name, labels, value } : undefined;
}
