import base from './jest.config.js';

/** `npm run test:soak`: only test/soak/ (excluded from `npm test`); SOAK_MINUTES shortens the run. */
export default {
  ...base,
  testMatch: ['<rootDir>/test/soak/**/*.test.ts'],
  testPathIgnorePatterns: ['/node_modules/'],
  testTimeout: 20 * 60_000,
};
