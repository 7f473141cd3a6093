import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { analyzePaths } from '../../../src/offline/analyze.js';
import { LAB_FAULTS, runLabFault } from '../../support/offline/offline-faults.js';

/**
 * Done when (issue 16): for every fault the suite injects into the lab, `analyze` on the members'
 * real logs names the same root cause, on the same member, as the live `diagnose` did.
 */
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

    it.each(LAB_FAULTS.map((f) => [f.name, f] as const))(
      '%s',
      async (name, fault) => {
        const run = await runLabFault(fault, join(dir, logger, name), logger);
        if ('skip' in run) {
          console.warn(`${name}: ${run.skip}`);
          return;
        }
        const live = run.live.findings[0];
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
        expect(report.status).toBe(run.live.status === 'critical' ? 'critical' : report.status);
        expect(report.status).not.toBe('healthy');
        expect(report.source.map((s) => s.kind)).toEqual(['log', 'log', 'log']);
        expect(report.timeline.length).toBeGreaterThan(0);
        // The live rule the logs stood in for was evaluated, from the logs: never listed as not evaluated.
        const notEvaluated = report.notEvaluated?.map((n) => n.rule);
        expect(notEvaluated).toContain('quorum-lost');
        expect(notEvaluated).not.toContain(offline?.cause);
      },
      120_000,
    );
  },
);
