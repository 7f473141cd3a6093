import type { ConfigFile } from '../config/schema.js';
import type { RedisTarget } from '../config/redis-target.js';
import type { Doctor } from '../doctor.js';
import { describeError } from '../errors.js';
import type { Logger } from '../logger.js';
import type { Evidence } from '../probes/evidence.js';
import type { AuditLog } from '../state/audit-log.js';
import type { HistoryStore } from '../state/history-store.js';
import { addDefragRunner } from './defrag-runner.js';
import { addFromHistory, type HistoryReader, readHistory, reportReadsHistory } from './since-when-report.js';
import { summarizeDiagnosis } from './summarize-diagnosis.js';
import { withWatchHistory } from './watch-history.js';

/**
 * What a role's Doctor records and reads around a run, the one description of it. A diagnosis
 * may be recorded in the 30-day history (the digests' trends), and may say since when each
 * finding has lasted, read from the watch's minute history: over the role's own Redis connection,
 * or, for a doctor outside the worker, from the deployment's Redis for watched clusters only.
 * The CLI's `diagnose` reads the same way after its run (run-check.ts, withWatchHistory), since it
 * also wants the samples for its chart. Health checks are never recorded nor dated.
 */
export type DoctorRole =
  /** The worker (checks, digests, alerts): records every diagnosis, and dates it from its own Redis. */
  | {
      role: 'worker';
      records: HistoryStore;
      reads: HistoryReader;
      /** Where a defragmentation etcd is doing was started, if by etcd-doctor (defrag-runner.ts). */
      audit: Pick<AuditLog, 'read'>;
      logger: Logger;
      now: () => number;
    }
  /** `etcd-doctor digest --now`: records every diagnosis; the digest reads the minute history itself. */
  | { role: 'digest-now'; records: HistoryStore; logger: Logger }
  /** The MCP tools (stdio: its own doctor; /mcp: the role's), dated from the deployment's Redis, as in Slack. */
  | { role: 'mcp'; config: ConfigFile; where: { redisUrl: RedisTarget; prefix: string } }
  /** The watch: the plain doctor; its checks go to the minute history, which it writes itself. */
  | { role: 'watch' };

/** The Doctor that `role` runs: `doctor`, recording and reading what DoctorRole says. */
export function doctorFor(doctor: Doctor, spec: DoctorRole): Doctor {
  switch (spec.role) {
    case 'worker':
      return withDefragRunner(
        withSinceWhen(recording(doctor, spec.records, spec.logger), spec.reads, spec.logger, spec.now),
        spec.audit,
        spec.logger,
        spec.now,
      );
    case 'digest-now':
      return recording(doctor, spec.records, spec.logger);
    case 'mcp':
      return withWatchSinceWhen(doctor, spec.config, spec.where);
    case 'watch':
      return doctor;
  }
}

/**
 * Every finished `diagnose` run also leaves a summary in the history (health checks do not read
 * /metrics, so they would only leave holes). A history write that fails is logged; it never costs
 * the user the diagnosis.
 */
function recording(doctor: Doctor, history: HistoryStore, logger: Logger): Doctor {
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

/**
 * A diagnosis also says since when each finding with a metric has lasted, from the watch's minute
 * history (src/state/minute-history.ts).
 */
function withSinceWhen(doctor: Doctor, history: HistoryReader, logger: Logger, now: () => number): Doctor {
  return {
    ...doctor,
    async run(name, depth, opts = {}) {
      const report = await doctor.run(name, depth, opts);
      if (depth !== 'diagnose' || !reportReadsHistory(report)) return report;
      const at = now();
      return addFromHistory(report, await readHistory(history, name, at, logger), at);
    },
  };
}

/** A diagnosis naming a defragmentation in progress says who started it (etcd-doctor's audit trail). */
function withDefragRunner(
  doctor: Doctor,
  audit: Pick<AuditLog, 'read'>,
  logger: Logger,
  now: () => number,
): Doctor {
  return {
    ...doctor,
    async run(name, depth, opts = {}) {
      return addDefragRunner(await doctor.run(name, depth, opts), audit, now(), logger);
    },
  };
}

/** A diagnosis of a watched cluster says since when, read from the deployment's Redis. */
function withWatchSinceWhen(
  doctor: Doctor,
  config: ConfigFile,
  where: { redisUrl: RedisTarget; prefix: string },
): Doctor {
  return {
    ...doctor,
    async run(name, depth, opts) {
      const report = await doctor.run(name, depth, opts);
      return (await withWatchHistory(report, config, where, Date.now())).report;
    },
  };
}
