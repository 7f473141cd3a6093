import { APOLOGY_TEXT, fileTooLarge, type IncomingFiles, type SharedFile } from '../chat/adapter.js';
import type { ConfigFile } from '../config/schema.js';
import { describeError, EtcdDoctorError, isEtcdDoctorError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { EnqueueOutcome } from '../queue/job-queue.js';
import type { AnalyzeJob } from '../queue/job-schemas.js';
import { textView } from '../report/chat-view.js';
import type { RateLimiter } from '../state/rate-limit.js';
import { isDirectMessage, snapshotByName, snapshotInChannel } from './snapshot-in-channel.js';

export interface FileRequestDeps {
  config: ConfigFile;
  enqueue(job: AnalyzeJob): Promise<EnqueueOutcome>;
  limiter: RateLimiter;
  /** Analyses per user per window (the `/etcd diagnose` per-user limit by default). */
  limits: { perUser: number; windowMs: number };
  maxFileBytes: number;
  logger: Logger;
  now?: () => number;
}

export const NO_FILE_TEXT = [
  'Drop a file here for me to analyse offline: the etcd container log (`crictl logs`, `journalctl -u etcd`, `kubectl logs`), one log per member, an `oc adm must-gather` (.tar.gz) or a `kubectl cluster-info dump`.',
  'In a channel, share it in a thread and mention @etcd-doctor in the same message.',
];

export const MAX_FILES = 10;

/**
 * Offline analysis is about the file, not a configured cluster: it may run in a DM, and in any
 * channel where etcd-doctor answers for some cluster (a cluster without `slack.allowedChannels`
 * answers everywhere). A channel that no cluster allows gets a refusal, as commands do.
 */
export function offlineAllowed(config: ConfigFile, channel: string): boolean {
  if (isDirectMessage(channel)) return true;
  return config.clusters.some((c) => {
    const allowed = c.slack?.allowedChannels ?? [];
    return allowed.length === 0 || allowed.includes(channel);
  });
}

function checkFiles(files: readonly SharedFile[], maxFileBytes: number): void {
  if (files.length > MAX_FILES)
    throw new EtcdDoctorError(
      'command_invalid',
      `That is ${files.length} files; share at most ${MAX_FILES} at once.`,
    );
  for (const file of files) {
    if (file.kind === 'slack' && file.size === 0)
      throw new EtcdDoctorError(
        'command_invalid',
        `${file.name} is empty; share the log with its lines in it.`,
      );
    if (file.kind === 'slack' && file.size !== undefined && file.size > maxFileBytes)
      throw fileTooLarge(file.name, file.size, maxFileBytes);
  }
}

function jobFor(req: IncomingFiles, requestedAt: number): AnalyzeJob {
  const slack = req.files.flatMap((f) =>
    f.kind === 'slack' ? [{ id: f.id, name: f.name.slice(0, 255) }] : [],
  );
  const local = req.files.flatMap((f) => (f.kind === 'local' ? [f.path] : []));
  return {
    v: 1,
    kind: 'analyze',
    source: local.length ? { kind: 'local', paths: local } : { kind: 'slack', files: slack },
    requestId: req.messageId.slice(0, 64),
    ...(req.thread ? { thread: req.thread.ts } : {}),
    channel: req.channel,
    user: req.user,
    requestedAt,
  };
}

/**
 * The chat side of offline analysis: checks what it can without reading the file (channel, count,
 * sizes the event gives, the user's rate limit), queues an `analyze` job for a worker, and says so
 * in the thread. Never downloads or reads anything itself: the ack path stays short.
 */
export function createFileRequests(deps: FileRequestDeps): (req: IncomingFiles) => Promise<void> {
  const now = deps.now ?? Date.now;
  const queue = async (req: IncomingFiles): Promise<string | undefined> => {
    if (!req.files.length) return NO_FILE_TEXT.join('\n');
    const fromChat = req.files.some((f) => f.kind === 'slack');
    if (fromChat && !offlineAllowed(deps.config, req.channel))
      throw new EtcdDoctorError(
        'channel_forbidden',
        'etcd-doctor does not answer in this channel; share the file in a direct message with me instead.',
      );
    // A snapshot in a channel is refused by its name here, before anyone downloads it, and by its
    // bytes on the worker (snapshot-in-channel.ts) whatever it is called.
    const snapshot = req.files.find((f) => f.kind === 'slack' && snapshotByName(f.name));
    if (snapshot && !isDirectMessage(req.channel)) throw snapshotInChannel(snapshot.name);
    checkFiles(req.files, deps.maxFileBytes);
    const { perUser, windowMs } = deps.limits;
    // Unread (Redis slow or down), the limit lets it through: the enqueue says whether the queue answers.
    const taken = await deps.limiter.take(`analyze:user:${req.user}`, perUser, windowMs);
    if (!taken.ok)
      throw new EtcdDoctorError(
        'rate_limited',
        `You asked for ${perUser} analyses in the last ${Math.ceil(windowMs / 1000)} s; try again in ${Math.ceil(taken.retryAfterMs / 1000)} s.`,
      );
    // The queue answers within its own enqueue timeout (1.5 s), with queue_unavailable past it.
    const outcome = await deps.enqueue(jobFor(req, now()));
    // A redelivered event joins the job it already queued: it was answered once already.
    if (outcome.joined) return undefined;
    const names = req.files.map((f) => f.name).join(', ');
    return `Analysing ${names}: the answer follows here.`;
  };
  return async (req) => {
    try {
      const text = await queue(req);
      if (text) await req.respond(textView(text, req.files.length ? 'info' : 'warning'));
    } catch (err) {
      if (!isEtcdDoctorError(err)) {
        deps.logger.error({ err: describeError(err) }, 'offline analysis request failed');
        await req.respond(textView(APOLOGY_TEXT, 'error'));
        return;
      }
      await req.respond(textView(describeError(err), err.code === 'queue_unavailable' ? 'error' : 'warning'));
    }
  };
}
