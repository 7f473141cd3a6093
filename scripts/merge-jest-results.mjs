// Merges Jest --json result files into one (scripts/test.sh runs two Jest processes side by side).
// A missing input counts as one failed suite, so a Jest process that died is not a silent pass.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const [out, ...inputs] = process.argv.slice(2);
const COUNTS = [
  'numTotalTests',
  'numPassedTests',
  'numFailedTests',
  'numPendingTests',
  'numTodoTests',
  'numTotalTestSuites',
  'numPassedTestSuites',
  'numFailedTestSuites',
  'numPendingTestSuites',
  'numRuntimeErrorTestSuites',
];
const merged = { success: true, startTime: Number.POSITIVE_INFINITY, testResults: [] };
for (const key of COUNTS) merged[key] = 0;
for (const file of inputs) {
  if (!existsSync(file)) {
    console.error(`merge-jest-results: ${file} is missing (its Jest process did not finish)`);
    merged.success = false;
    merged.numRuntimeErrorTestSuites += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  for (const key of COUNTS) merged[key] += r[key] ?? 0;
  merged.success &&= Boolean(r.success);
  merged.startTime = Math.min(merged.startTime, r.startTime);
  merged.testResults.push(...r.testResults);
}
writeFileSync(out, JSON.stringify(merged));
console.error(`jest (merged): ${merged.numPassedTests} passed, ${merged.numFailedTests} failed in ${inputs.length} runs`);
