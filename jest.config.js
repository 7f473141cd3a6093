/** Jest runs TypeScript through swc (ESM); `tsc --noEmit` does the type-checking. */
export default {
  testEnvironment: 'node',
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
  maxWorkers: 1,
};
