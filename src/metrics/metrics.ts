import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { DiagnosisReport } from '../contracts/report-json.js';

/** Outcome of one Web API call: `ok`, `error`, or `rate_limited` (a 429 the WebClient waited out). */
export type SlackCallOutcome = 'ok' | 'error' | 'rate_limited';

/** Job counts by state (waiting, active, delayed, ...), read when /metrics is scraped. */
export type QueueCounts = () => Promise<Record<string, number>>;

/**
 * etcd-doctor's own Prometheus metrics (DESIGN.md: `etcd_doctor_*`) plus Node's default process
 * metrics, on a registry this process owns. main.ts creates one per process; tests create their own.
 */
export interface Metrics {
  readonly registry: Registry;
  /**
   * A job attempt ended: `completed`, `failed` (will be retried or failed for good), `delayed`
   * (cluster busy), `waiting-children` (a digest waiting for its parts) or `let-go` (handed back to
   * the queue at shutdown).
   */
  jobFinished(queue: string, kind: string, outcome: string, seconds: number): void;
  /** A health check or diagnosis ended: its duration, each probe's duration and the findings. */
  observeReport(report: DiagnosisReport): void;
  slackCall(method: string, outcome: SlackCallOutcome): void;
  /** Something went wrong that an operator may want to alert on (`source`: job, slack, redis, ...). */
  error(source: string): void;
  /** A queue whose depth /metrics reports (each name once; the last given for a name wins). */
  watchQueue(queue: string, counts: QueueCounts): void;
  /** The Prometheus text exposition. */
  scrape(): Promise<{ contentType: string; body: string }>;
}

const DURATION_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
const PROBE_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

export function createMetrics(opts: { defaultMetrics?: boolean } = {}): Metrics {
  const registry = new Registry();
  if (opts.defaultMetrics ?? true) collectDefaultMetrics({ register: registry });
  // By queue name: a worker reads the jobs queue and the analyze queue.
  const watched = new Map<string, QueueCounts>();
  const { jobs, jobDuration, probeDuration, diagnosisDuration, findings, slackCalls, errors } =
    defineCollectors([registry], () => [...watched]);

  return {
    registry,
    jobFinished(queue, kind, outcome, seconds) {
      jobs.inc({ queue, kind, outcome });
      jobDuration.observe({ queue, kind }, seconds);
    },
    observeReport(report) {
      diagnosisDuration.observe({ kind: report.kind }, report.durationMs / 1000);
      for (const probe of report.probes)
        probeDuration.observe(
          { probe: probeKind(probe.name), outcome: probe.ok ? 'ok' : 'failed' },
          probe.durationMs / 1000,
        );
      for (const finding of report.findings)
        findings.inc({ cause: finding.cause, severity: finding.severity });
    },
    slackCall: (method, outcome) => slackCalls.inc({ method, outcome }),
    error: (source) => errors.inc({ source }),
    watchQueue(queue, counts) {
      watched.set(queue, counts);
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/** Every etcd_doctor_* collector, on `registers`; the queue gauge reads `watching()` at scrape time. */
function defineCollectors(
  registers: Registry[],
  watching: () => Array<[queue: string, counts: QueueCounts]>,
) {
  const jobs = new Counter({
    name: 'etcd_doctor_jobs_total',
    help: 'Job attempts by queue, kind and outcome',
    labelNames: ['queue', 'kind', 'outcome'] as const,
    registers,
  });
  const jobDuration = new Histogram({
    name: 'etcd_doctor_job_duration_seconds',
    help: 'Time one job attempt took, by queue and kind',
    labelNames: ['queue', 'kind'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const probeDuration = new Histogram({
    name: 'etcd_doctor_probe_duration_seconds',
    help: 'Time one probe took, by probe kind (status, metrics, k8s-logs, ...) and outcome',
    labelNames: ['probe', 'outcome'] as const,
    buckets: PROBE_BUCKETS,
    registers,
  });
  const diagnosisDuration = new Histogram({
    name: 'etcd_doctor_diagnosis_duration_seconds',
    help: 'Time one health check or diagnosis took, by kind (health, diagnose)',
    labelNames: ['kind'] as const,
    buckets: DURATION_BUCKETS,
    registers,
  });
  const findings = new Counter({
    name: 'etcd_doctor_findings_total',
    help: 'Findings reported, by cause and severity',
    labelNames: ['cause', 'severity'] as const,
    registers,
  });
  const slackCalls = new Counter({
    name: 'etcd_doctor_slack_api_calls_total',
    help: 'Slack Web API calls by method and outcome (ok, error, rate_limited for a 429)',
    labelNames: ['method', 'outcome'] as const,
    registers,
  });
  const errors = new Counter({
    name: 'etcd_doctor_errors_total',
    help: 'Errors by source (job, slack, redis, http)',
    labelNames: ['source'] as const,
    registers,
  });
  new Gauge({
    name: 'etcd_doctor_queue_jobs',
    help: 'Jobs in the queue by state, read at scrape time',
    labelNames: ['queue', 'state'] as const,
    registers,
    async collect() {
      this.reset();
      for (const [queue, counts] of watching()) {
        try {
          for (const [state, n] of Object.entries(await counts())) this.set({ queue, state }, n);
        } catch {
          // Redis is down: no depth rather than a failed scrape; /readyz reports the outage.
        }
      }
    },
  });
  return { jobs, jobDuration, probeDuration, diagnosisDuration, findings, slackCalls, errors };
}

/** `status etcd-1` -> `status`: one label value per probe kind, not per member. */
export function probeKind(recordName: string): string {
  return recordName.split(' ')[0] ?? recordName;
}
