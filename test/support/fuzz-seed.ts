import fc from 'fast-check';

/**
 * Fuzz tests run once (never a second run, test/support/retry-once.ts) from one seed: FUZZ_SEED
 * when set, else a new one each run, which fast-check prints in its failure (`seed: N`) together
 * with the counterexample's path. `FUZZ_SEED=N npm test -- test/unit/fuzz` replays a failure.
 */
export const FUZZ_SEED = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
fc.configureGlobal({ seed: FUZZ_SEED });
