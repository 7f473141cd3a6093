import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { type ChildRegistry, isRunning, waitForExit } from './child-registry.js';
import type { TlsMaterial } from '../../../src/clients/grpc-tls.js';
import { answersVersion, isHealthy } from './http-get.js';
import { createLogRing } from './log-ring.js';

/** One etcd member's OS process across kills and restarts; its stderr is kept across restarts too. */
export interface MemberProcess {
  readonly name: string;
  /** Undefined while the member is not running. */
  readonly pid: number | undefined;
  readonly running: boolean;
  start(): void;
  kill(): Promise<void>;
  /** False when the member is not running, so a signal never reaches a recycled PID. */
  signal(signal: NodeJS.Signals): boolean;
  logs(): string;
  /** Resolves once the last process has exited and its stderr is fully read ('close'). */
  closed(): Promise<void>;
}

export interface MemberProcessSpec {
  name: string;
  binary: string;
  args: string[];
  registry: ChildRegistry;
  logBytes: number;
}

export function createMemberProcess(spec: MemberProcessSpec): MemberProcess {
  const ring = createLogRing(spec.logBytes);
  let child: ChildProcess | undefined;
  const running = (): boolean => child !== undefined && isRunning(child);
  return {
    name: spec.name,
    get pid() {
      return running() ? child?.pid : undefined;
    },
    get running() {
      return running();
    },
    start() {
      if (running()) throw new Error(`member ${spec.name} is already running (pid ${child?.pid})`);
      child = spawnMember(spec, (chunk) => ring.append(chunk));
    },
    async kill() {
      if (!child || !running()) return;
      child.kill('SIGKILL');
      await waitForExit(child);
    },
    signal(signal) {
      return child !== undefined && running() && child.kill(signal);
    },
    logs: () => ring.text(),
    closed: () => (child ? waitForClose(child) : Promise.resolve()),
  };
}

function waitForClose(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.stderr?.closed !== false) return Promise.resolve();
  return new Promise((resolve) => child.once('close', () => resolve()));
}

function spawnMember(spec: MemberProcessSpec, onLog: (chunk: Buffer) => void): ChildProcess {
  // A clean environment: ETCD_* variables in the caller's shell would otherwise reconfigure the lab.
  const child = spawn(spec.binary, spec.args, {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: false,
    env: {},
  });
  spec.registry.track(child);
  child.stderr?.on('data', onLog);
  child.once('error', (err) => onLog(Buffer.from(`lab: could not start ${spec.binary}: ${err.message}\n`)));
  return child;
}

const POLL_INTERVAL_MS = 100;
const PROBE_TIMEOUT_MS = 1000;
/** After a restart without quorum /health never turns true; a member that serves /version this long is up. */
const NO_QUORUM_GRACE_MS = 5000;

/** Waits until the member says {"health":"true"}; throws with its last log lines if it exits or times out. */
export async function waitUntilHealthy(
  member: MemberProcess,
  clientUrl: string,
  timeoutMs: number,
  tls?: TlsMaterial,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    await assertStillRunning(member, clientUrl);
    if (await isHealthy(clientUrl, PROBE_TIMEOUT_MS, tls)) return;
    await sleep(POLL_INTERVAL_MS);
  }
  throw new Error(
    `member ${member.name} (${clientUrl}) was not healthy within ${timeoutMs} ms${logTail(member)}`,
  );
}

/** Like waitUntilHealthy, but also accepts a member that serves /version for a while without quorum. */
export async function waitUntilServing(
  member: MemberProcess,
  clientUrl: string,
  timeoutMs: number,
  tls?: TlsMaterial,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let servingSince: number | undefined;
  while (Date.now() < deadline) {
    await assertStillRunning(member, clientUrl);
    if (await isHealthy(clientUrl, PROBE_TIMEOUT_MS, tls)) return;
    if (servingSince === undefined && (await answersVersion(clientUrl, PROBE_TIMEOUT_MS, tls))) {
      servingSince = Date.now();
    }
    if (servingSince !== undefined && Date.now() - servingSince >= NO_QUORUM_GRACE_MS) return;
    await sleep(POLL_INTERVAL_MS);
  }
  throw new Error(
    `member ${member.name} (${clientUrl}) did not serve /version within ${timeoutMs} ms${logTail(member)}`,
  );
}

async function assertStillRunning(member: MemberProcess, clientUrl: string): Promise<void> {
  if (member.running) return;
  // The reason ("address already in use", a bad flag) may still be in the pipe when 'exit' fires.
  await Promise.race([member.closed(), sleep(1000)]);
  throw new Error(`member ${member.name} (${clientUrl}) exited while starting${logTail(member)}`);
}

const ERROR_LINE = /"level":"(fatal|panic|error)"|error|flag provided but not defined/i;

/** The member's last error lines (or last lines), because why it failed is said there. */
export function logTail(member: MemberProcess): string {
  const lines = member.logs().trimEnd().split('\n');
  const errors = lines.filter((line) => ERROR_LINE.test(line));
  const tail = (errors.length > 0 ? errors : lines).slice(-3).filter((line) => line !== '');
  return tail.length > 0 ? `; last log lines:\n${tail.join('\n')}` : '';
}
