// Jest's node environment, plus an accounting of what each test file leaves running (issue 42
// item 9). A file that leaves a timer, socket or child process running past its own teardown
// keeps the Jest worker alive when it is the worker's last file: Jest then force-exits the worker
// and warns "A worker process has failed to exit gracefully", naming nobody. Here each file's
// teardown waits, at most LINGER_MS, until the timers its code started (through this
// environment's setTimeout and setInterval, which every module of the file uses) have ended or
// been cleared, and the sockets and child processes it opened are closed: a library's closing
// timer (ioredis's 2 s destroy timer, BullMQ's blocking watchdog) ends inside the file that caused
// it. What is still there after that is printed with the file's name, so a real leak is named
// instead of hidden. And a worker still alive EXIT_REPORT_MS after Jest told it to end says what
// holds it.
const { TestEnvironment } = require('jest-environment-node');

const LINGER_MS = 8000;
const POLL_MS = 50;
/** Timers this long or longer keep where they were started (a stack costs microseconds). */
const TRACED_MS = 1000;

/** Jest's message telling a worker to end (jest-worker CHILD_MESSAGE_END). */
const CHILD_MESSAGE_END = 2;
/** A worker still running this long after it was told to end says what holds it. */
const EXIT_REPORT_MS = 3000;
let lastFile;
let watchingExit = false;

/** A handle as a line: what it is, and what it is connected to. */
function describeHandle(h) {
  const name = h?.constructor?.name ?? 'handle';
  if (name === 'ChildProcess') return `child process ${h.pid} (${h.spawnfile})`;
  if (name === 'Socket' || name === 'TLSSocket')
    return `${name} ${h.remoteAddress ?? ''}:${h.remotePort ?? ''} (${h._handle?.constructor?.name} fd ${h._handle?.fd})`;
  if (name === 'Server') return `server ${JSON.stringify(h.address?.())}`;
  return name;
}

/** The process's own stdio (fds 0-2) comes into being in whichever file first uses it: never a leak. */
const isStdio = (h) => typeof h?._handle?.fd === 'number' && h._handle.fd >= 0 && h._handle.fd <= 2;

/** Still holding the event loop: a socket not destroyed, a child not exited, a listening server. */
function isOpen(h) {
  const name = h?.constructor?.name;
  if (name === 'ChildProcess') return h.exitCode === null && h.signalCode === null;
  if (name === 'Socket' || name === 'TLSSocket') return !h.destroyed;
  if (name === 'Server') return h.listening;
  return true;
}

/**
 * Once per worker process: when Jest tells it to end, a worker that has not exited EXIT_REPORT_MS
 * later writes what keeps it alive (the timer is unref'd: it never holds the process itself).
 */
function reportWhatHoldsTheWorker() {
  if (watchingExit || typeof process.send !== 'function') return;
  watchingExit = true;
  const onMessage = (message) => {
    if (!Array.isArray(message) || message[0] !== CHILD_MESSAGE_END) return;
    process.removeListener('message', onMessage);
    setTimeout(() => {
      const handles = process
        ._getActiveHandles()
        .filter((h) => !isStdio(h))
        .map(describeHandle);
      process.stderr.write(
        `jest worker ${process.pid} still alive ${EXIT_REPORT_MS / 1000} s after it was told to end (last file ${lastFile}): ${process.getActiveResourcesInfo().join(', ')}; handles: ${handles.join(', ') || 'none'}\n`,
      );
    }, EXIT_REPORT_MS).unref();
  };
  process.on('message', onMessage);
}

class EtcdDoctorEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
    this.timers = new Map();
    this.traceTimers(this.global);
  }

  /** The file's setTimeout and setInterval, each live ref'd timer remembered until it ends. */
  traceTimers(g) {
    const timers = this.timers;
    const trace = (start, kind) =>
      function traced(fn, ms, ...args) {
        const where = Number(ms) >= TRACED_MS ? new Error().stack?.split('\n')[2]?.trim() : undefined;
        let timer;
        const run =
          typeof fn === 'function' && kind === 'setTimeout'
            ? function ended(...a) {
                timers.delete(timer);
                return fn.apply(this, a);
              }
            : fn;
        timer = start(run, ms, ...args);
        timers.set(timer, { kind, ms: Number(ms) || 0, where });
        return timer;
      };
    const { setTimeout: st, setInterval: si, clearTimeout: ct, clearInterval: ci } = g;
    g.setTimeout = trace(st, 'setTimeout');
    g.setInterval = trace(si, 'setInterval');
    g.clearTimeout = (t) => {
      timers.delete(t);
      return ct(t);
    };
    g.clearInterval = (t) => {
      timers.delete(t);
      return ci(t);
    };
  }

  async setup() {
    await super.setup();
    reportWhatHoldsTheWorker();
    lastFile = this.testPath;
    this.handlesBefore = new Set(process._getActiveHandles());
  }

  /** What the file started and is still running: ref'd timers and open handles it opened. */
  leftRunning() {
    const timers = [...this.timers]
      .filter(([t]) => typeof t?.hasRef !== 'function' || (t.hasRef() && !t._destroyed))
      .map(([, i]) => `${i.kind} ${i.ms} ms${i.where ? ` (${i.where})` : ''}`);
    const handles = process
      ._getActiveHandles()
      .filter((h) => !this.handlesBefore.has(h) && !isStdio(h) && isOpen(h))
      .map(describeHandle);
    return [...timers, ...handles];
  }

  async teardown() {
    const deadline = Date.now() + LINGER_MS;
    let left = this.leftRunning();
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      left = this.leftRunning();
    }
    if (left.length > 0)
      process.stderr.write(
        `${this.testPath}: still running ${LINGER_MS / 1000} s after its teardown (it keeps the Jest worker from exiting): ${left.slice(0, 8).join('; ')}\n`,
      );
    await super.teardown();
  }
}

module.exports = EtcdDoctorEnvironment;
