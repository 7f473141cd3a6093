import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { analyzePaths } from '../../../src/offline/analyze.js';
import { LAB_FAULTS, runLabFault } from '../../support/offline/offline-faults.js';

/**
 * For every fault the suite injects into the lab, the live `diagnose` names that fault, and
 * `analyze` on the members' real logs names the same root cause, on the same member, with the
 * status the fault must produce: offline analysis is only worth having if it agrees with live.
 */

/**
 * What each injected fault must produce, live and offline. One voter of three down leaves no
 * failure tolerance (critical); a 1.2 s fdatasync is a slow disk logged as `slow fdatasync`
 * (critical); NOSPACE refuses writes (critical); a skewed clock and 6 leader moves (under the
 * 2 x 4 per 15 min of leader-churn) are warnings (degraded).
 */
const EXPECTED: Record<string, { cause: string; status: 'critical' | 'degraded'; member?: string }> = {
  'slow-disk': { cause: 'slow-disk', status: 'critical' },
  'member-down': { cause: 'member-down', status: 'critical', member: 'etcd-2' },
  'clock-skew': { cause: 'clock-skew', status: 'degraded', member: 'etcd-2' },
  nospace: { cause: 'db-quota', status: 'critical' },
  'leader-churn': { cause: 'leader-churn', status: 'degraded' },
};

/**
 * A fault whose lab cannot be built here (clock-skew without a working clockshift) is skipped
 * visibly, with the reason in its title, decided once at collection; never a silent pass.
 */
const unavailable = new Map<string, string>();
for (const fault of LAB_FAULTS) {
  const setup = await fault.lab();
  if ('skip' in setup) unavailable.set(fault.name, setup.skip);
  else await setup.dispose();
}
describe.each(['zap', 'capnslog'] as const)(
  'offline parity, etcd logging %s: analyze on the lab members logs names what diagnose named live',
  (logger) => {
    let dir: string;
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'etcd-doctor-parity-'));
    });
    afterAll(async () => {
      await rm(dir, { recursive: true, force: true });
    });

    for (const fault of LAB_FAULTS) {
      const name = fault.name;
      const why = unavailable.get(name);
      (why === undefined ? it : it.skip)(
        why === undefined ? name : `${name} (skipped: ${why})`,
        async () => {
          const expected = EXPECTED[name];
          if (!expected) throw new Error(`no expected verdict for the lab fault ${name}: add it to EXPECTED`);
          const run = await runLabFault(fault, join(dir, logger, name), logger);
          // Collection found the lab buildable: losing it since is a failure, not a pass.
          if ('skip' in run)
            throw new Error(`${name}: the lab was buildable at collection, now: ${run.skip}`);
          const live = run.live.findings[0];
          // The live diagnosis names the injected fault first, else parity would compare two wrong answers.
          expect({ cause: live?.cause, status: run.live.status }).toEqual({
            cause: expected.cause,
            status: expected.status,
          });
          if (expected.member) expect(live?.members).toEqual([expected.member]);
          const report = await analyzePaths(run.logFiles);
          const offline = report.findings[0];
          // As text first, so a failure shows both verdicts.
          const said = (f: typeof live) => `${f?.cause} [${f?.members.join(',')}]: ${f?.summary}`;
          expect(`${name}: ${said(offline)} (live: ${said(live)})`).toMatch(
            new RegExp(`^${name}: ${live?.cause} `),
          );
          if (live?.cause === 'db-quota') {
            // Live names every member over the quota; the logs name those that logged the refusal.
            expect(offline?.members.length).toBeGreaterThan(0);
            for (const m of offline?.members ?? []) expect(live.members).toContain(m);
          } else {
            expect(offline?.members).toEqual(live?.members);
          }
          expect(report.status).toBe(expected.status);
          expect(report.source.map((s) => s.kind)).toEqual(['log', 'log', 'log']);
          expect(report.timeline.length).toBeGreaterThan(0);
          // The live rule the logs stood in for was evaluated, from the logs: never listed as not evaluated.
          const notEvaluated = report.notEvaluated?.map((n) => n.rule);
          expect(notEvaluated).toContain('quorum-lost');
          expect(notEvaluated).not.toContain(offline?.cause);
        },
        120_000,
      );
    }
  },
);
