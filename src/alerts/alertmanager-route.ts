import type { IncomingMessage, ServerResponse } from 'node:http';
import type { HttpRoute } from '../http/route.js';
import { formatZodError } from '../config/load-config.js';
import type { ClusterConfig } from '../config/schema.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { AlertJob } from '../queue/job-schemas.js';
import type { Secret } from '../secret.js';
import {
  type AlertmanagerAlert,
  type AlertmanagerPayload,
  alertmanagerPayloadSchema,
  alertsByCluster,
} from './alertmanager-payload.js';
import { isAuthorized } from '../http/bearer-auth.js';

export interface AlertmanagerRouteDeps {
  /** ALERTMANAGER_TOKEN; unset refuses every request. */
  token: Secret | undefined;
  /** The alert label that names the cluster. Default `cluster`. */
  clusterLabel: string;
  /** The configured cluster of that name, or undefined. */
  cluster: (name: string) => ClusterConfig | undefined;
  /** The job queue; undefined while the process is still starting. */
  enqueue: () => ((job: AlertJob) => Promise<{ jobId: string }>) | undefined;
  logger: Logger;
  now: () => number;
}

/** Alertmanager sends small bodies; a group of hundreds of alerts still fits in 1 MiB. */
const MAX_BODY_BYTES = 1024 * 1024;
/** A job carries at most this many alerts of a group (the root message shows a few anyway). */
const MAX_ALERTS_PER_JOB = 50;

type Reply = { status: number; body: Record<string, unknown> };

/**
 * `POST /alertmanager`: a webhook (version 4) from Alertmanager. Each alert names its cluster by a
 * label; every cluster with a `slack.channel` gets one triage job. 202 once queued, also for clusters
 * we do not know (logged), so that Alertmanager does not retry them forever; 400 with the reason for a
 * body that is not a version-4 payload; 401 without the token.
 */
export function alertmanagerRoute(deps: AlertmanagerRouteDeps): HttpRoute {
  const accept = async (req: IncomingMessage): Promise<Reply> => {
    const read = await readPayload(req, deps);
    if ('status' in read) return read;
    const enqueue = deps.enqueue();
    if (!enqueue) return { status: 503, body: { error: 'starting up; try again' } };
    return queueTriage(read.payload, enqueue, deps);
  };
  return {
    path: '/alertmanager',
    method: 'POST',
    handler: (req, res) => {
      accept(req)
        .catch((err: unknown): Reply => {
          deps.logger.error({ err: describeError(err) }, 'alertmanager: could not queue triage');
          return { status: 503, body: { error: describeError(err) } };
        })
        .then((reply) => send(res, reply));
    },
  };
}

/** The request as a version-4 payload, or the reply that says why not (401, 413, 400). */
async function readPayload(
  req: IncomingMessage,
  deps: Pick<AlertmanagerRouteDeps, 'token' | 'logger'>,
): Promise<Reply | { payload: AlertmanagerPayload }> {
  if (!isAuthorized(req.headers.authorization, deps.token)) {
    if (!deps.token)
      deps.logger.warn({}, 'alertmanager: refused a request because ALERTMANAGER_TOKEN is not set');
    return {
      status: 401,
      body: { error: 'unauthorized: send ALERTMANAGER_TOKEN as a bearer token or basic-auth password' },
    };
  }
  const text = await readBody(req);
  if (text === undefined) return { status: 413, body: { error: `body larger than ${MAX_BODY_BYTES} bytes` } };
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    return {
      status: 400,
      body: { error: `invalid JSON: ${describeError(err).replace(/^unexpected error: /, '')}` },
    };
  }
  const parsed = alertmanagerPayloadSchema.safeParse(raw);
  if (!parsed.success)
    return { status: 400, body: { error: `invalid Alertmanager payload: ${formatZodError(parsed.error)}` } };
  return { payload: parsed.data };
}

/** One triage job per known cluster with a channel; the others are said in the reply and logged. */
async function queueTriage(
  payload: AlertmanagerPayload,
  enqueue: (job: AlertJob) => Promise<{ jobId: string }>,
  deps: Pick<AlertmanagerRouteDeps, 'clusterLabel' | 'cluster' | 'logger' | 'now'>,
): Promise<Reply> {
  const { byCluster, unlabelled } = alertsByCluster(payload, deps.clusterLabel);
  const queued: Array<{ cluster: string; jobId: string }> = [];
  const ignored: Array<{ cluster: string | null; reason: string }> = [];
  if (unlabelled) {
    deps.logger.warn(
      { groupKey: payload.groupKey, label: deps.clusterLabel, alerts: unlabelled },
      'alertmanager: alerts without the cluster label',
    );
    ignored.push({ cluster: null, reason: `${unlabelled} alert(s) have no "${deps.clusterLabel}" label` });
  }
  for (const [name, alerts] of byCluster) {
    const cluster = deps.cluster(name);
    const channel = cluster?.slack?.channel;
    if (!cluster || !channel) {
      const reason = cluster ? 'has no slack.channel in the config' : 'is not in the config';
      deps.logger.warn(
        { cluster: name, groupKey: payload.groupKey },
        `alertmanager: cluster ${reason}; alert ignored`,
      );
      ignored.push({ cluster: name, reason: `cluster "${name}" ${reason}` });
      continue;
    }
    const { jobId } = await enqueue(alertJob(payload, cluster.name, channel, alerts, deps.now()));
    queued.push({ cluster: name, jobId });
  }
  return { status: 202, body: { queued, ignored } };
}

function alertJob(
  payload: AlertmanagerPayload,
  cluster: string,
  channel: string,
  alerts: AlertmanagerAlert[],
  now: number,
): AlertJob {
  return {
    v: 1,
    kind: 'alert',
    cluster,
    channel,
    user: 'alertmanager',
    requestedAt: now,
    groupKey: payload.groupKey,
    status: alerts.some((a) => a.status === 'firing') ? 'firing' : 'resolved',
    alerts: alerts.slice(0, MAX_ALERTS_PER_JOB).map((a) => ({
      status: a.status,
      labels: a.labels,
      annotations: a.annotations,
      startsAt: a.startsAt,
      endsAt: a.endsAt,
      generatorURL: a.generatorURL,
    })),
    commonLabels: payload.commonLabels,
    commonAnnotations: payload.commonAnnotations,
    externalURL: payload.externalURL,
  };
}

/** The body as text, or undefined past MAX_BODY_BYTES. */
async function readBody(req: IncomingMessage): Promise<string | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    size += buf.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(buf);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function send(res: ServerResponse, reply: Reply): void {
  if (res.headersSent) return;
  res.writeHead(reply.status, { 'content-type': 'application/json' }).end(`${JSON.stringify(reply.body)}\n`);
}
