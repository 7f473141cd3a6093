import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChatAdapter, Destination } from '../chat/adapter.js';
import { describeError, EtcdDoctorError, isEtcdDoctorError, MAX_MESSAGE_CHARS } from '../errors.js';
import { type Logger, withFields } from '../logger.js';
import type { FailureHow } from '../queue/job-handlers.js';
import type { AnalyzeJob } from '../queue/job-schemas.js';
import { type ChatView, textView } from '../report/chat-view.js';
import type { AnswerOnce } from '../answer/answer-once.js';
import { analyzeIsolated } from './analyze-isolated.js';
import { snapshotView } from './snapshot/snapshot-view.js';
import { SHARE_INSTEAD } from './readers/limits.js';
import { boundedMessage, cutText } from '../untrusted-text.js';
import { refuseSnapshotsOutsideDm } from './snapshot-in-channel.js';

export interface AnalyzeJobDeps {
  chat: ChatAdapter;
  /** The worker's way to answer a job once (answer/answer-once.ts). */
  answer: AnswerOnce;
  logger: Logger;
  maxFileBytes: number;
  /** The heap limit of the process that reads the files (analyze-isolated.ts). */
  memoryMb?: number;
  /** Where private download directories are made. Default the OS temp dir. */
  tmpRoot?: string;
}

export interface AnalyzeJobHandlers {
  run(job: AnalyzeJob, info: { jobId: string; attempt: number; signal: AbortSignal }): Promise<unknown>;
  failed(jobId: string, job: AnalyzeJob, reason: string, how?: FailureHow): Promise<void>;
}

function destination(job: AnalyzeJob): Destination {
  return job.thread
    ? { channel: job.channel, thread: { channel: job.channel, ts: job.thread } }
    : { channel: job.channel };
}

function label(job: AnalyzeJob): string {
  const names =
    job.source.kind === 'slack' ? job.source.files.map((f) => f.name) : job.source.paths.map((p) => p);
  // A file's name is the sender's: at most 100 characters of each, 300 of all.
  return cutText(names.map((n) => cutText(n, 100)).join(', '), 300);
}

/**
 * The analysis names paths in its answers: a download's private directory means nothing to the user.
 * The message is cut first (untrusted-text.ts), and the pattern starts only where a path does (after
 * a space, a quote or a parenthesis, or at the start): from any other position the old leading
 * `[^\s'"(]*` rescanned the rest of a long word, 48 s on a 200,000-character entry path.
 */
