import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Evidence } from '../probes/evidence.js';
import { summarizeDiagnosis } from './summarize-diagnosis.js';
import type { HistoryStore } from '../state/history-store.js';

/**
 * The same Doctor, but every finished `diagnose` run also leaves a summary in the history (health
 * checks do not read /metrics, so they would only leave holes). A history write that fails is
 * logged; it never costs the user the diagnosis.
 */
export function withHistory(doctor: Doctor, history: HistoryStore, logger: Logger): Doctor {
  return {
    ...doctor,
    async run(name, depth, opts = {}) {
      let evidence: Evidence | undefined;
      const report = await doctor.run(name, depth, {
        ...opts,
        onEvidence: (e) => {
          evidence = e;
          opts.onEvidence?.(e);
        },
      });
      if (depth === 'diagnose') {
        await history
          .record(name, summarizeDiagnosis(report, evidence, opts.dayOfChecks))
          .catch((err: unknown) =>
            logger.warn(
              { cluster: name, err: describeError(err) },
              'could not record the diagnosis in history',
            ),
          );
      }
      return report;
    },
  };
}
