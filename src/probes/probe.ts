import { setMaxListeners } from 'node:events';
import type { FailureKind, Outcome, ProbeFailure } from './outcome.js';

/** A probe turns one question about a cluster or member into evidence. */
export interface Probe<Ctx, T> {
  /** Stable name, used in the JSON `probes` list (`status`, `metrics`, ...). */
  readonly kind: string;
  /** What the probe asks, for messages: `did not answer Status`. */
  readonly asks: string;
  readonly timeoutMs: number;
  /**
   * The probe never reads the signal (its gRPC calls carry their own deadline): runProbe passes one
   * that never aborts instead of making an AbortController per call (health and Status, six a warm
   * health check).
   */
  readonly takesNoSignal?: boolean;
  collect(ctx: Ctx, signal: AbortSignal): Promise<T>;
}

export interface RunProbeOptions {
  /**
   * Who is asked, for messages: `etcd-2 (http://127.0.0.1:2379)`. A function is read when the
   * message is written, so a name learned meanwhile (from the member list) is used.
   */
  subject: string | (() => string);
  timeoutMs?: number;
  now?: () => number;
  /** The whole run's signal (an MCP client that gave up): aborting it stops the probe at once. */
  signal?: AbortSignal;
}

/** Thrown by probes for failures they can classify (a 403, a refused connection, ...). */
export class ProbeError extends Error {
  readonly kind: FailureKind;

  constructor(kind: FailureKind, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'ProbeError';
    this.kind = kind;
  }
}

/**
 * Thrown by a probe whose every part ran out of its deadline (the deadlines equal the probe's own
 * timeout): it is reported as the probe's timeout, whichever timer happened to fire first.
 */
export class ProbeTimeoutError extends ProbeError {
  constructor(options?: { cause?: unknown }) {
    super('timeout', 'every part of the probe ran out of time', options);
    this.name = 'ProbeTimeoutError';
  }
}

const REFUSED =
  /ECONNREFUSED|connection refused|ENOTFOUND|EHOSTUNREACH|ECONNRESET|socket hang up|No connection established|UNAVAILABLE/i;

/** etcd's answers to a read while its member has no leader or just lost it (KB F4). */
const ELECTION_ERROR = /etcdserver: (leader changed|no leader)/;

/** A call that failed because of an election, not because the member is gone. */
export function isElectionError(text: string): boolean {
  return ELECTION_ERROR.test(text);
}

/** grpc-js: `4 DEADLINE_EXCEEDED: Deadline exceeded after 3.000s,...` (status code 4). */
const GRPC_DEADLINE = /\bDEADLINE_EXCEEDED\b/;

/** Classifies a thrown error; connection errors become `unreachable`. */
export function toFailure(err: unknown, subject: string, asks: string): ProbeFailure {
  if (err instanceof ProbeError) return { kind: err.kind, message: `${subject}: ${err.message}` };
  const text = errorText(err);
  // etcd sends these as UNAVAILABLE too, but the member answered: its read met an election (KB F4).
  if (ELECTION_ERROR.test(text))
    return { kind: 'error', message: `${subject} answered, but ${asks} failed: ${text}` };
  if (REFUSED.test(text))
    return { kind: 'unreachable', message: `${subject} is unreachable (${asks}: ${text})` };
  return { kind: 'error', message: `${subject} failed ${asks}: ${text}` };
}

function errorText(err: unknown): string {
  if (err instanceof Error) {
    const cause = err.cause instanceof Error ? ` (${err.cause.message})` : '';
    return cleanErrorText(`${err.message.split('\n')[0]}${cause}`).slice(0, 300);
  }
  return cleanErrorText(String(err)).slice(0, 300);
}

/**
 * grpc-js wraps the cause in noise: `14 UNAVAILABLE: No connection established. Last error:
 * Failed to connect (2026-12-01T20:25:53.443Z). Resolution note: ` and OpenSSL's
 * `803C…:error:0A000412:SSL routines:ssl3_read_bytes:sslv3 alert bad certificate:../deps/…:1601:SSL
 * alert number 42`. Users see `UNAVAILABLE: Failed to connect` and `sslv3 alert bad certificate
 * (SSL alert number 42)`.
 */
export function cleanErrorText(text: string): string {
  return text
    .replace(
      /[0-9A-F]{8,}:error:[0-9A-F]+:SSL routines:[^:]*:([^:]+):\S*?:\d+:(SSL alert number \d+)/g,
      '$1 ($2)',
    )
    .replace(/[0-9A-F]{8,}:error:[0-9A-F]+:SSL routines:[^:]*:([^:]+):\S*?:\d+:?/g, '$1')
    .replace(/\b\d+ (UNAVAILABLE|DEADLINE_EXCEEDED|UNKNOWN|INTERNAL):/g, '$1:')
    .replace(/No connection established\. Last error: /g, '')
    .replace(/ \(\d{4}-\d\d-\d\dT[\d:.]+Z\)/g, '')
    .replace(/\.? ?Resolution note: ?(?=$|\))/g, '')
    .replace(/\s+$/, '');
}

