import { expect, jest } from '@jest/globals';

/**
 * Every test file (jest.config.js setupFilesAfterEnv): a failed test runs once more, after the rest
 * of its file, with its first failure printed. The suite runs real etcd members, Redis and worker
 * processes, three Jest workers at once on the two cores of this machine kind, at loads of 10-15;
 * a lab member starved past an apply or a heartbeat there is a true finding about the lab, not
 * about the code, and each CI run met one or two such tests. A test that fails twice fails, and
 * .ci/run names every test that needed its second run (Jest's `invocations` in the JSON results),
 * so a test that starts needing it often is seen, not hidden.
 *
 * Not the suites whose one test takes minutes (those that wait on watch intervals, scripts/test.sh
 * WAITING, and the fault suites that write 12,000 revisions or wait out a fixed fault): a second run
 * of one would hold CI past its time (a retried compaction-stalled took 214 s).
 */
const LONG_SUITES =
  /test\/integration\/(watch\/(quiet|restarts|incident)|history\/since-when|faults\/(compaction-stalled|fault-fixed))\.etcd\.test\.ts$/;

if (!LONG_SUITES.test(expect.getState().testPath ?? '')) jest.retryTimes(1, { logErrorsBeforeRetry: true });
