import { expect, jest } from '@jest/globals';

/**
 * Every test file (jest.config.js setupFilesAfterEnv). A second run is for tests that start real
 * processes (etcd members, Redis, worker processes) on the two cores of this machine kind, at loads
 * of 10-15, where a lab member starved past an apply or a heartbeat is a true finding about the lab,
 * not about the code. A failed test of such a file runs once more, after the rest of its file, with
 * its first failure printed; .ci/run names every test that needed it and fails when more than
 * MAX_SECOND_RUNS did (a test that needs it often is a finding to fix, not a pass).
 *
 * Never a second run for:
 *  - unit tests (test/unit/): pure, or seeded fuzz that prints its seed: a failure is the code's;
 *  - exactly-once and failover tests: a second run starts from what the first left (a job answered,
 *    a replica promoted, a remediation half done) and could pass where the first found the bug;
 *  - the suites whose one test takes minutes (the watch intervals, 12,000 revisions, a fixed fault):
 *    a second run would hold CI past its time.
 */
const NO_SECOND_RUN = [
  // unit tests
  /^test\/unit\//,
  // exactly once, and failover
  /test\/integration\/job-worker\.etcd\.test\.ts$/,
  /test\/integration\/slack-http\.etcd\.test\.ts$/,
  /test\/integration\/operate\/observability\.etcd\.test\.ts$/,
  /test\/integration\/watch\/scale-out\.etcd\.test\.ts$/,
  /test\/integration\/resilience\/(redis-sentinel-failover|redis-cluster-failover|remediation-interrupted|worker-killed)\.etcd\.test\.ts$/,
  /test\/integration\/state\/(replicated-records|owned-lock|lost-jobs)\.redis\.test\.ts$/,
  /test\/integration\/queue\/job-queue\.redis\.test\.ts$/,
  // minutes each
  /test\/integration\/(watch\/(quiet|restarts|incident)|history\/since-when|faults\/(compaction-stalled|fault-fixed))\.etcd\.test\.ts$/,
];

const path = (expect.getState().testPath ?? '').replace(/^.*?(?=test\/(unit|integration|soak)\/)/, '');
if (!NO_SECOND_RUN.some((pattern) => pattern.test(path))) jest.retryTimes(1, { logErrorsBeforeRetry: true });
