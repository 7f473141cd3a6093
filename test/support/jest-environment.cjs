// Jest's node environment, plus an accounting of what each test file leaves running (issue 42
// item 9). A file that leaves a timer, socket or child process running past its own teardown
// keeps the Jest worker alive when it is the worker's last file: Jest then force-exits the worker
// and warns "A worker process has failed to exit gracefully", naming nobody. Here each file's
// teardown waits, at most LINGER_MS, until the process holds no more resources keeping the event
// loop alive (process.getActiveResourcesInfo(): ref'd timers, sockets, child processes...) than
// when the file started: a library's closing timer (ioredis's 2 s destroy timer, BullMQ's blocking
// watchdog) ends inside the file that caused it. What is still there after that is printed with
// the file's name, so a real leak is named instead of hidden.
const { TestEnvironment } = require('jest-environment-node');

const LINGER_MS = 8000;
const POLL_MS = 50;

/** The resources keeping the event loop alive, counted by type. */
function resources() {
  const counts = new Map();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  return counts;
}

/** What `now` holds beyond `before`, as `Timeout × 2, TCPSocketWrap`. */
function extra(before, now) {
  const over = [];
  for (const [type, n] of now) {
    const more = n - (before.get(type) ?? 0);
    if (more > 0) over.push(more === 1 ? type : `${type} × ${more}`);
  }
  return over;
}

class EtcdDoctorEnvironment extends TestEnvironment {
  constructor(config, context) {
    super(config, context);
    this.testPath = context.testPath;
  }

  async setup() {
    await super.setup();
    this.before = resources();
  }

  async teardown() {
    const deadline = Date.now() + LINGER_MS;
    let left = extra(this.before, resources());
    while (left.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      // The poll's own timer is gone by the time it resolves.
      left = extra(this.before, resources());
    }
    if (left.length > 0)
      process.stderr.write(
        `${this.testPath}: still running ${LINGER_MS / 1000} s after its teardown: ${left.join(', ')} (a leak: it keeps the Jest worker from exiting)\n`,
      );
    await super.teardown();
  }
}

module.exports = EtcdDoctorEnvironment;
