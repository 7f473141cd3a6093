import { type ChildProcess, spawn } from 'node:child_process';
import { isRunning } from '../lab/child-registry.js';
import { REDIS_URL } from '../redis/redis-prefix.js';
import { TEST_SIGNING_KEY_TEXT } from '../redis/signing-key.js';

/** A real `etcd-doctor worker` process, with what it logged on stderr (pino JSON, level info). */
export interface WorkerProcess {
  child: ChildProcess;
  log: string[];
  /** It logged "etcd-doctor started". */
  started(): boolean;
  /** Any line it logged contains `text`. */
  logged(text: string): boolean;
}

/** Keeps at most this many stderr chunks: a long run must not grow the test's own memory. */
const MAX_LOG_CHUNKS = 2000;

/** Starts `bin/etcd-doctor.js worker` (or another role) on `prefix`, posting to the fake Slack at `slackApiUrl`. */
export function startWorkerProcess(opts: {
  configPath: string;
  prefix: string;
  slackApiUrl: string;
  /** NODE_OPTIONS for the worker, e.g. the deployment's heap limit. */
  nodeOptions?: string;
  /** Another Redis than the shared one (a test's own, to restart it). */
  redisUrl?: string;
  /** The role and its options: `worker` by default; `['analyzer']`, `['worker', '--no-analysis']`. */
  role?: readonly string[];
}): WorkerProcess {
  const role = opts.role ?? ['worker'];
  const child = spawn(process.execPath, ['bin/etcd-doctor.js', ...role, '--queue-prefix', opts.prefix], {
    env: {
      PATH: process.env.PATH ?? '',
      REDIS_URL: opts.redisUrl ?? REDIS_URL,
      ETCD_DOCTOR_CONFIG: opts.configPath,
      SLACK_BOT_TOKEN: 'xoxb-1-worker',
      // The analyzer signs nothing, and its pods hold no key (deploy/kubernetes/components/analyzer).
      ...(role[0] === 'analyzer' ? {} : { REMEDIATION_SIGNING_KEY: TEST_SIGNING_KEY_TEXT }),
      SLACK_API_URL: opts.slackApiUrl,
      PORT: '0',
      LOG_LEVEL: 'info',
      ...(opts.nodeOptions ? { NODE_OPTIONS: opts.nodeOptions } : {}),
      // `ETCD_DOCTOR_COMPILED=1` runs dist/ (bin/etcd-doctor.js), as a bench of the image wants.
      ...(process.env.ETCD_DOCTOR_COMPILED ? { ETCD_DOCTOR_COMPILED: process.env.ETCD_DOCTOR_COMPILED } : {}),
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  const log: string[] = [];
  child.stderr?.on('data', (chunk: Buffer) => {
    if (log.length < MAX_LOG_CHUNKS) log.push(chunk.toString('utf8'));
  });
  const logged = (text: string) => log.join('').includes(text);
  return { child, log, logged, started: () => logged('etcd-doctor started') };
}

/** Whether the worker process still runs. */
export const isAlive = (w: WorkerProcess): boolean => isRunning(w.child);

/** SIGKILLs every worker that still runs (a test's afterAll). */
export function killWorkers(workers: readonly WorkerProcess[]): void {
  for (const w of workers) if (isAlive(w)) w.child.kill('SIGKILL');
}

/** Polls `pred` every 50 ms; rejects after `timeoutMs` naming `what`. */
export async function waitUntil(
  pred: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await pred())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
