/** Jest runs TypeScript through swc (ESM); `tsc --noEmit` does the type-checking. */
export default {
  // Node's environment, waiting out and naming what a file leaves running (test/support/jest-environment.cjs).
  testEnvironment: '<rootDir>/test/support/jest-environment.cjs',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    '^.+\\.ts$': [
      '@swc/jest',
      { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'es6' } },
    ],
  },
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  testMatch: ['<rootDir>/test/**/*.test.ts'],
  // The 10-minute soak runs on its own: `npm run test:soak` (jest.soak.config.js).
  testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/soak/'],
  testTimeout: 60000,
  // A failed test runs once more, its first failure printed (test/support/retry-once.ts).
  setupFilesAfterEnv: ['<rootDir>/test/support/retry-once.ts'],
  // Two suites at a time (this machine kind has 2 cores): most of a suite's time is waiting on
  // etcd, /metrics windows and timers. The labs keep their data on tmpfs, so one suite's writes do
  // not slow the other's fsyncs, and diagnoses measure their own event-loop delay (observer load).
  // Full suite: 6.3 min instead of 13.5.
  maxWorkers: 2,
  // A worker told to end gets 10 s to finish what its last file's libraries still close (Jest's
  // default is 0.5 s): past that, Jest force-exits it and warns, and the environment above says
  // what held it.
  workerGracefulExitTimeout: 10_000,
};