/**
 * Runs one probe under its own deadline. It never throws: a timeout or an error becomes
 * failure evidence, so one hung member can never cost the rest of the report. One promise and one
 * timer per probe (a warm health check runs six): no race of helper promises.
 */
export function runProbe<Ctx, T>(
  probe: Probe<Ctx, T>,
  ctx: Ctx,
  options: RunProbeOptions,
): Promise<Outcome<T>> {
  const now = options.now ?? Date.now;
  const timeoutMs = options.timeoutMs ?? probe.timeoutMs;
  const run = options.signal;
  const controller = probe.takesNoSignal ? undefined : new AbortController();
  const started = now();
  const subject = () => (typeof options.subject === 'function' ? options.subject() : options.subject);
  const failed = (failure: ProbeFailure): Outcome<T> => ({ ok: false, failure, durationMs: now() - started });
  const timedOut = () =>
    failed({
      kind: 'timeout',
      message: `${subject()} did not answer ${probe.asks} in ${formatSeconds(timeoutMs)}`,
    });
  return new Promise<Outcome<T>>((resolve, reject) => {
    let settled = false;
    const settle = (outcome: () => Outcome<T>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      run?.removeEventListener('abort', onAbort);
      // Writing the outcome can only throw on a bug (a subject that cannot be named): say so.
      try {
        resolve(outcome());
      } catch (err) {
        reject(err);
      }
    };
    const onAbort = () => {
      controller?.abort(run?.reason);
      settle(() =>
        failed({
          kind: 'skipped',
          message: `${subject()} was not asked ${probe.asks}: the check was cancelled`,
        }),
      );
    };
    const timer = setTimeout(
      () =>
        afterPendingIo(() => {
          if (settled) return;
          controller?.abort();
          settle(timedOut);
        }),
      timeoutMs,
    );
    if (run?.aborted) return onAbort();
    run?.addEventListener('abort', onAbort, { once: true });
    collectOnce(probe, ctx, controller?.signal ?? NEVER_ABORTED).then(
      (data) => settle(() => ({ ok: true, data, durationMs: now() - started })),
      // The gRPC deadline is set to the same timeout and can fire a moment before our timer does.
      (err) =>
        settle(() =>
          err instanceof ProbeTimeoutError || GRPC_DEADLINE.test(errorText(err))
            ? timedOut()
            : failed(toFailure(err, subject(), probe.asks)),
        ),
    );
  });
}

/**
 * A signal that aborts with `parent`, for `listeners` waiters of one run: the parent gets one listener
 * (taken off by `release`), and the run's own signal allows as many listeners as the run has probes.
 */
export function shareSignal(
  parent: AbortSignal,
  listeners: number,
): { signal: AbortSignal; release: () => void } {
  const own = new AbortController();
  setMaxListeners(Math.max(listeners * 2, 10), own.signal);
  const onAbort = () => own.abort(parent.reason);
  if (parent.aborted) onAbort();
  else parent.addEventListener('abort', onAbort, { once: true });
  return { signal: own.signal, release: () => parent.removeEventListener('abort', onAbort) };
}

/** The signal of a probe that declares `takesNoSignal`: it never aborts. */
const NEVER_ABORTED = new AbortController().signal;

/** The probe's answer as a promise, also when `collect` throws before returning one. */
function collectOnce<Ctx, T>(probe: Probe<Ctx, T>, ctx: Ctx, signal: AbortSignal): Promise<T> {
  try {
    return probe.collect(ctx, signal);
  } catch (err) {
    return Promise.reject(err);
  }
}

/**
 * Runs `fn` once the I/O that is already waiting has been handled. A timer fires in the timers
 * phase, before the poll phase reads sockets: when etcd-doctor's own event loop was blocked past
 * a deadline (a big digest), the answer sitting in the socket would lose to the timer and a member
 * that answered in time would be called hung. Two setImmediate turns let the poll phase (and the
 * HTTP/2 and gRPC callbacks it runs) go first.
 */
export function afterPendingIo(fn: () => void): void {
  setImmediate(() => setImmediate(fn));
}

/**
 * An AbortSignal that aborts `ms` from now, after pending I/O (afterPendingIo), for per-request
 * deadlines; `clear()` once the request is done, so no timer outlives it.
 */
export function deadlineSignal(ms: number): { signal: AbortSignal; clear(): void } {
  const controller = new AbortController();
  const timer = setTimeout(
    () => afterPendingIo(() => controller.abort(new Error(`deadline of ${ms} ms`))),
    ms,
  );
  timer.unref();
  return { signal: controller.signal, clear: () => clearTimeout(timer) };
}

/** `3000` -> `3 s`, `2500` -> `2.5 s`. */
export function formatSeconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(1))} s`;
}
