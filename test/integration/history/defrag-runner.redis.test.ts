import { afterAll, describe, expect, it } from '@jest/globals';
import { Redis } from 'ioredis';
import type { DiagnosisReport, FindingJson } from '../../../src/contracts/report-json.js';
import { addDefragRunner } from '../../../src/history/defrag-runner.js';
import { silentLogger } from '../../../src/logger.js';
import { type AuditEntry, createAuditLog, MAINTENANCE_ACTOR } from '../../../src/state/audit-log.js';
import { purgePrefix, REDIS_URL, testPrefix } from '../../support/redis/redis-prefix.js';

/**
 * Issue 39 item 5: a `defrag-in-progress` finding says who ran the defragmentation: etcd-doctor's
 * Defragment button (and who pressed it), its maintenance window, or someone else. Read from the
 * audit trail in real Redis, as the remediation and the maintenance window write it.
 */
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
const prefixes: string[] = [];

afterAll(async () => {
  redis.disconnect();
  for (const p of prefixes) await purgePrefix(p);
});

const defragmenting: FindingJson = {
  cause: 'defrag-in-progress',
  severity: 'warning',
  members: ['etcd-2'],
  nodes: [],
  summary: 'etcd-2 is defragmenting',
  evidence: ['etcd-2: etcd_disk_defrag_inflight 0 → 1 over 3 s'],
  steps: [],
  remediation: [],
  unknowns: [],
  causedBy: null,
};

/** The report a diagnosis of `prod` gives while etcd-2 defragments (the engine's JSON shape). */
const report = (findings: FindingJson[] = [defragmenting]): DiagnosisReport => ({
  cluster: 'prod',
  status: 'degraded',
  durationMs: 3100,
  members: [],
  findings,
  probes: [],
  kind: 'diagnose',
  collectedAt: new Date().toISOString(),
});

/** A fresh audit trail holding `entries`, written as the remediation writes them. */
async function trail(entries: Array<Partial<AuditEntry>>) {
  const prefix = testPrefix('defrag-runner');
  prefixes.push(prefix);
  const audit = createAuditLog(redis, prefix);
  for (const e of entries)
    await audit.append({
      event: 'started',
      cluster: 'prod',
      user: 'U0ALICE',
      action: 'defragment',
      plan: 'p-1',
      detail: 'Defragment',
      ...e,
    });
  return audit;
}

const firstEvidence = async (entries: Array<Partial<AuditEntry>>, laterMs = 0) =>
  (await addDefragRunner(report(), await trail(entries), Date.now() + laterMs, silentLogger)).findings[0]
    ?.evidence[0];

describe('who ran the defragmentation a diagnosis finds', () => {
  it('the Defragment button, running now: names who pressed it, when, and the plan', async () => {
    expect(await firstEvidence([{}])).toMatch(
      /^started by etcd-doctor's Defragment button, pressed by U0ALICE \d+ s ago \(\d\d:\d\d UTC, plan p-1\), still running$/,
    );
  });

  it('the maintenance window, finished a moment ago: still its run', async () => {
    const text = await firstEvidence(
      [
        { user: MAINTENANCE_ACTOR, plan: 'mw-1', detail: 'maintenance window Sun 02:00-04:00' },
        { user: MAINTENANCE_ACTOR, plan: 'mw-1', event: 'finished', detail: 'defragmented 3 members' },
      ],
      60_000,
    );
    expect(text).toMatch(
      /^started by etcd-doctor's maintenance window .*plan mw-1\); that run finished 60 s ago$/,
    );
  });

  it('no run of etcd-doctor: a dry run, a run that ended long ago, another cluster, another action', async () => {
    const text = await firstEvidence(
      [
        { plan: 'dry', detail: 'Defragment (dry run)' },
        { plan: 'old' },
        { plan: 'old', event: 'finished', detail: 'done' },
        { plan: 'other', cluster: 'staging' },
        { plan: 'alarm', action: 'disarm-nospace' },
      ],
      20 * 60_000,
    );
    expect(text).toMatch(
      /^not started by etcd-doctor: .*run elsewhere \(a CronJob, an operator, or someone's `etcdctl defrag`\)$/,
    );
  });

  it('a report with no defragmentation is left as it is, whatever the trail holds', async () => {
    const plain = report([{ ...defragmenting, cause: 'slow-disk' }]);
    expect(await addDefragRunner(plain, await trail([{}]), Date.now(), silentLogger)).toBe(plain);
  });

  it('Redis that refuses: the diagnosis still arrives, saying who started it is unknown', async () => {
    const down = new Redis('redis://127.0.0.1:9', {
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
      enableOfflineQueue: true,
    });
    down.on('error', () => undefined);
    try {
      const out = await addDefragRunner(report(), createAuditLog(down, 'x'), Date.now(), silentLogger);
      expect(out.findings[0]?.evidence).toEqual(defragmenting.evidence);
      expect(out.findings[0]?.unknowns).toEqual([
        expect.stringMatching(
          /^who started it: etcd-doctor's audit trail (could not be read|did not answer in 1\.5 s)$/,
        ),
      ]);
    } finally {
      down.disconnect();
    }
  });
});