export function withoutDir(message: string): string {
  return boundedMessage(message, 4 * MAX_MESSAGE_CHARS).replace(
    /(?<![^\s'"(])[^\s'"(]{0,512}?etcd-doctor-analyze-[^/\s]{1,128}\/(?:F[A-Z0-9]{2,40}\/)?/g,
    '',
  );
}

const DIR_PREFIX = 'etcd-doctor-analyze-';
/** A download directory older than this belongs to a worker that died mid-job (jobs time out long before). */
const STALE_DIR_MS = 60 * 60_000;

/** `etcd-doctor-analyze-<pid>-`: whose directory it is. */
function dirPrefix(pid: number): string {
  return `${DIR_PREFIX}${pid}-`;
}

/**
 * Removes download directories a killed worker left behind (its `finally` never ran): any older than
 * an hour, and at once those named with this process's pid, which this process has not made yet. A
 * container restarted after an OOM kill runs as the same pid in the same emptyDir, so the up to
 * 10 x offline.maxFileBytes it left never add to the next analysis's (the volume is sized for one
 * set per slot: deploy/kubernetes/base/deployment-worker.yaml).
 */
async function sweepStale(root: string, logger: Logger): Promise<void> {
  const names = await readdir(root).catch(() => [] as string[]);
  for (const name of names.filter((n) => n.startsWith(DIR_PREFIX))) {
    const path = join(root, name);
    const info = await stat(path).catch(() => undefined);
    const mine = name.startsWith(dirPrefix(process.pid));
    if (!info || (!mine && Date.now() - info.mtimeMs < STALE_DIR_MS)) continue;
    await rm(path, { recursive: true, force: true }).catch(() => undefined);
    logger.info({ path }, 'removed a stale offline-analysis download directory');
  }
}

/**
 * The files of a job, on this host: shared ones downloaded into `dir` (a snapshot outside a DM is
 * refused first: snapshot-in-channel.ts), local ones as given (the shell only).
 */
async function pathsOf(
  job: AnalyzeJob,
  dir: string,
  signal: AbortSignal,
  deps: Pick<AnalyzeJobDeps, 'chat' | 'maxFileBytes'>,
): Promise<string[]> {
  if (job.source.kind === 'local') {
    // Paths on this host come only from the shell, where the person typing owns the machine.
    if (deps.chat.kind !== 'shell')
      throw new EtcdDoctorError(
        'command_invalid',
        'Paths on the etcd-doctor host are read only from the shell.',
      );
    return job.source.paths;
  }
  const fetch = deps.chat.fetchFile?.bind(deps.chat);
  if (!fetch) throw new EtcdDoctorError('command_invalid', 'This chat cannot hand files to etcd-doctor.');
  const out: Array<{ path: string; name: string }> = [];
  for (const file of job.source.files) {
    const { path } = await fetch(file.id, { dir, maxBytes: deps.maxFileBytes, signal });
    out.push({ path, name: file.name });
  }
  await refuseSnapshotsOutsideDm(job.channel, out);
  return out.map((f) => f.path);
}

/**
 * The worker side of offline analysis: downloads the shared files into a private temp directory
 * (0700, files 0600), runs the rules on them, answers in the thread once, and removes the files.
 * Bad input (an OfflineInputError or a download refusal) is the answer itself, not a failure.
 */
export function createAnalyzeJob(deps: AnalyzeJobDeps): AnalyzeJobHandlers {
  const once = (jobId: string, job: AnalyzeJob, view: ChatView) =>
    deps.answer(jobId, () => deps.chat.post(destination(job), view));

  const root = deps.tmpRoot ?? tmpdir();
  let swept: Promise<void> | undefined;
  return {
    async run(job, info) {
      swept ??= sweepStale(root, deps.logger);
      await swept;
      const dir = await mkdtemp(join(root, dirPrefix(process.pid)));
      let view: ChatView;
      let status = 'refused';
      try {
        // Shared files are read in a process with its own limits: one that expands past them is an answer, not a dead worker.
        const report = await analyzeIsolated(await pathsOf(job, dir, info.signal, deps), {
          signal: info.signal,
          ...(deps.memoryMb ? { memoryMb: deps.memoryMb } : {}),
        });
        if (report.kind === 'snapshot') {
          view = snapshotView(report, label(job));
          status = report.snapshot.hashOk === false ? 'damaged' : 'snapshot';
        } else {
          // The diagnose answer's shape (render-blocks: escaped, with the timeline); no buttons: no cluster to act on.
          view = { kind: 'report', report, buttons: [] };
          status = report.status;
        }
      } catch (err) {
        // Anything else (Slack unavailable, a bug) is retried, then answered by failed().
        if (!isEtcdDoctorError(err)) throw err;
        view = textView(withoutDir(describeError(err)), 'warning', {
          title: `Could not analyse ${label(job)}`,
        });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
      if (info.signal.aborted) return { status: 'abandoned' };
      await once(info.jobId, job, view);
      const logger = withFields(deps.logger, { jobId: info.jobId, kind: 'analyze' });
      logger.info({ status, files: label(job) }, 'offline analysis answered');
      return { status };
    },
    async failed(jobId, job, reason, how) {
      // Its process died reading it (a file past every limit, or the pod OOM-killed): the queue does
      // not run it again, and the user is told what to share instead.
      const instead = how?.workerDied ? `; it is not tried again: ${SHARE_INSTEAD}` : '';
      const view = textView(`Could not analyse ${label(job)}: ${withoutDir(reason)}${instead}`, 'error');
      await once(jobId, job, view).catch((err: unknown) =>
        deps.logger.warn({ jobId, err: describeError(err) }, 'could not answer a failed analysis'),
      );
    },
  };
}
